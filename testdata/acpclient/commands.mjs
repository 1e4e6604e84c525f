// commands: session/new and session/load list the host's slash commands
// (available_commands_update: compact, init). A /compact prompt compacts
// the history — a context/compact of reason "command" in the log, no
// user/message with "/compact" — and is followed by a usage_update showing
// fewer tokens used; an unknown /word reaches the model as typed; /init
// runs a turn on the documented AGENTS.md prompt. Titles: the first
// prompt, shortened, comes as session_info_update once, is what
// session/list returns, and is sent again after a fresh process's
// session/load replay.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, sleep, sessionLog } from "./lib.mjs";

const note = (name) => `${name} note. ` + "a long note to make the history worth compacting; ".repeat(40);

await run("commands", async (h) => {
  const cwd = process.cwd();
  const env = { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("commands"), HARNESS_CONTEXT_WINDOW: "64000" };
  const a = h.start({ label: "live", env });
  await a.initialize();
  const sessionId = await a.newSession(cwd);
  for (let i = 0; i < 500 && a.metaOf(sessionId).length === 0; i++) await sleep(10);
  const listed = a.metaOf(sessionId, "available_commands_update");
  assert.equal(listed.length, 1, "one available_commands_update after session/new");
  const names = listed[0].availableCommands.map((c) => c.name);
  assert.ok(names.includes("compact") && names.includes("init"), `commands: ${names}`);
  // it follows session/new's response: the editor knows the session by then
  const resp = a.wire.findIndex((r) => r.dir === "out" && r.msg?.result?.sessionId === sessionId);
  const upd = a.wire.findIndex((r) => r.dir === "out" && r.msg?.params?.update?.sessionUpdate === "available_commands_update");
  assert.ok(resp >= 0 && upd > resp, `available_commands_update (line ${upd}) after session/new's response (line ${resp})`);

  for (const p of [note("First"), note("Second")]) {
    assert.equal((await a.prompt(sessionId, p)).stopReason, "end_turn");
  }
  // titles: the first prompt, on one line, cut to 100 characters
  const title = note("First").split(/\s+/).join(" ").trim().slice(0, 99).trimEnd() + "…";
  const infos = a.metaOf(sessionId, "session_info_update");
  assert.equal(infos.length, 1, `one session_info_update, after the first prompt: ${JSON.stringify(infos)}`);
  assert.equal(infos[0].title, title);
  assert.ok(!Number.isNaN(Date.parse(infos[0].updatedAt)), `updatedAt ${infos[0].updatedAt}`);
  const listed2 = await a.request("session/list", { cwd });
  assert.equal(listed2.sessions.find((s) => s.sessionId === sessionId)?.title, title, "session/list returns the title");
  const usedBefore = a.updatesOf(sessionId).filter((u) => u.sessionUpdate === "usage_update").at(-1)?.used;
  assert.equal(usedBefore, 24050, "the usage the provider reported for the last step");

  const c = await a.prompt(sessionId, "/compact");
  assert.equal(c.stopReason, "end_turn");
  const after = c.updates.filter((u) => u.sessionUpdate === "usage_update").at(-1);
  assert.ok(after, `no usage_update after /compact: ${JSON.stringify(c.updates)}`);
  assert.ok(after.used > 0 && after.used < usedBefore, `used after /compact ${after.used}, before ${usedBefore}`);
  assert.equal(after.size, 64000);

  const log = () => sessionLog(sessionId);
  const compacts = log().filter((e) => e.type === "context/compact");
  assert.equal(compacts.length, 1, "one context/compact");
  assert.equal(compacts[0].data.reason, "command");
  assert.equal(compacts[0].data.tokensAfter, after.used, "usage_update's used is the compacted history's size");
  const userTexts = () => log().filter((e) => e.type === "user/message").map((e) => e.data.content.map((b) => b.text ?? "").join(""));
  assert.ok(!userTexts().some((t) => t.includes("/compact")), `a user/message holds /compact: ${userTexts()}`);

  // an unknown command is text for the model, as typed
  assert.equal((await a.prompt(sessionId, "/frobnicate the widgets")).stopReason, "end_turn");
  assert.ok(userTexts().includes("/frobnicate the widgets"));
  // /init: the documented prompt, with the user's extra words
  assert.equal((await a.prompt(sessionId, "/init keep it short")).stopReason, "end_turn");
  assert.match(userTexts().at(-1), /^Write an AGENTS\.md file/);
  await a.close();

  // session/load lists them too, after the replay
  const b = h.start({ label: "load", env });
  await b.initialize();
  await b.request("session/load", { sessionId, cwd, mcpServers: [] });
  assert.equal(b.metaOf(sessionId, "available_commands_update").length, 1, "available_commands_update on session/load");
  assert.deepEqual(b.metaOf(sessionId, "session_info_update").map((u) => u.title), [title], "the title survives the reload");
  const listed3 = await b.request("session/list", {});
  assert.equal(listed3.sessions.find((s) => s.sessionId === sessionId)?.title, title);
  await b.close();
});
