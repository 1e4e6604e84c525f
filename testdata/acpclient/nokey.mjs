// nokey: with no API key for its provider (DeepSeek, the default), harness
// acp still answers initialize — with one auth method naming the variable
// (keys come from the environment only: authenticate with it says the key
// is missing) — and session/list, and refuses session/new, session/load and session/resume
// with -32000 "Authentication required", one line naming the variable to
// set; the connection goes on, and the agent exits 0 at EOF.
import { run, assert, expectError, sharedStore } from "./lib.mjs";

await run("nokey", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "deepseek", DEEPSEEK_API_KEY: "", HARNESS_API_KEY: "" } });
  const init = await a.initialize();
  assert.equal(init.authMethods.length, 1, `auth methods ${JSON.stringify(init.authMethods)}`);
  const m = init.authMethods[0];
  assert.equal(m.id, "env:DEEPSEEK_API_KEY");
  assert.equal(m.name, "DEEPSEEK_API_KEY");
  assert.equal(m._meta?.envVar, "DEEPSEEK_API_KEY");
  assert.match(m.description, /DEEPSEEK_API_KEY \(or HARNESS_API_KEY\).*restart the agent/);
  const auth = await expectError(a.request("authenticate", { methodId: m.id }), -32000, "DEEPSEEK_API_KEY is not set");
  assert.ok(!auth.message.includes("\n"), "authenticate: one line");
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
