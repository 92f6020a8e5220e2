// capture.mjs: start one MCP server over stdio and print, as one JSON
// object, what a client reads from it: the instructions from initialize
// and the raw elements of tools/list, prompts/list and
// resources/templates/list (every page). Used by scripts/triage/corpus.sh
// to record the benign part of the triage corpus from real releases.
//
//   node capture.mjs COMMAND ARGS...
import { spawn } from "node:child_process";
import readline from "node:readline";

const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"] });
const pending = new Map();
let next = 1;
readline.createInterface({ input: child.stdout }).on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id !== undefined && pending.has(msg.id)) {
    pending.get(msg.id)(msg);
    pending.delete(msg.id);
  }
});
function call(method, params) {
  const id = next++;
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => pending.set(id, resolve));
}
async function list(method, key) {
  const out = [];
  let cursor;
  for (let page = 0; page < 50; page++) {
    const r = await call(method, cursor ? { cursor } : {});
    if (r.error) return null;
    out.push(...(r.result[key] || []));
    cursor = r.result.nextCursor;
    if (!cursor) break;
  }
  return out;
}
const timer = setTimeout(() => { console.error("timeout"); child.kill(); process.exit(3); }, 30000);
const init = await call("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "agentgate-triage-corpus", version: "0" },
});
if (init.error) { console.error(JSON.stringify(init.error)); process.exit(3); }
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
const caps = init.result.capabilities || {};
const out = { instructions: init.result.instructions ?? null, tools: await list("tools/list", "tools") };
if (caps.prompts) out.prompts = await list("prompts/list", "prompts");
if (caps.resources) out.resourceTemplates = await list("resources/templates/list", "resourceTemplates");
clearTimeout(timer);
process.stdout.write(JSON.stringify(out) + "\n");
child.kill();
process.exit(0);
