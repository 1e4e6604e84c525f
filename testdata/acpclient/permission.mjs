// permission: a bash call asks the editor (session/request_permission) after
// its tool_call update; a rejection becomes a failed call the model reads;
// "always allow" holds, for the command prefix the options named, for the
// rest of the session — across prompts, and after session/load in a fresh
// process, because it is in the log.
import { run, assert, script } from "./lib.mjs";

await run("permission", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("permission") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());

  a.permissionAnswer = () => "reject_once";
  let r = await a.prompt(sessionId, "first");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(a.permissionRequests.length, 1, "asked about the first call");
  const req = a.permissionRequests[0];
  assert.equal(req.sessionId, sessionId);
  assert.equal(req.toolCall.toolCallId, "call_one");
  assert.deepEqual(req.options.map((o) => o.kind).sort(), ["allow_always", "allow_once", "reject_always", "reject_once"]);
  // "Always" names what it covers: the command and its first argument.
  assert.equal(req.options.find((o) => o.kind === "allow_always").name, "Always allow `echo one …`");
  assert.equal(req.options.find((o) => o.kind === "reject_always").name, "Always reject `echo one …`");
  // The tool_call went out before the question.
  const askedAt = a.wire.find((w) => w.dir === "out" && w.msg?.method === "session/request_permission").n;
  const announcedAt = a.wire.find((w) => w.dir === "out" && w.msg?.params?.update?.sessionUpdate === "tool_call" && w.msg.params.update.toolCallId === "call_one").n;
  assert.ok(announcedAt < askedAt, "tool_call before session/request_permission");
  // Pending while asked; a rejected call never shows in_progress.
  const statuses = (id) => r.updates.filter((u) => u.toolCallId === id && u.status).map((u) => u.status);
  assert.deepEqual(statuses("call_one"), ["pending", "failed"]);
  const one = r.updates.filter((u) => u.toolCallId === "call_one").at(-1);
  assert.equal(one.status, "failed");
  assert.match(one.content[0].content.text, /permission denied by user/);

  a.permissionAnswer = () => "allow_always";
  r = await a.prompt(sessionId, "second");
  assert.equal(a.permissionRequests.length, 2, "asked about the second call");
  // pending until the answer came back, then in_progress.
  assert.deepEqual(statuses("call_two"), ["pending", "in_progress", "completed"]);
  const answeredAt = a.wire.findLast((w) => w.dir === "in" && w.msg?.result?.outcome).n;
  const runningAt = a.wire.find((w) => w.dir === "out" && w.msg?.params?.update?.toolCallId === "call_two" && w.msg.params.update.status === "in_progress").n;
  assert.ok(answeredAt < runningAt, "in_progress after the permission answer");
  assert.equal(r.updates.filter((u) => u.toolCallId === "call_two").at(-1).status, "completed");

  a.permissionAnswer = () => { throw new Error("asked again after allow_always"); };
  r = await a.prompt(sessionId, "third");
  assert.equal(a.permissionRequests.length, 2, "not asked after allow_always");
  assert.equal(r.updates.filter((u) => u.toolCallId === "call_three").at(-1).status, "completed");
  await a.close();

  const b = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("permission-load") } });
  await b.initialize();
  await b.request("session/load", { sessionId, cwd: process.cwd(), mcpServers: [] });
  b.permissionAnswer = () => { throw new Error("asked again after session/load"); };
  r = await b.prompt(sessionId, "fourth");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(b.permissionRequests.length, 0, "not asked after session/load");
  assert.equal(r.updates.filter((u) => u.toolCallId === "call_four").at(-1).status, "completed");
});
