// sandbox: harness advertises sessionCapabilities.additionalDirectories;
// session/new with additionalDirectories makes them the session's added
// folders: a bash command writes there (checked on disk) and not in
// another folder outside every root; the session's log records them
// (sandbox/policy addDirs, the call's tool/call sandbox roots); the
// read-only "sandbox" config option shows the sandbox (and refuses a
// switch); a relative or missing folder is -32602 and makes no session;
// a fresh process's session/load names other folders (logged again, shown
// in its option, listed by session/list) or none.
import { mkdtempSync, realpathSync, existsSync, readFileSync, readdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, assert, expectError, sessionLog, sharedStore } from "./lib.mjs";

await run("sandbox", async (h) => {
  const cwd = process.cwd();
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "harness-acp-sandbox-")));
  try {
    const [addedDir, otherDir, laterDir] = ["added-", "other-", "later-"].map((n) => mkdtempSync(join(scratch, n)));
    const scriptFile = join(scratch, "script.jsonl");
    writeFileSync(scriptFile, [
      JSON.stringify({ toolCalls: [{ id: "call_write", name: "bash", args: { command: `touch ${addedDir}/ok; touch ${otherDir}/no; echo done`, description: "write" } }] }),
      JSON.stringify({ text: "written" }),
    ].join("\n") + "\n");

    const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: scriptFile } });
    const init = await a.initialize();
    assert.deepEqual(init.agentCapabilities.sessionCapabilities.additionalDirectories, {}, "additionalDirectories advertised");

    await expectError(a.request("session/new", { cwd, mcpServers: [], additionalDirectories: ["relative/dir"] }), -32602, "not an absolute path");
    await expectError(a.request("session/new", { cwd, mcpServers: [], additionalDirectories: [join(scratch, "missing")] }), -32602, "does not exist");
    const state = process.env.HARNESS_STATE_DIR;
    const logs = () => readdirSync(join(state, "sessions")).filter((f) => f.endsWith(".jsonl"));
    if (!sharedStore) assert.equal(existsSync(join(state, "sessions")) ? logs().length : 0, 0, "a refused session/new makes no session");

    const created = await a.request("session/new", { cwd, mcpServers: [], additionalDirectories: [addedDir] });
    const sessionId = created.sessionId;
    const option = (opts) => opts?.find((o) => o.id === "sandbox");
    const sb = option(created.configOptions);
    assert.ok(sb, "a sandbox option in session/new");
    assert.equal(sb.currentValue, "workspace-write");
    assert.equal(sb.options.length, 1, "one value: the option is read-only");
    assert.match(sb.options[0].name, new RegExp(`added folders ${addedDir}`));
    await expectError(a.request("session/set_config_option", { sessionId, configId: "sandbox", value: "off" }), -32602, "set where harness acp starts");

    const r = await a.prompt(sessionId, "write");
    assert.equal(r.stopReason, "end_turn");
    assert.equal(r.updates.filter((u) => u.toolCallId === "call_write").at(-1).status, "completed");
    assert.ok(existsSync(join(addedDir, "ok")), "the command wrote in the added folder");
    assert.ok(!existsSync(join(otherDir, "no")), "the command did not write outside the roots");
    await a.close();

    const events = () => sessionLog(sessionId, state);
    const policies = () => events().filter((e) => e.type === "sandbox/policy").map((e) => e.data.addDirs ?? []);
    assert.deepEqual(policies(), [[addedDir]], "sandbox/policy logs the added folder");
    const call = events().find((e) => e.type === "tool/call" && e.data.callId === "call_write");
    assert.ok(call.data.sandbox.roots.includes(addedDir), `the tool/call's roots hold the added folder: ${JSON.stringify(call.data.sandbox)}`);

    // A fresh process loads it with another folder, then with none.
    const b = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: scriptFile } });
    await b.initialize();
    await expectError(b.request("session/load", { sessionId, cwd, mcpServers: [], additionalDirectories: ["nope"] }), -32602, "not an absolute path");
    const loaded = await b.request("session/load", { sessionId, cwd, mcpServers: [], additionalDirectories: [laterDir] });
    assert.match(option(loaded.configOptions).options[0].name, new RegExp(`added folders ${laterDir}`));
    assert.deepEqual(policies(), [[addedDir], [laterDir]], "a load under other folders logs them");
    const listed = await b.request("session/list", {});
    assert.deepEqual(listed.sessions.find((s) => s.sessionId === sessionId)?.additionalDirectories, [laterDir], "session/list names the folders the log last has");
    await b.close();
    const c = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: scriptFile } });
    await c.initialize();
    const bare = await c.request("session/load", { sessionId, cwd, mcpServers: [] });
    assert.doesNotMatch(option(bare.configOptions).options[0].name, /added folders/);
    assert.deepEqual(policies(), [[addedDir], [laterDir], []], "a load without folders logs none");
    await c.close();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
