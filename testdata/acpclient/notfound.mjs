// notfound: a session id harness does not know is answered -32002
// "Resource not found" with data.sessionId, for load, resume, prompt and
// close alike; the connection goes on.
import { run, assert, script, expectError } from "./lib.mjs";

await run("notfound", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none") } });
  await a.initialize();
  const cwd = process.cwd();
  const ghost = "20991231T235959-0badc0de";
  const calls = {
    "session/load": { sessionId: ghost, cwd, mcpServers: [] },
    "session/resume": { sessionId: ghost, cwd },
    "session/prompt": { sessionId: ghost, prompt: [{ type: "text", text: "hello?" }] },
  };
  for (const [method, params] of Object.entries(calls)) {
    const err = await expectError(a.request(method, params), -32002, "Resource not found");
    assert.equal(err.data?.sessionId, ghost, `${method}: data.sessionId`);
  }
  assert.deepEqual(await a.request("session/close", { sessionId: ghost }), {});
  const closed = a.wireResponse("session/close");
  assert.equal(closed?.error?.code, -32002, `session/close answered ${JSON.stringify(closed)}`);
  assert.equal(closed.error.data.sessionId, ghost);
  // Not even a valid id.
  await expectError(a.request("session/load", { sessionId: "../../etc/passwd", cwd, mcpServers: [] }), -32002);
  // A notification for it is ignored.
  await a.notify("session/cancel", { sessionId: ghost });
  assert.ok(await a.newSession(cwd));
});
