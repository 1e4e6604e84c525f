// mcpfail: MCP failures reach the editor, each once, as a message of its
// own (the client advertises no session.notices): a server given in
// session/new that exits at start (its last stderr lines in the message,
// the env value it printed redacted), an mcp.json entry harness refuses,
// and — in a second process — an mcp.json that does not parse. The
// messages come after session/new's response, are not in the session's
// log (the model never reads them as its own words) and do not come
// again when a prompt's step starts the dead server again. A client that
// advertises clientCapabilities.session.notices gets an ACP notice
// instead (severity, title, the stderr in the description).
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, assert, script, acp } from "./lib.mjs";

const secret = "dying-secret-4242";

// configDir writes text as harness's mcp.json in a new XDG_CONFIG_HOME.
function configDir(text) {
  const dir = mkdtempSync(join(tmpdir(), "mcpfail-"));
  mkdirSync(join(dir, "harness"), { mode: 0o700 });
  writeFileSync(join(dir, "harness", "mcp.json"), text, { mode: 0o600 });
  return dir;
}

// notices are the session's agent messages that mention an MCP server.
function notices(a, sessionId) {
  return a.updatesOf(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk" && /MCP server/.test(u.content.text));
}

await run("mcpfail", async (h) => {
  const refused = configDir(JSON.stringify({ mcpServers: { boxed: { command: "x", sandbox: "everything" } } }));
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("mcpfail"), XDG_CONFIG_HOME: refused } });
  await a.initialize();
  const { sessionId } = await a.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [{ name: "dies", command: "sh", args: ["-c", 'echo "dying with $TOKEN" >&2; exit 3'], env: [{ name: "TOKEN", value: secret }] }],
  });
  const newAnswer = a.wire.findIndex((r) => r.dir === "out" && r.msg?.result?.sessionId === sessionId);
  await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk" && /MCP server dies/.test(u.content.text), "the notice of the server that exited", 20000);
  await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk" && /boxed/.test(u.content.text), "the notice of the refused entry", 20000);

  const r = await a.prompt(sessionId, "hello");
  assert.equal(r.stopReason, "end_turn");
  const got = notices(a, sessionId);
  const dies = got.filter((u) => /MCP server dies/.test(u.content.text));
  const boxed = got.filter((u) => /boxed/.test(u.content.text));
  assert.equal(dies.length, 1, `one message for the server that exited, got ${JSON.stringify(dies)}`);
  assert.equal(boxed.length, 1, `one message for the refused entry, got ${JSON.stringify(boxed)}`);
  assert.match(dies[0].content.text, /not started/);
  assert.match(dies[0].content.text, /dying with \[redacted\]/, "the server's last stderr, its env value redacted");
  assert.match(boxed[0].content.text, /sandbox "everything" is not/);
  assert.match(boxed[0].content.text, /mcp\.json/, "the message names the file to fix");
  assert.notEqual(dies[0].messageId, boxed[0].messageId, "each notice is a message of its own");
  for (const u of got) {
    const at = a.wire.findIndex((w) => w.dir === "out" && w.msg?.method === "session/update" && w.msg.params.update.messageId === u.messageId);
    assert.ok(at > newAnswer, "a notice comes after session/new's response");
  }
  for (const rec of a.wire.filter((w) => w.dir === "out")) {
    assert.ok(!rec.line.includes(secret), `harness wrote the server's env value on stdout: ${rec.line}`);
  }
  for (const line of a.stderr) {
    assert.ok(!line.includes(secret), `harness logged the server's env value: ${line}`);
  }
  const logs = join(process.env.HARNESS_STATE_DIR, "sessions");
  const log = readFileSync(join(logs, readdirSync(logs).find((f) => f.startsWith(sessionId) && f.endsWith(".jsonl"))), "utf8");
  assert.ok(!/MCP server dies|boxed/.test(log), "a notice is not written to the session's log");

  // An mcp.json that does not parse: one message too.
  const bad = configDir('{"mcpServers": {"x": ');
  const b = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none"), XDG_CONFIG_HOME: bad }, label: "bad-json" });
  await b.initialize();
  const s2 = (await b.request("session/new", { cwd: process.cwd(), mcpServers: [] })).sessionId;
  await b.waitForUpdate(s2, (u) => u.sessionUpdate === "agent_message_chunk" && /MCP servers of the user's file are left out/.test(u.content.text), "the notice of the bad mcp.json", 20000);
  const left = notices(b, s2);
  assert.equal(left.length, 1, `one message for the bad file, got ${JSON.stringify(left)}`);
  assert.match(left[0].content.text, /mcp\.json: unexpected end of JSON input/);

  // A client that takes notices gets one.
  const c = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none"), XDG_CONFIG_HOME: configDir("{}") }, label: "notices" });
  await c.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, session: { notices: {} } },
    clientInfo: { name: "harness-acpclient", version: "1.0.0" },
  });
  const s3 = (await c.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [{ name: "dies", command: "sh", args: ["-c", 'echo "dying with $TOKEN" >&2; exit 3'], env: [{ name: "TOKEN", value: secret }] }],
  })).sessionId;
  await c.waitForUpdate(s3, (u) => u.sessionUpdate === "notice", "a notice", 20000);
  const ns = c.updatesOf(s3).filter((u) => u.sessionUpdate === "notice");
  assert.equal(ns.length, 1, `one notice, got ${JSON.stringify(ns)}`);
  assert.equal(ns[0].severity, "warning");
  assert.match(ns[0].title, /^MCP server dies \(from the editor \(mcpServers\)\) not started/);
  assert.match(ns[0].description, /dying with \[redacted\]/);
  assert.equal(c.updatesOf(s3).filter((u) => u.sessionUpdate === "agent_message_chunk").length, 0, "no agent message besides the notice");
});
