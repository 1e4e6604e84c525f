// mcpprogress: @modelcontextprotocol/server-everything (from npm, pinned
// in package-lock.json) given in session/new, over stdio and over
// streamable HTTP (bound to 127.0.0.1 by loopback.mjs). Its
// trigger-long-running-operation sends notifications/progress under the
// token harness puts on every tools/call: they reach the editor as
// tool_call_update content ("progress 1/3") before the call's completion.
// The calls are titled "everything: <the server's title>", with the raw
// name in _meta.harness.tool, on the tool_call and on the permission
// request (toggle-simulated-logging, not read-only, is asked about). No
// wall time is asserted: only the order of the updates.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { run, assert, script } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const everything = join(here, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const longName = "mcp__everything__trigger-long-running-operation";
const toggleName = "mcp__everything__toggle-simulated-logging";

// startHTTP starts server-everything's streamable HTTP transport on a free
// loopback port and returns its URL and the process.
async function startHTTP() {
  const child = spawn(process.execPath, ["--import", join(here, "loopback.mjs"), everything, "streamableHttp"],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, PORT: "0" } });
  let seen = "";
  const port = await new Promise((resolve, reject) => {
    child.stderr.on("data", (b) => {
      seen += b.toString();
      const m = seen.match(/loopback listening on (\d+)/);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`server-everything streamableHttp exited ${code}: ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

// check runs one turn against the session's server and checks what the
// editor got.
async function check(a, sessionId, how) {
  const from = a.permissionRequests.length;
  const r = await a.prompt(sessionId, "run the long operation");
  assert.equal(r.stopReason, "end_turn", how);

  const long = r.updates.filter((u) => u.toolCallId === "call_long");
  assert.equal(long[0].sessionUpdate, "tool_call", how);
  assert.equal(long[0].title, "everything: Trigger Long Running Operation Tool", how);
  assert.deepEqual(long[0]._meta, { harness: { tool: longName, mcpServer: "everything" } }, how);
  const done = long.findIndex((u) => u.status === "completed");
  assert.ok(done > 0, `${how}: the long call completed: ${JSON.stringify(long.at(-1))}`);
  assert.match(long[done].content.at(-1).content.text, /Long running operation completed/, how);
  const progress = long.findIndex((u) => u.sessionUpdate === "tool_call_update" && !u.status &&
    u.content?.some((c) => /progress [123]\/3/.test(c.content?.text ?? "")));
  assert.ok(progress > 0 && progress < done,
    `${how}: a progress update comes before the completion: ${JSON.stringify(long.map((u) => u.status ?? u.content?.[0]?.content?.text))}`);

  const asked = a.permissionRequests.slice(from);
  assert.deepEqual(asked.map((p) => p.toolCall.toolCallId), ["call_toggle"], `${how}: only the tool that is not read-only is asked about`);
  assert.equal(asked[0].toolCall.title, "everything: Toggle Simulated Logging", how);
  assert.deepEqual(asked[0].toolCall._meta, { harness: { tool: toggleName, mcpServer: "everything" } }, how);
}

await run("mcpprogress", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("mcpprogress") } });
  await a.initialize();
  const stdio = await a.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [{ name: "everything", command: process.execPath, args: [everything, "stdio"], env: [] }],
  });
  await check(a, stdio.sessionId, "stdio");

  const srv = await startHTTP();
  try {
    const web = await a.request("session/new", {
      cwd: process.cwd(),
      mcpServers: [{ type: "http", name: "everything", url: srv.url, headers: [] }],
    });
    await check(a, web.sessionId, "streamable HTTP");
  } finally {
    srv.child.kill();
  }
});
