// eof: when the editor closes stdin, harness exits 0 within a second — idle,
// and in the middle of a turn, which it cancels and logs as ended first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, sessionLog } from "./lib.mjs";

await run("eof", async (h) => {
  const env = { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("eof") };
  const idle = h.start({ label: "idle", env });
  await idle.initialize();
  await idle.newSession(process.cwd());
  let exit = await idle.close();
  assert.equal(exit.code, 0);
  assert.ok(exit.ms < 1000, `idle: exited ${exit.ms.toFixed(0)} ms after stdin closed`);

  const busy = h.start({ label: "busy", env });
  await busy.initialize();
  const sessionId = await busy.newSession(process.cwd());
  const pending = busy.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "a long task" }] });
  pending.catch(() => {}); // the connection ends under it
  await busy.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk", "first text chunk");
  exit = await busy.close();
  assert.equal(exit.code, 0);
  assert.ok(exit.ms < 1000, `busy: exited ${exit.ms.toFixed(0)} ms after stdin closed`);
  const events = sessionLog(sessionId);
  const last = events.at(-1);
  assert.equal(last.type, "turn/end", "the log ends with the turn's end");
  assert.equal(last.data.reason, "cancelled");
  assert.ok(events.some((e) => e.type === "assistant/message" && e.data.text === "Thinking about it"), "the streamed text is logged");
});
