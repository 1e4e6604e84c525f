// models: with HARNESS_MODELS=a,b and HARNESS_CONTEXT_WINDOW=64000,
// session/new offers both models in a `model` config option; each step
// sends usage_update (used from the provider's usage, size the window,
// the session's cost from the config file's prices); set_config_option to b is
// answered with the full list and a config_option_update, and the next
// request carries b (the script refuses any other model); unknown ids and
// values are -32602; b's reasoning effort (thought_level) switches the
// same way; a fresh process loads the session still on b, effort low.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, assert, script, expectError } from "./lib.mjs";

const modelOption = (opts) => opts?.find((o) => o.id === "model");

await run("models", async (h) => {
  const cwd = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), "harness-models-"));
  const config = join(dir, "config.toml");
  writeFileSync(config, [
    "# prices in USD per million tokens; a's cached input costs as input",
    "[[models]]", 'provider = "script"', 'name = "a"', "input-price = 0.5", "output-price = 1.0",
    "[[models]]", 'provider = "script"', 'name = "b"', "input-price = 1.0", "cached-input-price = 0.5", "output-price = 2.0",
    'reasoning-efforts = ["low", "high"]', ""].join("\n"));
  const env = { HARNESS_PROVIDER: "script", HARNESS_MODELS: "a,b", HARNESS_CONTEXT_WINDOW: "64000", HARNESS_CONFIG: config };

  const a = h.start({ label: "live", env: { ...env, HARNESS_SCRIPT: script("models") } });
  await a.initialize();
  const created = await a.request("session/new", { cwd, mcpServers: [] });
  const sessionId = created.sessionId;
  const model = modelOption(created.configOptions);
  assert.ok(model, `session/new has no model option: ${JSON.stringify(created)}`);
  assert.equal(model.type, "select");
  assert.equal(model.category, "model");
  assert.equal(model.currentValue, "a");
  assert.deepEqual(model.options.map((o) => o.value), ["a", "b"]);
  assert.ok(!created.configOptions.some((o) => o.category === "thought_level"), "a model without levels has no reasoning effort option");

  const first = await a.prompt(sessionId, "first");
  assert.equal(first.stopReason, "end_turn");
  const u1 = first.updates.filter((u) => u.sessionUpdate === "usage_update");
  assert.ok(u1.length >= 1, `no usage_update after the first prompt: ${JSON.stringify(first.updates)}`);
  assert.equal(u1.at(-1).used, 150);
  assert.equal(u1.at(-1).size, 64000);
  // a's step: 100 in and 30 cached at 0.5, 20 out at 1.0 per million.
  const costA = (100 * 0.5 + 30 * 0.5 + 20 * 1) / 1e6;
  assert.equal(u1.at(-1).cost?.currency, "USD");
  assert.ok(Math.abs(u1.at(-1).cost.amount - costA) < 1e-12, `cost ${JSON.stringify(u1.at(-1).cost)}`);

  await expectError(a.request("session/set_config_option", { sessionId, configId: "model", value: "zzz" }), -32602, "no model");
  await expectError(a.request("session/set_config_option", { sessionId, configId: "colour", value: "b" }), -32602, "unknown option");
  const before = a.updatesOf(sessionId).length;
  const set = await a.request("session/set_config_option", { sessionId, configId: "model", value: "b" });
  assert.equal(modelOption(set.configOptions)?.currentValue, "b");
  const notes = a.updatesOf(sessionId, 0).slice(before).filter((u) => u.sessionUpdate === "config_option_update");
  assert.equal(notes.length, 1, "one config_option_update");
  assert.equal(modelOption(notes[0].configOptions)?.currentValue, "b");
  // b has reasoning effort levels: the option appears, at b's default.
  const effortOf = (opts) => opts?.find((o) => o.category === "thought_level");
  assert.equal(effortOf(set.configOptions)?.id, "reasoning_effort");
  assert.deepEqual(effortOf(set.configOptions).options.map((o) => o.value), ["low", "high"]);
  assert.equal(effortOf(set.configOptions).currentValue, "high");
  await expectError(a.request("session/set_config_option", { sessionId, configId: "reasoning_effort", value: "max" }), -32602, "takes reasoning effort low, high");
  const low = await a.request("session/set_config_option", { sessionId, configId: "reasoning_effort", value: "low" });
  assert.equal(effortOf(low.configOptions)?.currentValue, "low");

  const second = await a.prompt(sessionId, "second");
  assert.equal(second.stopReason, "end_turn", "the second request carried model b");
  const u2 = second.updates.filter((u) => u.sessionUpdate === "usage_update").at(-1);
  assert.ok(u2, "no usage_update after the second prompt");
  assert.equal(u2.used, 300);
  assert.equal(u2.size, 64000);
  // The session's cost so far: a's step, then b's: 200 in at 1.0, 60
  // cached at 0.5, 40 out at 2.0 per million.
  assert.equal(u2.cost?.currency, "USD");
  assert.ok(Math.abs(u2.cost.amount - (costA + (200 * 1 + 60 * 0.5 + 40 * 2) / 1e6)) < 1e-12, `cost ${JSON.stringify(u2.cost)}`);
  await a.close();

  const b = h.start({ label: "reload", env: { ...env, HARNESS_SCRIPT: script("models-continue") } });
  await b.initialize();
  const loaded = await b.request("session/load", { sessionId, cwd, mcpServers: [] });
  assert.equal(modelOption(loaded?.configOptions)?.currentValue, "b", "the loaded session keeps b");
  assert.equal(loaded.configOptions.find((o) => o.id === "reasoning_effort")?.currentValue, "low", "and its effort");
  const third = await b.prompt(sessionId, "third");
  assert.equal(third.stopReason, "end_turn", "the loaded session's request carried model b");
  const resumed = h.start({ label: "resume", env: { ...env, HARNESS_SCRIPT: script("models-continue") } });
  await resumed.initialize();
  await b.close();
  const r = await resumed.request("session/resume", { sessionId, cwd, mcpServers: [] });
  assert.equal(modelOption(r?.configOptions)?.currentValue, "b", "the resumed session keeps b");
});
