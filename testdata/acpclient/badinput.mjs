// badinput: malformed lines, a batch, an unknown method, bad params, a
// prompt for an unknown session and an oversized message each get a clear
// JSON-RPC error; the connection and the other sessions keep working and
// the logs lose nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run, assert, script, expectError, sessionLog } from "./lib.mjs";

await run("badinput", async (h) => {
  // The SDK reports answers to requests it did not send (the raw lines).
  h.expectedConsoleErrors.push(/Got response to unknown request/);
  h.unknownMethodsOnPurpose.add("no/such/method");
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("badinput") } });
  await a.initialize();
  const cwd = process.cwd();
  const sa = await a.newSession(cwd);
  const sb = await a.newSession(cwd);
  assert.equal((await a.prompt(sb, "b one")).stopReason, "end_turn");

  const rawCases = [
    { line: "this is not json", id: null, code: -32700, msg: /Parse error/ },
    { line: '{"jsonrpc":"2.0","id":41,"method":"session/new","params":{"cwd":', id: null, code: -32700, msg: /Parse error/ },
    { line: '[{"jsonrpc":"2.0","id":42,"method":"initialize","params":{}}]', id: null, code: -32600, msg: /batches/ },
    { line: '"just a string"', id: null, code: -32600, msg: /JSON object/ },
    { line: '{"jsonrpc":"2.0","params":{}}', id: null, code: -32600, msg: /method or an id/ },
    { line: '{"jsonrpc":"2.0","id":"bad-1","method":"no/such/method","params":{}}', id: "bad-1", code: -32601, msg: /Method not found/ },
    { line: '{"jsonrpc":"2.0","id":"bad-2","method":"session/prompt","params":{"sessionId":42}}', id: "bad-2", code: -32602, msg: /Invalid params/ },
  ];
  for (const c of rawCases) {
    const answer = a.waitFor((m) => !m.method && "error" in m && m.id === c.id && m.error.code === c.code, `error ${c.code} for ${c.line}`);
    await a.raw(c.line);
    const m = await answer;
    assert.match(m.error.message, c.msg, `${c.line} → ${JSON.stringify(m)}`);
  }

  await expectError(a.request("no/such/method", {}), -32601);
  await expectError(a.request("session/new", { cwd: "relative/dir", mcpServers: [] }), -32602, "absolute");
  await expectError(a.request("session/prompt", { sessionId: sa, prompt: [{ type: "image", data: "AA==", mimeType: "image/png" }] }), -32602, "image");
  await expectError(a.request("session/prompt", { sessionId: "20991231T000000-00000000", prompt: [{ type: "text", text: "hi" }] }), -32002);
  const big = "x".repeat(9 * 1024 * 1024);
  await expectError(a.request("session/prompt", { sessionId: sa, prompt: [{ type: "text", text: big }] }), -32600, "over the limit");

  // Everything still works, in both sessions.
  const ra = await a.prompt(sa, "a one");
  assert.equal(ra.stopReason, "end_turn");
  assert.equal(ra.updates.map((u) => u.content.text).join(""), "A after.");
  const rb = await a.prompt(sb, "b two");
  assert.equal(rb.updates.map((u) => u.content.text).join(""), "B after.");

  // The logs hold every turn, and nothing of the rejected input.
  const log = (id) => sessionLog(id);
  const users = (id) => log(id).filter((e) => e.type === "user/message").map((e) => e.data.content[0].text);
  assert.deepEqual(users(sa), ["a one"]);
  assert.deepEqual(users(sb), ["b one", "b two"]);
  assert.equal(log(sb).filter((e) => e.type === "turn/end").length, 2);
});
