// mcpcontent: @modelcontextprotocol/server-everything over stdio, given in
// session/new, with a vision model as the default (a recording fake
// OpenAI-compatible server, config file: images = true). Its
// get-tiny-image result reaches the client as image content in the
// tool_call_update (the server's PNG, byte for byte) and the model as an
// image part (chat completions: an image_url in the user message after the
// tool message); the log holds the image's hash, the blob its bytes.
// get-resource-links' links name mcp_read_resource, which the model is
// offered and which reads a link's text (resources/read), titled
// "everything: read <uri>" and not asked about (a read). After a switch
// to a text-only model, the request carries no image part and the tool
// result says "[image: image/png, N bytes — the model does not take
// images]". A fresh process's session/load replays the image content.
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { run, assert } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const everything = join(here, "node_modules", ".bin", "mcp-server-everything");
// the PNG get-tiny-image returns, from the installed package itself
const tiny = (await import(join(here, "node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js"))).MCP_TINY_IMAGE;
const tinyBytes = Buffer.from(tiny, "base64");

// answers, in order: what the fake model says to each request
const call = (id, name, args) => ({ tool: { id, name, args: JSON.stringify(args) } });
const answers = [
  call("call_img", "mcp__everything__get-tiny-image", {}),
  call("call_links", "mcp__everything__get-resource-links", { count: 2 }),
  call("call_read", "mcp_read_resource", { server: "everything", uri: "demo://resource/dynamic/text/2" }),
  { text: "Seen." },
  { text: "In words." },
];

await run("mcpcontent", async (h) => {
  const requests = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const r = JSON.parse(body);
      const a = answers[requests.length] ?? { text: "no answer left" };
      requests.push(r);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta, finish = null) => res.write(`data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: r.model,
        choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      if (a.tool) {
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: a.tool.id, type: "function", function: { name: a.tool.name, arguments: a.tool.args } }] });
        chunk({}, "tool_calls");
      } else {
        chunk({ role: "assistant", content: a.text });
        chunk({}, "stop");
      }
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const dir = mkdtempSync(join(tmpdir(), "harness-mcpcontent-"));
    const config = join(dir, "config.toml");
    writeFileSync(config, ["[[models]]", 'provider = "openai"', 'name = "vision"', "images = true",
      "[[models]]", 'provider = "openai"', 'name = "text"', ""].join("\n"));
    const env = { HARNESS_PROVIDER: "openai", HARNESS_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, OPENAI_API_KEY: "test-key",
      HARNESS_MODELS: "vision,text", HARNESS_CONTEXT_WINDOW: "64000", HARNESS_CONFIG: config };
    const a = h.start({ label: "live", env });
    await a.initialize();
    const cwd = process.cwd();
    const { sessionId } = await a.request("session/new", { cwd, mcpServers: [{ name: "everything", command: everything, args: ["stdio"], env: [] }] });
    a.permissionAnswer = () => "allow_once";

    const r = await a.prompt(sessionId, "show me the picture and the links");
    assert.equal(r.stopReason, "end_turn");
    assert.equal(requests.length, 4, "four requests: three tool calls, then the answer");

    // the editor: image content after the text
    const img = r.updates.filter((u) => u.toolCallId === "call_img").at(-1);
    assert.equal(img.status, "completed", JSON.stringify(img));
    const image = img.content.find((c) => c.content.type === "image")?.content;
    assert.ok(image, `no image content in ${JSON.stringify(img.content).slice(0, 400)}`);
    assert.equal(image.mimeType, "image/png");
    assert.equal(image.data, tiny, "the client got the server's PNG");
    const note = `[image: image/png, ${tinyBytes.length} bytes]`;
    assert.ok(img.content[0].content.text.includes(note), `the text names the image: ${img.content[0].content.text}`);

    // the model: an image part after the tool message
    const second = requests[1].messages;
    const t = second.findIndex((m) => m.role === "tool" && m.tool_call_id === "call_img");
    assert.ok(t >= 0, "the tool result is in the second request");
    assert.ok(second[t].content.includes(note) && !second[t].content.includes("does not take"), second[t].content);
    const after = second[t + 1];
    assert.equal(after?.role, "user", `the message after the tool result: ${JSON.stringify(after)?.slice(0, 300)}`);
    assert.deepEqual(after.content.find((p) => p.type === "image_url"), { type: "image_url", image_url: { url: `data:image/png;base64,${tiny}` } });

    // resource links name mcp_read_resource, which reads them
    assert.ok(requests[2].tools.some((tl) => tl.function.name === "mcp_read_resource"), "mcp_read_resource is offered");
    const links = requests[2].messages.find((m) => m.role === "tool" && m.tool_call_id === "call_links").content;
    assert.match(links, /\[resource link: demo:\/\/resource\/dynamic\/text\/2 \(Text Resource 2\), text\/plain; read it with mcp_read_resource\]/);
    const read = requests[3].messages.find((m) => m.role === "tool" && m.tool_call_id === "call_read").content;
    assert.match(read, /^\[resource: demo:\/\/resource\/dynamic\/text\/2, text\/plain\]\nResource 2: This is a plaintext resource/);
    const readUpdate = r.updates.filter((u) => u.toolCallId === "call_read");
    assert.equal(readUpdate[0].kind, "read");
    assert.equal(readUpdate[0].title, "everything: read demo://resource/dynamic/text/2");
    assert.equal(readUpdate.at(-1).status, "completed");
    assert.deepEqual(a.permissionRequests, [], "reads are not asked about in ask mode");

    // the log: the hash; the blob: the bytes
    const file = join(process.env.HARNESS_STATE_DIR, "sessions", `${sessionId}.jsonl`);
    const raw = readFileSync(file, "utf8");
    assert.ok(!raw.includes(tiny), "the log holds the image's bytes inline");
    const hash = createHash("sha256").update(tinyBytes).digest("hex");
    const result = raw.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.type === "tool/result" && e.data.callId === "call_img");
    assert.deepEqual(result.data.images, [{ type: "image", mimeType: "image/png", blob: hash }]);
    assert.deepEqual(readFileSync(join(process.env.HARNESS_STATE_DIR, "sessions", `${sessionId}.blobs`, hash)), tinyBytes);

    // a text-only model: no image parts, the note says so
    await a.request("session/set_config_option", { sessionId, configId: "model", value: "text" });
    assert.equal((await a.prompt(sessionId, "describe it in words")).stopReason, "end_turn");
    assert.equal(requests.length, 5);
    assert.equal(requests[4].model, "text");
    assert.ok(requests[4].messages.every((m) => typeof m.content === "string" || m.content === null), "image parts sent to a text model");
    const textTool = requests[4].messages.find((m) => m.role === "tool" && m.tool_call_id === "call_img").content;
    assert.ok(textTool.includes(`[image: image/png, ${tinyBytes.length} bytes — the model does not take images]`), textTool);
    await a.close();

    // session/load in a fresh process replays the image content
    const b = h.start({ label: "reload", env });
    await b.initialize();
    await b.request("session/load", { sessionId, cwd, mcpServers: [] });
    const replayed = b.updatesOf(sessionId).filter((u) => u.toolCallId === "call_img").at(-1);
    assert.deepEqual(replayed.content, img.content, "the replay shows the image as the live turn did");
    await b.close();
  } finally {
    server.close();
  }
});
