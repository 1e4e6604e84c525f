// fsedit: the fs plugin's read and edit under an editor. The editor offers
// fs.readTextFile / fs.writeTextFile and holds an unsaved buffer of
// main.go that differs from the disk: the read returns the buffer; the
// edit's tool_call has kind edit, the file as location and the diff of
// the buffer, and so does the permission question; on reject nothing is
// written anywhere; on allow the editor receives fs/write_text_file with
// the new text and the disk is untouched. session/load in a fresh process
// replays the same tool calls. With --disk the editor offers no file
// system: the same turns read and edit the disk.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, coalesce } from "./lib.mjs";

await run("fsedit", async (h) => {
  const disk = h.args.includes("--disk");
  const cwd = process.cwd();
  const path = join(cwd, "main.go");
  const onDisk = "package main\n\nvar x = 1\n";
  const unsaved = "package main\n\nvar x = 1 // unsaved\n";
  writeFileSync(path, onDisk);
  const before = disk ? onDisk : unsaved;
  const after = before.replace("var x = 1", "var x = 2");

  const a = h.start({ label: "live", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("fsedit") } });
  await a.initialize(disk ? {} : { fs: { readTextFile: true, writeTextFile: true } });
  if (!disk) a.buffers.set(path, unsaved);
  const sessionId = await a.newSession(cwd);
  const transcript = [];
  const call = (updates, id) => updates.filter((u) => u.toolCallId === id);

  // read: the buffer (or the disk), kind read, the file as location.
  let r = await a.prompt(sessionId, "read it");
  assert.equal(r.stopReason, "end_turn");
  transcript.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "read it" } }, ...coalesce(r.updates));
  let ups = call(r.updates, "call_read");
  assert.equal(ups[0].sessionUpdate, "tool_call");
  assert.equal(ups[0].kind, "read");
  assert.equal(ups[0].title, "Read main.go");
  assert.deepEqual(ups[0].locations, [{ path }]);
  let last = ups.at(-1);
  assert.equal(last.status, "completed");
  assert.equal(last.title, "Read main.go (lines 1–3)");
  assert.deepEqual(last.locations, [{ path, line: 1 }]);
  const shown = last.content.map((c) => c.content?.text ?? "").join("");
  if (disk) {
    assert.match(shown, /var x = 1\n/);
    assert.equal(a.fsReads.length, 0, "no fs/read_text_file without the capability");
  } else {
    assert.match(shown, /var x = 1 \/\/ unsaved/, "the read shows the unsaved buffer");
    assert.ok(a.fsReads.some((q) => q.path === path && q.sessionId === sessionId), "fs/read_text_file of main.go");
  }

  // edit, rejected: the diff in the tool_call and in the question; nothing written.
  a.permissionAnswer = () => "reject_once";
  r = await a.prompt(sessionId, "edit it");
  transcript.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "edit it" } }, ...coalesce(r.updates));
  const diff = { type: "diff", path, oldText: before, newText: after };
  ups = call(r.updates, "call_edit1");
  assert.equal(ups[0].sessionUpdate, "tool_call");
  assert.equal(ups[0].kind, "edit");
  assert.equal(ups[0].title, "Edit main.go");
  assert.deepEqual(ups[0].locations, [{ path, line: 3 }]);
  assert.deepEqual(ups[0].content, [diff]);
  assert.equal(a.permissionRequests.length, 1);
  const q = a.permissionRequests[0].toolCall;
  assert.equal(q.toolCallId, "call_edit1");
  assert.equal(q.title, "Edit main.go");
  assert.equal(q.kind, "edit");
  assert.deepEqual(q.rawInput, { file_path: "main.go", old_string: "var x = 1", new_string: "var x = 2" });
  assert.deepEqual(q.content, [diff]);
  assert.deepEqual(q.locations, [{ path, line: 3 }]);
  last = ups.at(-1);
  assert.equal(last.status, "failed");
  assert.ok(!last.content.some((c) => c.type === "diff"), "a rejected edit shows no diff as done");
  assert.equal(a.fsWrites.length, 0, "nothing written through the editor");
  assert.equal(readFileSync(path, "utf8"), onDisk, "nothing written on disk");
  if (!disk) assert.equal(a.buffers.get(path), unsaved);

  // edit, allowed: written through the editor (or on disk).
  a.permissionAnswer = () => "allow_once";
  r = await a.prompt(sessionId, "edit it again");
  transcript.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "edit it again" } }, ...coalesce(r.updates));
  ups = call(r.updates, "call_edit2");
  assert.deepEqual(ups[0].content, [diff]);
  last = ups.at(-1);
  assert.equal(last.status, "completed");
  assert.deepEqual(last.content[0], diff, "the applied diff stays on the call");
  if (disk) {
    assert.equal(a.fsWrites.length, 0);
    assert.equal(readFileSync(path, "utf8"), after);
  } else {
    assert.deepEqual(a.fsWrites, [{ sessionId, path, content: after }]);
    assert.equal(readFileSync(path, "utf8"), onDisk, "the editor, not harness, saves the buffer");
    // The write went out after the question was answered.
    const askedAt = a.wire.findLast((w) => w.dir === "out" && w.msg?.method === "session/request_permission").n;
    const wroteAt = a.wire.find((w) => w.dir === "out" && w.msg?.method === "fs/write_text_file").n;
    assert.ok(askedAt < wroteAt, "fs/write_text_file after session/request_permission");
  }
  await a.close();

  // session/load replays the same tool calls: kinds, titles, locations, diffs.
  const b = h.start({ label: "reload", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none") } });
  await b.initialize();
  await b.request("session/load", { sessionId, cwd, mcpServers: [] });
  const replay = coalesce(b.updatesOf(sessionId)).map((u) => (u.sessionUpdate === "user_message_chunk" ? { sessionUpdate: u.sessionUpdate, content: u.content } : u));
  const tools = (us) => us.filter((u) => u.sessionUpdate.startsWith("tool_call"));
  assert.deepEqual(tools(replay), tools(transcript));
  assert.deepEqual([...new Set(tools(replay).map((u) => u.toolCallId))], ["call_read", "call_edit1", "call_edit2"], "three calls replayed");
  // Each call opens pending; only an approved one goes in_progress.
  const statuses = (id) => tools(replay).filter((u) => u.toolCallId === id && u.status).map((u) => u.status);
  assert.deepEqual(statuses("call_read"), ["pending", "in_progress", "completed"]);
  assert.deepEqual(statuses("call_edit1"), ["pending", "failed"], "a refused call never ran");
  assert.deepEqual(statuses("call_edit2"), ["pending", "in_progress", "completed"]);
});
