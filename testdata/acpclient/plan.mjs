// plan: every todo/write reaches the editor as a plan update holding the
// complete list — content and status as written, priority "medium" — so
// the next write replaces it; the todo_write call itself shows as a tool
// call titled "Update todo list"; a write the tool rejects fails and sends
// no plan. Needs the todo plugin.
import { run, assert, script } from "./lib.mjs";

await run("plan", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("plan") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());
  const r = await a.prompt(sessionId, "please fix the bug");
  assert.equal(r.stopReason, "end_turn");

  const plans = r.updates.filter((u) => u.sessionUpdate === "plan").map((u) => u.entries);
  const entry = (content, status) => ({ content, priority: "medium", status });
  assert.deepEqual(plans, [
    [entry("Read the code", "in_progress"), entry("Fix the bug", "pending"), entry("Run the tests", "pending")],
    [entry("Read the code", "completed"), entry("Fix the bug", "in_progress")],
  ]);

  const calls = r.updates.filter((u) => u.sessionUpdate === "tool_call");
  // todo_write declares kind think (plugins/todo).
  assert.deepEqual(calls.map((c) => [c.toolCallId, c.title, c.kind, c.status]), [
    ["call_todo1", "Update todo list", "think", "pending"],
    ["call_todo2", "Update todo list", "think", "pending"],
    ["call_todo3", "Update todo list", "think", "pending"],
  ]);
  assert.deepEqual(calls[0].rawInput.todos[0], { content: "Read the code", status: "in_progress" });
  const final = (id) => r.updates.filter((u) => u.toolCallId === id).at(-1);
  for (const id of ["call_todo1", "call_todo2"]) {
    const u = final(id);
    assert.equal(u.status, "completed", `${id}: ${JSON.stringify(u)}`);
    assert.ok(u.content?.[0]?.content?.text, `${id}: no result text`);
  }
  assert.equal(final("call_todo3").status, "failed");
  // Each plan comes between its call's start and its result.
  const order = r.updates.map((u) => u.sessionUpdate === "plan" ? "plan" : u.toolCallId && `${u.toolCallId}:${u.status ?? ""}`).filter(Boolean);
  assert.deepEqual(order.slice(0, 4), ["call_todo1:pending", "call_todo1:in_progress", "plan", "call_todo1:completed"]);
});
