// mirror: a session another harness is writing is loaded read-only and
// followed live. Harness A runs a turn of two steps; once its first step
// is logged, harness B (another process, the same store) loads the
// session: the load answers at once (no "open in another process"
// refusal), replays what is logged, then delivers A's second step as A
// logs it, before A's turn ends; a prompt on B is refused in one line
// saying it is read-only and who holds the session.
import { run, assert, script, expectError } from "./lib.mjs";

await run("mirror", async (h) => {
  const cwd = process.cwd();
  const env = { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("mirror") };
  const a = h.start({ label: "writer", env });
  await a.initialize();
  const sessionId = await a.newSession(cwd);
  const turn = a.prompt(sessionId, "follow me");
  await a.waitForUpdate(sessionId, (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "c1" && u.status === "failed",
    "the first step's failed call", 30000);

  const b = h.start({ label: "follower", env });
  await b.initialize();
  await b.request("session/load", { sessionId, cwd, mcpServers: [] });
  const replayed = b.updatesOf(sessionId);
  assert.ok(replayed.some((u) => u.sessionUpdate === "user_message_chunk" && u.content.text === "follow me"), "the replay has the prompt");
  assert.ok(replayed.some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "c1"), "the replay has the first step's call");
  assert.ok(!replayed.some((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.includes("word29")), "the second step is not logged yet");

  // A's second step reaches B as A logs it, while A's turn runs.
  await b.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.includes("word29"),
    "the writer's second step on the follower", 30000);
  const r = await turn;
  assert.equal(r.stopReason, "end_turn");

  const err = await expectError(b.prompt(sessionId, "me too"), -32603);
  assert.match(err.message, /read-only/, `the refusal says read-only: ${err.message}`);
  assert.ok(!err.message.includes("\n"), "one line");
  await a.close();
  await b.close();
});
