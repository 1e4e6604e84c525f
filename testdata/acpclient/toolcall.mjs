// toolcall: each tool call shows as tool_call (pending, a title, a kind,
// rawInput the parsed arguments), then tool_call_update in_progress, then
// tool_call_update failed or completed with the result as content and
// rawOutput; calls of a step in model order, before the next step's text.
import { run, assert, script } from "./lib.mjs";

await run("toolcall", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("toolcall") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());
  const r = await a.prompt(sessionId, "please frobnicate");
  assert.equal(r.stopReason, "end_turn");
  const strip = (u) => { const { messageId, ...rest } = u; return rest; };
  const failed = (id, name) => ({
    sessionUpdate: "tool_call_update", toolCallId: id, status: "failed",
    content: [{ type: "content", content: { type: "text", text: `Error: unknown tool "${name}"` } }],
    rawOutput: { content: `Error: unknown tool "${name}"`, isError: true },
  });
  const got = r.updates.map(strip);
  const textAt = (i) => got[i].sessionUpdate === "agent_message_chunk";
  assert.ok(textAt(0), "the step's text comes first");
  const calls = got.filter((u) => u.sessionUpdate.startsWith("tool_call"));
  assert.deepEqual(calls, [
    { sessionUpdate: "tool_call", toolCallId: "call_a", title: "frobnicate", kind: "other", status: "pending", rawInput: { level: 3 } },
    { sessionUpdate: "tool_call_update", toolCallId: "call_a", status: "in_progress" },
    failed("call_a", "frobnicate"),
    { sessionUpdate: "tool_call", toolCallId: "call_b", title: "frobnicate", kind: "other", status: "pending", rawInput: "{not json" },
    { sessionUpdate: "tool_call_update", toolCallId: "call_b", status: "in_progress" },
    failed("call_b", "frobnicate"),
  ]);
  const lastCall = got.findLastIndex((u) => u.sessionUpdate.startsWith("tool_call"));
  const after = got.slice(lastCall + 1).map((u) => u.content.text).join("");
  assert.equal(after, "Neither call worked.");
});
