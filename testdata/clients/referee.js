// referee.js: the parsing half of scripts/test-clients.sh.
//
//   node referee.js parse CLIENT OUTPUT          the client's own listing -> {"NAME": STATE}
//   node referee.js agentgate SERVERS.json FILE...  agentgate servers --format json -> {"NAME": STATUS}
//                                                (the servers defined in one of FILE...)
//
// STATE is "started" (connected, or failed to connect: the client started
// it), "listed" (the client reads it but its listing does not connect:
// Codex, Copilot CLI) or "off" (disabled, blocked, excluded). STATUS is
// "locked" for a server agentgate locks (its status "locked", or
// "unlocked" while agentgate.lock does not pin it yet), "off" for disabled
// and excluded servers.
'use strict';
const fs = require('fs');
const [, , cmd, ...rest] = process.argv;
const plain = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

function parse(client, text) {
  const out = {};
  const lines = plain(text).split('\n');
  switch (client) {
    case 'claude':
      // "NAME: COMMAND - ✔ Connected" / "✗" or "✘ Failed to connect" / "⚠ ..."
      for (const l of lines) {
        const m = /^(\S+): .* - (✔|✗|✘|⚠|!)\s*(.*)$/u.exec(l);
        if (m) out[m[1]] = /pending|disabled/i.test(m[3]) ? 'off' : 'started';
      }
      break;
    case 'gemini':
    case 'qwen':
      // "✓ NAME: COMMAND (stdio) - Connected" / "✗ ... - Disconnected" / "⛔ ... - Blocked"
      for (const l of lines) {
        const m = /^\S+\s+(\S+): .* - (\w+)\s*$/u.exec(l);
        if (m) out[m[1]] = /Blocked|Disabled/.test(m[2]) ? 'off' : 'started';
      }
      break;
    case 'opencode':
      // "●  ✓ NAME connected" / "●  ✗ NAME failed" / "●  ○ NAME disabled"
      for (const l of lines) {
        const m = /^●\s+\S+\s+(\S+)\s+(\w[\w ]*)$/u.exec(l.trim());
        if (m) out[m[1]] = /disabled/.test(m[2]) ? 'off' : 'started';
      }
      break;
    case 'codex': {
      const i = text.indexOf('[');
      for (const s of JSON.parse(text.slice(i))) out[s.name] = s.enabled ? 'listed' : 'off';
      break;
    }
    case 'copilot': {
      let on = false;
      for (const l of lines) {
        if (/^\S/.test(l)) on = /^Workspace servers:/.test(l);
        const m = /^\s+(\S+) \((\w+)\)/.exec(l);
        if (on && m) out[m[1]] = 'listed';
      }
      break;
    }
    default:
      throw new Error('unknown client ' + client);
  }
  return out;
}

function agentgate(file, files) {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  const out = {};
  for (const s of j.servers || []) {
    const where = [s.file, ...(s.alsoIn || []).map((a) => a.replace(/:\d+$/, ''))];
    // "unlocked": enabled, but not in agentgate.lock yet (there may be none).
    if (where.some((f) => files.includes(f))) out[s.name] = s.status === 'locked' || s.status === 'unlocked' ? 'locked' : 'off';
  }
  return out;
}

const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort()));
if (cmd === 'parse') {
  console.log(sorted(parse(rest[0], fs.readFileSync(rest[1], 'utf8'))));
} else if (cmd === 'agentgate') {
  console.log(sorted(agentgate(rest[0], rest.slice(1))));
} else {
  console.error('usage: referee.js parse CLIENT OUTPUT | agentgate SERVERS.json FILE...');
  process.exit(2);
}
