// cancel: session/cancel while the model streams (or, with --tool, while a
// bash tool call runs) makes the pending prompt answer stopReason
// "cancelled" — never an error — promptly, with the turn's last updates
// before it; the log records the turn as cancelled and the session takes
// the next prompt.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, sleep, sessionLog } from "./lib.mjs";

await run("cancel", async (h) => {
  const tool = h.args.includes("--tool");
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script(tool ? "cancel-tool" : "cancel") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());
  const pending = a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "take your time" }] });
  if (tool) {
    await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress", "running bash call");
    await sleep(100); // let the command start
  } else {
    await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk", "first text chunk");
  }
  const t0 = performance.now();
  await a.notify("session/cancel", { sessionId });
  const r = await pending;
  const ms = performance.now() - t0;
  assert.equal(r.stopReason, "cancelled");
  assert.ok(ms < 2000, `the prompt answered ${ms.toFixed(0)} ms after the cancel`);
  if (tool) {
    const last = a.updatesOf(sessionId).filter((u) => u.toolCallId === "call_sleep").at(-1);
    assert.equal(last.status, "failed", "the cancelled call's last update");
  }

  const events = sessionLog(sessionId);
  const end = events.findLast((e) => e.type === "turn/end");
  assert.equal(end.data.reason, "cancelled");

  const next = await a.prompt(sessionId, "are you there?");
  assert.equal(next.stopReason, "end_turn");
  assert.equal(next.updates.map((u) => u.content.text).join(""), "Back again.");
});
