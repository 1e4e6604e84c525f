// nokey: with no API key for its provider (DeepSeek, the default), harness
// acp still answers initialize — with no auth methods: keys come from the
// environment only, so there is no login an editor could run — and
// session/list, and refuses session/new, session/load and session/resume
// with -32000 "Authentication required", one line naming the variable to
// set; the connection goes on, and the agent exits 0 at EOF.
import { run, assert, expectError, sharedStore } from "./lib.mjs";

await run("nokey", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "deepseek", DEEPSEEK_API_KEY: "", HARNESS_API_KEY: "" } });
  const init = await a.initialize();
  assert.deepEqual(init.authMethods ?? [], [], "auth methods");
  const cwd = process.cwd();
  const ghost = "20991231T235959-0badc0de";
  const calls = {
    "session/new": { cwd, mcpServers: [] },
    "session/load": { sessionId: ghost, cwd, mcpServers: [] },
    "session/resume": { sessionId: ghost, cwd },
  };
  for (const [method, params] of Object.entries(calls)) {
    const err = await expectError(a.request(method, params), -32000, "DEEPSEEK_API_KEY");
    assert.match(err.message, /^Authentication required: no API key for deepseek: set DEEPSEEK_API_KEY/, `${method}: ${err.message}`);
    assert.ok(!err.message.includes("\n"), `${method}: one line`);
  }
  // nothing was made: on a shared store, other scenarios' sessions are listed
  const listed = (await a.request("session/list", {})).sessions;
  assert.deepEqual(sharedStore ? listed.filter((s) => s.cwd === cwd) : listed, []);
  const exit = await a.close();
  assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}`);
  assert.ok(a.stderr.some((l) => l.includes("no API key")), "the log says why");
});
