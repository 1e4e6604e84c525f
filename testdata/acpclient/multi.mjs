// multi: several sessions on one connection, each with its own turn: B
// runs whole turns while A's turn is in progress; cancelling A leaves B
// alone; no update of one session is sent for the other.
import { run, assert, script } from "./lib.mjs";

await run("multi", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("multi") } });
  await a.initialize();
  const cwd = process.cwd();
  const [sa, sb] = [await a.newSession(cwd), await a.newSession(cwd)];
  assert.notEqual(sa, sb);
  const pendingA = a.request("session/prompt", { sessionId: sa, prompt: [{ type: "text", text: "a task for A" }] });
  await a.waitForUpdate(sa, (u) => u.sessionUpdate === "agent_message_chunk", "A's first chunk");

  const rb = await a.prompt(sb, "a task for B");
  assert.equal(rb.stopReason, "end_turn");
  assert.equal(rb.updates.map((u) => u.content.text).join(""), "B answers first.");
  await a.notify("session/cancel", { sessionId: sa });
  assert.equal((await pendingA).stopReason, "cancelled");
  const rb2 = await a.prompt(sb, "B once more");
  assert.equal(rb2.stopReason, "end_turn");

  assert.equal(a.updatesOf(sa).map((u) => u.content?.text).join(""), "A is slow");
  assert.equal(a.updatesOf(sb).map((u) => u.content?.text).join(""), "B answers first.B again.");
});
