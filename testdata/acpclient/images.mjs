// images: with a vision model as the default (config file: images = true),
// initialize advertises promptCapabilities.image; a pasted image reaches
// the provider's request (a recording fake OpenAI-compatible server here)
// as an image_url data URL, and the log holds only its hash: the bytes are
// in sessions/<id>.blobs/<sha256> (0600), never inline. After a switch to
// a text-only model, an image prompt is refused -32602 with one clear line
// and no request is sent; the text model's requests carry no image parts.
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, assert, expectError, sharedStore, sessionLogText } from "./lib.mjs";

// a 1×1 PNG
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");
const b64 = png.toString("base64");

await run("images", async (h) => {
  const requests = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const r = JSON.parse(body);
      requests.push(r);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      chunk({ id: "x", object: "chat.completion.chunk", created: 0, model: r.model, choices: [{ index: 0, delta: { role: "assistant", content: `Seen by ${r.model}.` }, finish_reason: null }] });
      chunk({ id: "x", object: "chat.completion.chunk", created: 0, model: r.model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
      chunk({ id: "x", object: "chat.completion.chunk", created: 0, model: r.model, choices: [], usage: { prompt_tokens: 120, completion_tokens: 5, total_tokens: 125 } });
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const dir = mkdtempSync(join(tmpdir(), "harness-images-"));
    const config = join(dir, "config.toml");
    writeFileSync(config, ["[[models]]", 'provider = "openai"', 'name = "vision"', "images = true",
      "[[models]]", 'provider = "openai"', 'name = "text"', ""].join("\n"));
    const env = { HARNESS_PROVIDER: "openai", HARNESS_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, OPENAI_API_KEY: "test-key",
      HARNESS_MODELS: "vision,text", HARNESS_CONTEXT_WINDOW: "64000", HARNESS_CONFIG: config };
    const a = h.start({ label: "live", env });
    const init = await a.initialize();
    assert.equal(init.agentCapabilities.promptCapabilities.image, true, "the default model takes images");
    const cwd = process.cwd();
    const sessionId = await a.newSession(cwd);

    const r = await a.prompt(sessionId, [{ type: "text", text: "what is in this picture?" }, { type: "image", data: b64, mimeType: "image/png" }]);
    assert.equal(r.stopReason, "end_turn");
    assert.equal(requests.length, 1);
    const user = requests[0].messages.findLast((m) => m.role === "user");
    assert.ok(Array.isArray(user.content), `the user message has parts: ${JSON.stringify(user.content)}`);
    assert.deepEqual(user.content.find((p) => p.type === "image_url"), { type: "image_url", image_url: { url: `data:image/png;base64,${b64}` } });
    assert.match(user.content.find((p) => p.type === "text").text, /what is in this picture\?/);

    const raw = sessionLogText(sessionId);
    assert.ok(!raw.includes(b64), "the log holds the image's bytes inline");
    const hash = createHash("sha256").update(png).digest("hex");
    const msg = raw.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.type === "user/message");
    assert.deepEqual(msg.data.content[1], { type: "image", mimeType: "image/png", blob: hash });
    if (!sharedStore) { // a shared store keeps the bytes in its object store
      const blob = join(process.env.HARNESS_STATE_DIR, "sessions", `${sessionId}.blobs`, hash);
      assert.deepEqual(readFileSync(blob), png);
      assert.equal(statSync(blob).mode & 0o777, 0o600);
    }

    await a.request("session/set_config_option", { sessionId, configId: "model", value: "text" });
    const before = sessionLogText(sessionId);
    const err = await expectError(a.prompt(sessionId, [{ type: "text", text: "and this one?" }, { type: "image", data: b64, mimeType: "image/png" }]), -32602,
      "model text does not accept images");
    assert.ok(!String(err?.message ?? "").includes("\n"), "one line");
    assert.equal(String(err?.message ?? "").split("does not accept images").length, 2, `said once: ${err?.message}`);
    assert.equal(requests.length, 1, "no request for a refused prompt");
    assert.equal(sessionLogText(sessionId), before, "a refused prompt logs nothing");

    // the text model's requests carry the history's images as text only
    assert.equal((await a.prompt(sessionId, "describe it in words")).stopReason, "end_turn");
    assert.equal(requests.length, 2);
    assert.equal(requests[1].model, "text");
    assert.ok(requests[1].messages.every((m) => typeof m.content === "string" || m.content === null), `image parts sent to a text model: ${JSON.stringify(requests[1].messages)}`);
    await a.close();
  } finally {
    server.close();
  }
});
