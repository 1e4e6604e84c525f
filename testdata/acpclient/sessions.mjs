// sessions: session/list lists the sessions of the cwd asked (all without
// one), titled by their first prompt, with an ISO 8601 updatedAt;
// session/close ends a session (later prompts get -32002); session/resume
// reopens one without replay, in the same process or a fresh one.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, assert, script, expectError } from "./lib.mjs";

await run("sessions", async (h) => {
  const here = realpathSync(mkdtempSync(join(tmpdir(), "acp-here-")));
  const there = realpathSync(mkdtempSync(join(tmpdir(), "acp-there-")));
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("sessions") } });
  await a.initialize();
  const s1 = await a.newSession(here);
  const s2 = await a.newSession(there);
  await a.prompt(s1, "the first session");
  await a.prompt(s2, "the second session");

  const { sessions } = await a.request("session/list", { cwd: here });
  assert.deepEqual(sessions.map((s) => [s.sessionId, s.cwd, s.title]), [[s1, here, "the first session"]]);
  assert.ok(!Number.isNaN(Date.parse(sessions[0].updatedAt)), `updatedAt ${sessions[0].updatedAt}`);
  const all = (await a.request("session/list", {})).sessions.map((s) => s.sessionId);
  assert.ok(all.includes(s1) && all.includes(s2), `list without cwd: ${all}`);

  assert.deepEqual(await a.request("session/close", { sessionId: s1 }), {});
  await expectError(a.request("session/prompt", { sessionId: s1, prompt: [{ type: "text", text: "hi" }] }), -32002);
  const from = a.updates.length;
  await a.request("session/resume", { sessionId: s1, cwd: here });
  assert.equal(a.updates.length, from, "resume replayed updates");
  assert.equal((await a.prompt(s1, "after resume")).stopReason, "end_turn");
  await a.close();

  const b = h.start({ label: "fresh", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("sessions-resume") } });
  await b.initialize();
  await b.request("session/resume", { sessionId: s2, cwd: there });
  assert.equal(b.updates.length, 0, "resume replayed updates");
  const r = await b.prompt(s2, "a fresh resume");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(r.updates.map((u) => u.content.text).join(""), "Still here.");
});
