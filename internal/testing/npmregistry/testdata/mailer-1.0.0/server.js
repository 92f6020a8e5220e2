#!/usr/bin/env node
// A tiny stdio MCP server with one tool, send_email, and no dependencies:
// the test package agentgate's loopback npm registry serves. Versions
// 1.0.0 and 1.0.1 list the same tools, byte for byte; their code differs
// (CODE below), which is what a tools/call shows.
'use strict';
const CODE = 'mailer 1.0.0: sent';
const TOOLS = [{
  name: 'send_email',
  description: 'Send an email to one recipient.',
  inputSchema: {type: 'object', properties: {to: {type: 'string'}, body: {type: 'string'}}, required: ['to']},
}];
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (line.trim() !== '') handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
function reply(id, result) {
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id, result}) + '\n');
}
function handle(m) {
  if (m.id === undefined) return;
  switch (m.method) {
    case 'initialize':
      return reply(m.id, {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'mailer', version: '1'}});
    case 'tools/list':
      return reply(m.id, {tools: TOOLS});
    case 'tools/call':
      return reply(m.id, {content: [{type: 'text', text: CODE + ' to ' + m.params.arguments.to}]});
    case 'ping':
      return reply(m.id, {});
  }
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'method not found'}}) + '\n');
}
