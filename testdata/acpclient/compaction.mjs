// compaction: long prompts in a window of 8192 tokens make the harness
// compact the history mid-session. A client that advertises the
// session.compaction capability sees compaction_update in_progress, the
// summary as compaction_summary_chunk updates, then compaction_update
// completed with the whole summary; a session/load replays each logged
// compaction as one compaction_update completed, and every prompt and the
// plan with it. A client without the capability sees the compaction as an
// agent message ("Compacting context (auto)… done: ~N → ~M tokens."), live
// and on replay alike. Every usage_update carries the fixed part of the
// window (system prompt and tools) as _meta.fixedTokens; in a window it
// takes more than half of, the editor is warned once. Needs the todo
// plugin.
import { run, assert, script, coalesce } from "./lib.mjs";

const caps = (compaction) => ({
  fs: { readTextFile: false, writeTextFile: false }, terminal: false,
  ...(compaction ? { session: { compaction: {} } } : {}),
});

async function init(a, compaction) {
  await a.request("initialize", { protocolVersion: 1, clientCapabilities: caps(compaction), clientInfo: { name: "harness-acpclient", version: "1.0.0" } });
}

const note = (i) => `Note ${i}. ` + `the context window is small and this note is long; `.repeat(30);

await run("compaction", async (h) => {
  const cwd = process.cwd();
  const env = { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("compaction"), HARNESS_CONTEXT_WINDOW: "8192" };
  for (const compaction of [true, false]) {
    const a = h.start({ label: `live-${compaction}`, env });
    await init(a, compaction);
    const sessionId = await a.newSession(cwd);
    const prompts = ["please plan", note(2), note(3), note(4), note(5), note(6), note(7), note(8)];
    const live = [];
    for (const p of prompts) {
      const r = await a.prompt(sessionId, p);
      assert.equal(r.stopReason, "end_turn");
      live.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: p } }, ...coalesce(r.updates));
    }
    await a.close();
    const kinds = live.map((u) => u.sessionUpdate);
    const usage = live.filter((u) => u.sessionUpdate === "usage_update");
    assert.ok(usage.length > 0 && usage.every((u) => u.size === 8192 && u._meta?.fixedTokens > 0 && u._meta.fixedTokens < 4096 && !u._meta.fixedWarning),
      `usage_update shows the fixed part of the window, under half, without a warning: ${JSON.stringify(usage)}`);
    if (compaction) {
      const ups = live.filter((u) => u.sessionUpdate.startsWith("compaction"));
      assert.ok(ups.length >= 3, `compaction updates: ${JSON.stringify(ups)}`);
      const first = ups[0].compactionId;
      const one = ups.filter((u) => u.compactionId === first);
      assert.equal(one[0].sessionUpdate, "compaction_update");
      assert.equal(one[0].status, "in_progress");
      const chunks = one.filter((u) => u.sessionUpdate === "compaction_summary_chunk").map((u) => u.content.text).join("");
      const done = one.at(-1);
      assert.equal(done.status, "completed");
      assert.equal(done.summary[0].text, chunks);
      assert.match(chunks, /^Summary: the user sent long notes/);
      assert.ok(!kinds.some((k, i) => k === "agent_message_chunk" && /Compacting context/.test(live[i].content.text)));
    } else {
      assert.ok(!kinds.some((k) => k.startsWith("compaction")), "compaction updates to a client that did not ask");
      assert.ok(live.some((u) => u.sessionUpdate === "agent_message_chunk" && /^Compacting context \(auto\)… done: ~\d+ → ~\d+ tokens\.\n\n$/.test(u.content.text)),
        `no compaction message: ${JSON.stringify(live.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text))}`);
    }

    const b = h.start({ label: `load-${compaction}`, env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("load-continue") } });
    await init(b, compaction);
    const r = await b.request("session/load", { sessionId, cwd, mcpServers: [] });
    const { configOptions, modes, ...rest } = r ?? {};
    assert.deepEqual(rest, {}, "session/load answers the config options and modes and nothing else");
    const replay = coalesce(b.updatesOf(sessionId)).map((u) => (u.sessionUpdate === "user_message_chunk" ? { sessionUpdate: u.sessionUpdate, content: u.content } : u));
    const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    assert.deepEqual(users, prompts, "session/load replays every prompt");
    assert.ok(replay.some((u) => u.sessionUpdate === "plan" && u.entries[0].content === "Keep the plan through compaction"), "the plan is replayed");
    if (compaction) {
      const completed = replay.filter((u) => u.sessionUpdate === "compaction_update");
      const liveDone = live.filter((u) => u.sessionUpdate === "compaction_update" && u.status === "completed");
      assert.deepEqual(completed, liveDone, "the replay's compactions are the live ones, completed");
    } else {
      // usage_update is live only: a load answers the current state instead.
      assert.deepEqual(replay, live.filter((u) => u.sessionUpdate !== "usage_update"), "the replay is the live transcript");
    }
    await b.close();
  }

  // A window the system prompt and tools take more than half of: the
  // usage says so in _meta.fixedWarning, and the editor is told once, as
  // a message of its own (this client takes no notices), naming the
  // biggest tools.
  const w = h.start({ label: "small-window", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("load-continue"), HARNESS_CONTEXT_WINDOW: "4096" } });
  await init(w, false);
  const small = await w.newSession(cwd);
  const r = await w.prompt(small, "and now?");
  assert.equal(r.stopReason, "end_turn");
  const all = coalesce(w.updatesOf(small));
  const warnings = all.filter((u) => u.sessionUpdate === "agent_message_chunk" && /^The system prompt and tools take ~\d+ of the 4096-token context window/.test(u.content.text));
  assert.equal(warnings.length, 1, `one warning message: ${JSON.stringify(all.filter((u) => u.sessionUpdate === "agent_message_chunk"))}`);
  assert.match(warnings[0].content.text, /biggest tools: \w+ ~\d+, \w+ ~\d+, \w+ ~\d+\./);
  const usage = all.filter((u) => u.sessionUpdate === "usage_update");
  assert.ok(usage.length > 0 && usage.every((u) => /^warning: the system prompt and tools take/.test(u._meta?.fixedWarning)), `usage_update carries the warning: ${JSON.stringify(usage)}`);
  await w.close();
});
