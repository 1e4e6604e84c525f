// stream: a turn's text and reasoning arrive live as agent_message_chunk and
// agent_thought_chunk, several chunks each, all before the prompt's
// response; prompts may carry resource links and embedded resources.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, sleep, text, sessionLog, sharedStore } from "./lib.mjs";

await run("stream", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("stream") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());

  const r = await a.prompt(sessionId, "please say hello");
  assert.equal(r.stopReason, "end_turn");
  const kinds = r.updates.map((u) => u.sessionUpdate);
  assert.ok(kinds.every((k) => k === "agent_thought_chunk" || k === "agent_message_chunk"), `unexpected updates ${kinds}`);
  const firstText = kinds.indexOf("agent_message_chunk");
  assert.ok(firstText > 1 && kinds.lastIndexOf("agent_thought_chunk") < firstText, `thoughts must come first: ${kinds}`);
  assert.ok(kinds.length - firstText > 1, "the answer came in one chunk: not streamed");
  assert.equal(text(r.updates, "agent_thought_chunk"), "The user greets me. I should greet back briefly.");
  assert.equal(text(r.updates, "agent_message_chunk"), "Hello! I am harness, streaming this answer word by word.");
  for (const kind of ["agent_thought_chunk", "agent_message_chunk"]) {
    const ids = new Set(r.updates.filter((u) => u.sessionUpdate === kind).map((u) => u.messageId));
    assert.equal(ids.size, 1, `${kind}: one messageId per message, got ${[...ids]}`);
  }
  // Every update of the turn came before the response.
  await sleep(100);
  assert.equal(a.updatesOf(sessionId).length, r.updates.length, "updates arrived after the prompt's response");

  const r2 = await a.prompt(sessionId, [
    { type: "text", text: "what does it say?" },
    { type: "resource_link", uri: "file:///tmp/notes.txt", name: "notes.txt", mimeType: "text/plain" },
    { type: "resource", resource: { uri: "file:///tmp/notes.txt", text: "remember the milk\n", mimeType: "text/plain" } },
  ]);
  assert.equal(r2.stopReason, "end_turn");
  assert.equal(text(r2.updates, "agent_message_chunk"), "I read notes.txt.");

  // The log holds the user message as the blocks the client sent.
  const events = sessionLog(sessionId);
  const users = events.filter((e) => e.type === "user/message").map((e) => e.data.content);
  assert.deepEqual(users[1], [
    { type: "text", text: "what does it say?" },
    { type: "resource_link", uri: "file:///tmp/notes.txt", name: "notes.txt", mimeType: "text/plain" },
    { type: "resource", uri: "file:///tmp/notes.txt", text: "remember the milk\n", mimeType: "text/plain" },
  ]);
  if (!sharedStore) assert.ok(readdirSync(join(process.env.HARNESS_STATE_DIR, "sessions")).length >= 1);
});
