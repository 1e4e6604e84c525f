// handshake: initialize advertises exactly what harness serves; session/new
// creates a session log in the state directory.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, sharedStore, sessionLog } from "./lib.mjs";

await run("handshake", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none") } });
  const init = await a.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.deepEqual(init.authMethods, []);
  assert.equal(init.agentInfo.name, "harness");
  assert.ok(init.agentInfo.version, "agentInfo.version is empty");
  const caps = init.agentCapabilities;
  assert.equal(caps.loadSession, true);
  // Omitted means false: no images, no audio; embedded context yes.
  assert.deepEqual(caps.promptCapabilities, { embeddedContext: true });
  // MCP servers: stdio (always), streamable http and sse.
  assert.deepEqual(caps.mcpCapabilities, { http: true, sse: true });
  assert.deepEqual(Object.keys(caps.sessionCapabilities).sort(), ["additionalDirectories", "close", "fork", "list", "resume"]);

  const cwd = process.cwd();
  const sessionId = await a.newSession(cwd);
  assert.match(sessionId, /^[A-Za-z0-9][A-Za-z0-9._-]*$/);
  if (sharedStore) {
    assert.equal(sessionLog(sessionId)[0].id, sessionId, "the store holds the session's log");
  } else {
    const file = join(process.env.HARNESS_STATE_DIR, "sessions", `${sessionId}.jsonl`);
    assert.ok(existsSync(file), `no session log at ${file}`);
  }

  const { ms, code } = await a.close();
  assert.equal(code, 0, "exit status after stdin closed");
  assert.ok(ms < 1000, `exited ${ms.toFixed(0)} ms after stdin closed`);
});
