// load: turns run in one process; a fresh process loads the session and
// replays it. The replay is the live transcript — user messages added,
// chunks of one message joined — with the same titles, kinds, statuses,
// plans and message ids; it arrives before the load's response; the loaded
// session then takes another turn. With --tools the turns call todo_write
// (the plan included), which needs the todo plugin.
import { run, assert, script, sleep, coalesce } from "./lib.mjs";

await run("load", async (h) => {
  const tools = h.args.includes("--tools");
  const cwd = process.cwd();
  const prompts = tools ? ["please fix the bug", "now finish"] : ["hello", "please look up acp"];

  const a = h.start({ label: "live", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script(tools ? "load-tools" : "load") } });
  await a.initialize();
  const sessionId = await a.newSession(cwd);
  const expected = [];
  for (const p of prompts) {
    const r = await a.prompt(sessionId, p);
    assert.equal(r.stopReason, "end_turn");
    expected.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: p } }, ...coalesce(r.updates));
  }
  const kinds = new Set(expected.map((u) => u.sessionUpdate));
  for (const k of ["user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update", ...(tools ? ["plan"] : ["agent_thought_chunk"])]) {
    assert.ok(kinds.has(k), `the live transcript has no ${k}`);
  }
  await a.close();

  const b = h.start({ label: "reload", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("load-continue") } });
  await b.initialize();
  const r = await b.request("session/load", { sessionId, cwd, mcpServers: [] });
  const { configOptions, modes, ...rest } = r ?? {};
  assert.deepEqual(rest, {}, "session/load answers the session's config options and modes and nothing else");
  assert.equal(configOptions?.find((o) => o.id === "model")?.currentValue, "script");
  assert.equal(modes?.currentModeId, "ask");
  const replayed = b.updatesOf(sessionId);
  const replay = coalesce(replayed).map((u) => (u.sessionUpdate === "user_message_chunk" ? { sessionUpdate: u.sessionUpdate, content: u.content } : u));
  assert.deepEqual(replay, expected);
  await sleep(100);
  assert.equal(b.updatesOf(sessionId).length, replayed.length, "updates after the load's response");

  const next = await b.prompt(sessionId, "and now?");
  assert.equal(next.stopReason, "end_turn");
  assert.equal(next.updates.map((u) => u.content.text).join(""), "Continuing where we left off.");
});
