// mcp: an MCP server given in session/new (stdio: command, args, env) makes
// its tools available. initialize advertises the transports harness takes;
// the model calls mcp__test__echo, the editor is asked for permission, sees
// a tool_call titled with the tool and its completion with the server's
// answer; the server got the env the editor gave it, and that value never
// appears in anything harness writes (stdout, stderr). The MCP server is
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
  assert.deepEqual(a.permissionRequests.map((p) => p.toolCall.toolCallId), ["call_echo", "call_env"], "both MCP calls were asked about");

  const echo = r.updates.filter((u) => u.toolCallId === "call_echo");
  assert.equal(echo[0].sessionUpdate, "tool_call");
  assert.match(echo[0].title, /mcp__test__echo/);
  assert.deepEqual(echo[0].rawInput, { text: "from the editor" });
  const done = echo.at(-1);
  assert.equal(done.status, "completed");
  assert.equal(done.content[0].content.text, "echo: from the editor");
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
