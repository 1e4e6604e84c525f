// modes: harness's permission modes as ACP session modes. session/new
// answers the five modes (ask current); set_mode to read-only sends
// current_mode_update; in read-only an fs edit and a bash call get error
// results without a question and nothing changes on disk; an unknown mode
// is -32602; set_mode to accept-edits lets the next edit run without a
// question while bash still asks; a fresh process's session/load reports
// the mode that was set.
import { readFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, expectError } from "./lib.mjs";

await run("modes", async (h) => {
  const cwd = process.cwd();
  const notes = join(cwd, "notes.txt");
  writeFileSync(notes, "first line\nold text\n");
  const made = join(cwd, "made-by-bash");

  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("modes") } });
  await a.initialize();
  const created = await a.request("session/new", { cwd, mcpServers: [] });
  const sessionId = created.sessionId;
  assert.equal(created.modes.currentModeId, "ask");
  assert.deepEqual(created.modes.availableModes.map((m) => m.id), ["read-only", "ask", "accept-edits", "auto", "allow-all"]);
  for (const m of created.modes.availableModes) {
    assert.ok(m.name && m.description, `mode ${m.id} has a name and a description`);
  }

  const switchTo = async (modeId) => {
    const from = a.updates.length;
    await a.request("session/set_mode", { sessionId, modeId });
    const ups = a.updatesOf(sessionId, from);
    assert.deepEqual(ups, [{ sessionUpdate: "current_mode_update", currentModeId: modeId }], `current_mode_update to ${modeId} before the answer`);
  };
  await switchTo("read-only");
  await expectError(a.request("session/set_mode", { sessionId, modeId: "yolo" }), -32602, "unknown mode");

  a.permissionAnswer = (p) => { throw new Error(`asked in read-only mode about ${p.toolCall.toolCallId}`); };
  let r = await a.prompt(sessionId, "first");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(a.permissionRequests.length, 0, "no question in read-only mode");
  const last = (id) => r.updates.filter((u) => u.toolCallId === id).at(-1);
  assert.equal(last("read_one").status, "completed", "a read runs in read-only mode");
  for (const id of ["edit_ro", "bash_ro"]) {
    assert.equal(last(id).status, "failed", `${id} refused`);
    assert.match(last(id).rawOutput.content, /read-only mode/);
    assert.match(last(id).rawOutput.content, /--mode/);
  }
  assert.equal(readFileSync(notes, "utf8"), "first line\nold text\n", "the file is untouched");
  assert.ok(!existsSync(made), "bash did not run");

  await switchTo("accept-edits");
  a.permissionAnswer = (p) => {
    assert.equal(p.toolCall.toolCallId, "bash_ae", "only bash is asked about in accept-edits");
    return "reject_once";
  };
  r = await a.prompt(sessionId, "second");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(last("edit_ae").status, "completed", "the edit ran");
  assert.equal(readFileSync(notes, "utf8"), "first line\nnew text\n", "the edit is on disk");
  assert.deepEqual(a.permissionRequests.map((p) => p.toolCall.toolCallId), ["bash_ae"], "the edit ran without a question; bash asked");
  assert.equal(last("bash_ae").status, "failed");
  assert.ok(!existsSync(made), "the rejected bash call did not run");
  await a.close();

  const b = h.start({ label: "reload", env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none") } });
  await b.initialize();
  const loaded = await b.request("session/load", { sessionId, cwd, mcpServers: [] });
  assert.equal(loaded.modes.currentModeId, "accept-edits", "session/load reports the mode that was set");
  assert.ok(!b.updatesOf(sessionId).some((u) => u.sessionUpdate === "current_mode_update"), "no mode updates in the replay");
});
