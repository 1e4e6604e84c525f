// subagent: a subagent's progress streams into the parent's tool call as
// tool_call_update content while the child runs; its answer is the call's
// result; its todo list is its own (no plan update in the parent session).
import { run, assert, script } from "./lib.mjs";

await run("subagent", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("subagent") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());
  const r = await a.prompt(sessionId, "inspect it for me");
  assert.equal(r.stopReason, "end_turn");
  const call = r.updates.filter((u) => u.toolCallId === "call_sub");
  assert.equal(call[0].sessionUpdate, "tool_call");
  assert.equal(call[0].title, "Subagent: inspect");
  const progress = call.filter((u) => u.sessionUpdate === "tool_call_update" && u.content && !u.status)
    .map((u) => u.content.map((c) => c.content.text).join(""));
  assert.ok(progress.some((t) => t.includes("[inspect] → todo_write")), `child progress on the parent's call: ${JSON.stringify(progress)}`);
  const last = call.at(-1);
  assert.equal(last.status, "completed");
  assert.match(last.content[0].content.text, /Inspected: all good\./);
  assert.equal(r.updates.filter((u) => u.sessionUpdate === "plan").length, 0, "the child's todo list is not the parent's plan");
  assert.equal(r.updates.filter((u) => u.toolCallId === "child_todo").length, 0, "the child's calls are not the parent's");
});
