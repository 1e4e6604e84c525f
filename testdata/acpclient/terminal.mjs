// terminal: with --editor-terminal and an editor that offers terminal,
// a bash call runs through terminal/create (bash -c, in the session's cwd)
// and its tool call shows the terminal (terminal content, kept on the
// final update); the model reads the output and the exit code;
// harness waits for the exit, reads the output and releases the
// terminal. Without terminal offered, the same call runs in the plugin.
import { realpathSync } from "node:fs";
import { run, assert, script } from "./lib.mjs";

await run("terminal", async (h) => {
  const cwd = realpathSync(process.cwd());
  const env = { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("terminal"), HARNESS_EDITOR_TERMINAL: "true", HARNESS_MODE: "allow-all" };
  const a = h.start({ env });
  await a.initialize({ terminal: true });
  const sessionId = await a.newSession(cwd);
  const r = await a.prompt(sessionId, "print something");
  assert.equal(r.stopReason, "end_turn");
  assert.equal(a.terminals.size, 1, "one terminal created");
  const [[id, t]] = [...a.terminals];
  assert.deepEqual([t.params.command, ...t.params.args], ["bash", "-c", "echo from-the-terminal; pwd; exit 3"]);
  assert.equal(t.params.cwd, cwd);
  assert.ok(t.released, "released");
  const methods = a.wire.filter((w) => w.dir === "out" && w.msg?.method?.startsWith("terminal/")).map((w) => w.msg.method);
  assert.deepEqual(methods, ["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
  const updates = r.updates.filter((u) => u.toolCallId === "call_t");
  const shown = updates.filter((u) => u.content?.some((c) => c.type === "terminal" && c.terminalId === id));
  assert.ok(shown.length >= 2, "the terminal shows on the call while it runs and on its final update");
  const last = updates.at(-1);
  assert.equal(last.status, "failed");
  assert.equal(last.content[0].type, "terminal");
  assert.match(last.rawOutput.content, /from-the-terminal\n.*\n\n\[exit code: 3\]/s);
  assert.ok(last.rawOutput.content.includes(cwd), "it ran in the session's cwd");
  await a.close();

  // An editor without terminals: the plugin runs it.
  const b = h.start({ env });
  await b.initialize();
  const s2 = await b.newSession(cwd);
  const r2 = await b.prompt(s2, "print something");
  assert.equal(r2.stopReason, "end_turn");
  assert.equal(b.terminals.size, 0);
  assert.ok(!r2.updates.some((u) => u.content?.some?.((c) => c.type === "terminal")), "no terminal content");
});
