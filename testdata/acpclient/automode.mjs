// automode: harness's auto mode as an ACP session mode. session/new lists
// it with a description; set_mode to auto sends current_mode_update; in
// auto two sandboxed bash calls run without a question, and a call with
// sandbox "off" is asked, its justification in the request's title, with
// no "always" option; allowed, it writes outside the project. A harness
// started with --sandbox off refuses set_mode auto with -32602 saying why,
// and the session stays in ask.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, expectError } from "./lib.mjs";

await run("automode", async (h) => {
  const cwd = process.cwd();
  const outside = join(cwd, "..", "escalated-by-automode"); // beside the project, outside every root

  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("automode") } });
  await a.initialize();
  const created = await a.request("session/new", { cwd, mcpServers: [] });
  const sessionId = created.sessionId;
  const auto = created.modes.availableModes.find((m) => m.id === "auto");
  assert.ok(auto && auto.name && /sandbox/.test(auto.description), "auto is listed with a description naming the sandbox");

  let from = a.updates.length;
  await a.request("session/set_mode", { sessionId, modeId: "auto" });
  assert.deepEqual(a.updatesOf(sessionId, from), [{ sessionUpdate: "current_mode_update", currentModeId: "auto" }]);

  a.permissionAnswer = (p) => {
    assert.equal(p.toolCall.toolCallId, "esc", "only the escalation is asked about in auto");
    return "allow_once";
  };
  const r = await a.prompt(sessionId, "go");
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(a.permissionRequests.map((p) => p.toolCall.toolCallId), ["esc"]);
  const q = a.permissionRequests[0];
  assert.match(q.toolCall.title, /OUTSIDE the sandbox/);
  assert.match(q.toolCall.title, /write the release notes beside the project/);
  assert.deepEqual(q.options.map((o) => o.kind).sort(), ["allow_once", "reject_once"], "no always for an escalation");
  const last = (id) => r.updates.filter((u) => u.toolCallId === id).at(-1);
  for (const id of ["s1", "s2", "esc"]) assert.equal(last(id).status, "completed", `${id} ran`);
  assert.equal(readFileSync(join(cwd, "two.txt"), "utf8"), "ONE\n", "the sandboxed commands wrote in the project");
  assert.equal(readFileSync(outside, "utf8"), "escaped\n", "the allowed escalation wrote outside the project");
  await a.close();

  const b = h.start({ label: "sandbox off", args: ["acp", "--sandbox", "off"], env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("none") } });
  await b.initialize();
  const s2 = (await b.request("session/new", { cwd, mcpServers: [] })).sessionId;
  from = b.updates.length;
  await expectError(b.request("session/set_mode", { sessionId: s2, modeId: "auto" }), -32602, "sandbox is off");
  assert.equal(b.updatesOf(s2, from).length, 0, "no mode update for a refused switch");
});
