// mcp: an MCP server given in session/new (stdio: command, args, env) makes
// its tools available. initialize advertises the transports harness takes;
// the model calls mcp__test__echo, the editor is asked for permission, sees
// a tool_call titled "test: echo" (server: tool) and its completion with
// the server's answer; mcp__test__peek, which its server annotates
// readOnlyHint and titles "Peek at a text", is a read: not asked about in
// ask mode, shown with kind read and the server's title; the server got
// the env the editor gave it, and that value never appears in anything
// harness writes (stdout, stderr). The MCP server is
// host/mcpclient/testdata/mcptest, built by the Go test ($MCPTEST_BIN).
import { run, assert, script } from "./lib.mjs";

const secret = "editor-given-secret-31337";

await run("mcp", async (h) => {
  const bin = process.env.MCPTEST_BIN;
  assert.ok(bin, "MCPTEST_BIN names the test MCP server");
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("mcp") } });
  const init = await a.initialize();
  assert.deepEqual(init.agentCapabilities.mcpCapabilities, { http: true, sse: true });
  const { sessionId } = await a.request("session/new", {
    cwd: process.cwd(),
    mcpServers: [{ name: "test", command: bin, args: ["-tag", "acp-scenario"], env: [{ name: "MCPTEST_TOKEN", value: secret }] }],
  });
  a.permissionAnswer = () => "allow_once";
  const r = await a.prompt(sessionId, "use the MCP server");
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(a.permissionRequests.map((p) => p.toolCall.toolCallId), ["call_echo", "call_env"], "the MCP calls without readOnlyHint were asked about");

  const echo = r.updates.filter((u) => u.toolCallId === "call_echo");
  assert.equal(echo[0].sessionUpdate, "tool_call");
  assert.equal(echo[0].title, "test: echo");
  assert.deepEqual(echo[0].rawInput, { text: "from the editor" });
  const done = echo.at(-1);
  assert.equal(done.status, "completed");
  assert.equal(done.content[0].content.text, "echo: from the editor");
  const peek = r.updates.filter((u) => u.toolCallId === "call_peek");
  assert.equal(peek[0].sessionUpdate, "tool_call");
  assert.equal(peek[0].title, "test: Peek at a text");
  assert.equal(peek[0].kind, "read");
  assert.equal(peek.at(-1).status, "completed");
  assert.equal(peek.at(-1).content[0].content.text, "peek: a look");
  const env = r.updates.filter((u) => u.toolCallId === "call_env").at(-1);
  assert.equal(env.content[0].content.text, `MCPTEST_TOKEN is set (${secret.length} bytes)`);

  for (const rec of a.wire.filter((w) => w.dir === "out")) {
    assert.ok(!rec.line.includes(secret), `harness wrote the server's secret on stdout: ${rec.line}`);
  }
  for (const line of a.stderr) {
    assert.ok(!line.includes(secret), `harness logged the server's secret: ${line}`);
  }
  assert.ok(a.stderr.some((l) => l.includes("MCP server connected")), "the log says the server connected");
});
