// broken: a bad setting does not end harness acp — an editor shows an agent
// that exits at start as a crash with no reason. For each kind of bad
// setting (an unknown mode in the environment, a bad log level, a config
// file that is not TOML, a permissions file that is not JSON, the last two
// holding a secret, a bad flag or a stray argument in the editor's args),
// the agent answers initialize, refuses session/new,
// session/load and session/list with -32603, one line naming the setting
// and saying to fix it and restart, logs the reason, never echoes the
// secret, and exits 0 at EOF.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, assert, expectError } from "./lib.mjs";

const secret = "sk-live-" + "5ecret0f7he" + "user";
const dir = mkdtempSync(join(tmpdir(), "harness-broken-"));
const badToml = join(dir, "config.toml");
writeFileSync(badToml, `provider = "deepseek"\napi_key = ${secret}\n`);
const badRules = join(dir, "permissions.json");
writeFileSync(badRules, `{"rules": [{"tool": "bash", "action": allow ${secret}`);

const cases = [
  { label: "mode", env: { HARNESS_MODE: "bogus" }, names: "HARNESS_MODE" },
  { label: "log-level", env: { HARNESS_LOG_LEVEL: "loud" }, names: "HARNESS_LOG_LEVEL" },
  { label: "config", env: { HARNESS_CONFIG: badToml }, names: "config.toml" },
  { label: "permissions", env: { HARNESS_PERMISSIONS_FILE: badRules }, names: "permissions.json" },
  { label: "flag", args: ["acp", "--mod", "ask"], names: "-mod" },
  { label: "argument", args: ["acp", "ask"], names: "takes no arguments" },
];

await run("broken", async (h) => {
  for (const c of cases) {
    const a = h.start({ label: c.label, args: c.args, env: { HARNESS_PROVIDER: "script", ...c.env } });
    await a.initialize();
    const cwd = process.cwd();
    const calls = {
      "session/new": { cwd, mcpServers: [] },
      "session/load": { sessionId: "20991231T235959-0badc0de", cwd, mcpServers: [] },
      "session/list": {},
    };
    for (const [method, params] of Object.entries(calls)) {
      const err = await expectError(a.request(method, params), -32603, "harness cannot serve sessions");
      assert.ok(err.message.includes(c.names), `${c.label} ${method}: names ${c.names}: ${err.message}`);
      assert.match(err.message, /fix it and restart the agent/, `${c.label} ${method}: says what to do`);
      assert.ok(!err.message.includes("\n"), `${c.label} ${method}: one line: ${err.message}`);
    }
    const exit = await a.close();
    assert.equal(exit.code, 0, `${c.label}: exit ${JSON.stringify(exit)}`);
    assert.ok(a.stderr.some((l) => l.includes("refuses sessions")), `${c.label}: the log says why`);
    const all = JSON.stringify(a.wire ?? []) + a.stderr.join("\n");
    assert.ok(!all.includes(secret), `${c.label}: the secret leaked`);
  }
});
