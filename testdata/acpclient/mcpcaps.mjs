// mcpcaps: what an MCP server gets of the client's capabilities and what
// it adds to a session, with @modelcontextprotocol/server-everything over
// stdio (node_modules/.bin/mcp-server-everything stdio, from session/new).
// Its prompts are offered as /everything:<prompt> in an
// available_commands_update once it is up, and /everything:args-prompt
// Paris runs a turn on the prompt's text; its instructions are in the
// system prompt, attributed; the model is offered the tools it shows only
// to a client with roots, elicitation and sampling; get-roots-list lists
// the session's folder and its added folder; trigger-elicitation-request
// reaches the editor as elicitation/create scoped to the session and the
// tool call, and the editor's answer reaches the server;
// trigger-sampling-request is refused with the line that says how to
// allow sampling.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { run, assert, script, sleep } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const everything = join(here, "node_modules", ".bin", "mcp-server-everything");

await run("mcpcaps", async (h) => {
  const a = h.start({ env: { HARNESS_PROVIDER: "script", HARNESS_SCRIPT: script("mcpcaps") } });
  await a.initialize({ elicitation: { form: {} } });
  const added = realpathSync(mkdtempSync(join(tmpdir(), "mcpcaps-added-")));
  const cwd = realpathSync(process.cwd());
  const { sessionId } = await a.request("session/new", {
    cwd,
    additionalDirectories: [added],
    mcpServers: [{ name: "everything", command: everything, args: ["stdio"], env: [] }],
  });

  // the prompts come as commands once the server is up
  const deadline = performance.now() + 30000;
  let names = [];
  while (performance.now() < deadline) {
    const ups = a.metaOf(sessionId, "available_commands_update");
    names = ups.length ? ups.at(-1).availableCommands.map((c) => c.name) : [];
    if (names.includes("everything:args-prompt")) break;
    await sleep(20);
  }
  for (const n of ["compact", "init", "everything:simple-prompt", "everything:args-prompt"]) {
    assert.ok(names.includes(n), `command ${n} offered (got ${names})`);
  }
  const argsCmd = a.metaOf(sessionId, "available_commands_update").at(-1).availableCommands.find((c) => c.name === "everything:args-prompt");
  assert.equal(argsCmd.input?.hint, "city [state]");
  assert.match(argsCmd.description, /^MCP prompt of everything: /);

  const r1 = await a.prompt(sessionId, "/everything:args-prompt Paris");
  assert.equal(r1.stopReason, "end_turn", "the prompt's turn ran (the script checked its text, instructions and tools)");

  a.permissionAnswer = () => "allow_once";
  a.elicitationAnswer = () => ({ action: "accept", content: { name: "Ada Lovelace", check: true } });
  const r2 = await a.prompt(sessionId, "use the server");
  assert.equal(r2.stopReason, "end_turn");
  const last = (id) => r2.updates.filter((u) => u.toolCallId === id).at(-1);
  const textOf = (u) => (u?.content ?? []).map((c) => c.content?.text ?? "").join("\n");

  const roots = textOf(last("call_roots"));
  assert.equal(last("call_roots").status, "completed");
  assert.ok(roots.includes(pathToFileURL(cwd).href) && roots.includes(pathToFileURL(added).href), `roots are the cwd and the added folder: ${roots}`);

  assert.equal(a.elicitations.length, 1, "one elicitation/create");
  const el = a.elicitations[0];
  assert.equal(el.sessionId, sessionId);
  assert.equal(el.toolCallId, "call_elicit");
  assert.equal(el.mode, "form");
  assert.match(el.message, /^MCP server everything asks: /);
  assert.ok(el.requestedSchema.properties.name, "the server's schema reaches the editor");
  const elicitText = textOf(last("call_elicit"));
  assert.equal(last("call_elicit").status, "completed");
  assert.ok(elicitText.includes("Ada Lovelace"), `the answer reached the server: ${elicitText}`);

  const sample = textOf(last("call_sample"));
  assert.ok(sample.includes("MCP server everything asked to sample the model; sampling is off for it"), `sampling refused with the line: ${sample}`);
});
