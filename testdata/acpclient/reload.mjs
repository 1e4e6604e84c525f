// reload: a plugin's binary is replaced while the session runs (go build
// style: write a new file, rename it over the old). The next call is
// served by the new binary, and the editor sees nothing else change: the
// same kinds of updates for the same call, and the plan is intact.
import { copyFileSync, renameSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, sleep, sessionLog } from "./lib.mjs";

const kinds = (updates, id) => updates.filter((u) => u.toolCallId === id).map((u) => `${u.sessionUpdate}:${u.status ?? ""}`);

await run("reload", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("reload") } });
  await a.initialize();
  const sessionId = await a.newSession(process.cwd());
  const one = await a.prompt(sessionId, "which version?");
  assert.equal(one.stopReason, "end_turn");
  assert.match(one.updates.filter((u) => u.toolCallId === "ver_one").at(-1).content[0].content.text, /^v1$/);

  const target = process.env.ACPCLIENT_PLUGIN;
  copyFileSync(process.env.ACPCLIENT_V2, target + ".tmp");
  renameSync(target + ".tmp", target);
  const deadline = Date.now() + 20000;
  while (!a.stderr.some((l) => l.includes("plugin reloaded") && l.includes("versioned"))) {
    assert.ok(Date.now() < deadline, "no reload reported on stderr");
    await sleep(50);
  }

  const two = await a.prompt(sessionId, "and again?");
  assert.equal(two.stopReason, "end_turn");
  assert.match(two.updates.filter((u) => u.toolCallId === "ver_two").at(-1).content[0].content.text, /^v2$/);
  assert.deepEqual(kinds(two.updates, "ver_two"), kinds(one.updates, "ver_one"), "the call shows the same way after the reload");

  // The log says which binary served each call, and the plan is the one
  // written before the reload.
  const events = sessionLog(sessionId);
  const served = events.filter((e) => e.type === "tool/call" && e.data.name === "version").map((e) => e.data.plugin.version);
  assert.deepEqual(served, ["v1", "v2"]);
  await a.close();
  const b = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none") } });
  await b.initialize();
  await b.request("session/load", { sessionId, cwd: process.cwd(), mcpServers: [] });
  const plans = b.updatesOf(sessionId).filter((u) => u.sessionUpdate === "plan");
  assert.equal(plans.length, 1);
  assert.deepEqual(plans[0].entries, [{ content: "ask the version", priority: "medium", status: "in_progress" }]);
});
