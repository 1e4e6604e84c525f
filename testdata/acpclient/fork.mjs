// fork: initialize advertises sessionCapabilities.fork; session/fork (ACP's
// unstable method) answers a new session id with modes and config options,
// whose history is the source's: the fork's first turn sends the model the
// source's conversation. Later turns of either touch only its own log: the
// source's log is the same before and after the fork's turn, and the
// fork's log holds none of the source's later turn. The fork's header
// names its parent and the fork point.
import { run, assert, script, sessionLogText } from "./lib.mjs";

await run("fork", async (h) => {
  h.unknownMethodsOnPurpose.add("session/fork");
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("fork") } });
  const init = await a.initialize();
  assert.deepEqual(init.agentCapabilities.sessionCapabilities.fork, {}, "fork advertised");
  const cwd = process.cwd();
  const parent = await a.newSession(cwd);
  let r = await a.prompt(parent, "remember blue");
  assert.equal(r.stopReason, "end_turn");

  const logOf = (id) => sessionLogText(id);
  const forked = await a.request("session/fork", { sessionId: parent, cwd, mcpServers: [] });
  const { sessionId: child, modes, configOptions, ...rest } = forked;
  assert.deepEqual(rest, {}, "session/fork answers as session/new does");
  assert.ok(child && child !== parent, `a new session id: ${child}`);
  assert.equal(modes?.currentModeId, "ask");
  assert.equal(configOptions?.find((o) => o.id === "model")?.currentValue, "script");

  const header = JSON.parse(logOf(child).split("\n")[0]);
  const parentLines = logOf(parent).trimEnd().split("\n");
  assert.equal(header.parentSession, parent);
  assert.equal(header.forkSeq, parentLines.length - 1, "the fork point: all of the parent's events");

  // The parent goes on; the fork does not see it.
  r = await a.prompt(parent, "parent: change to green");
  assert.equal(r.stopReason, "end_turn");
  const parentBefore = logOf(parent);
  r = await a.prompt(child, "fork: which colour");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(r.updates.map((u) => u.content?.text ?? "").join(""), "The fork remembers blue.");
  assert.equal(logOf(parent), parentBefore, "the fork's turn did not touch the parent's log");
  const childLog = logOf(child);
  assert.ok(!childLog.includes("green"), "the fork holds none of the parent's later turn");
  const events = childLog.trimEnd().split("\n").slice(1).map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i), "contiguous seqs");
  assert.deepEqual(events.slice(0, header.forkSeq).map((e) => e.data), parentLines.slice(1, 1 + header.forkSeq).map((l) => JSON.parse(l).data));

  // An unknown source is -32002, as for session/load.
  await assert.rejects(a.request("session/fork", { sessionId: "20991231T235959-0badc0de", cwd, mcpServers: [] }), (e) => e.code === -32002);
});
