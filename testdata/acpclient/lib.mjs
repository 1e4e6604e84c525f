// The ACP editor stand-in shared by the scenarios: it runs `harness acp`,
// talks to it through the official TypeScript SDK (@agentclientprotocol/sdk,
// as an editor would), records every line on the wire, and at the end
// validates each message strictly against the ACP v1 schema by its
// per-method definition (acp-schema.json, copied from the SDK 2.4.0
// package), checks that every stdout line is a JSON-RPC message and every
// stderr line a JSON log record.
//
// A scenario is a file <name>.mjs run as
//
//	node <name>.mjs <harness-binary>
//
// with the environment of the harness (HARNESS_STATE_DIR, HARNESS_PROVIDER,
// HARNESS_PLUGIN_DIR, …) inherited. It prints PASS <name> and exits 0, or
// the failure and exits 1. ACPCLIENT_VERBOSE=1 echoes the wire and stderr.

import { spawn } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import Ajv2020 from "ajv/dist/2020.js";

export { acp, assert };

const here = dirname(fileURLToPath(import.meta.url));
const verbose = process.env.ACPCLIENT_VERBOSE === "1";

// ---- schema validation ------------------------------------------------------

const schema = JSON.parse(readFileSync(join(here, "acp-schema.json"), "utf8"));

function newValidator() {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: true });
  ajv.addVocabulary([
    "discriminator", // OpenAPI-style annotation; the oneOf beside it does the checking
    "x-side", "x-method", "x-docs-ignore",
    "x-deserialize-default-on-error", "x-deserialize-default-on-null", "x-deserialize-skip-invalid-items",
  ]);
  const int = (lo, hi) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= lo && n <= hi });
  ajv.addFormat("int32", int(-(2 ** 31), 2 ** 31 - 1));
  ajv.addFormat("uint32", int(0, 2 ** 32 - 1));
  ajv.addFormat("uint16", int(0, 2 ** 16 - 1));
  ajv.addFormat("int64", int(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("uint64", int(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("double", { type: "number", validate: (n) => Number.isFinite(n) });
  ajv.addFormat("uri", (s) => { try { new URL(s); return true; } catch { return false; } });
  ajv.addSchema(schema, "acp");
  // definition name by "method|Request" etc., from the schema's own annotations
  const byMethod = new Map();
  for (const [name, def] of Object.entries(schema.$defs)) {
    if (!def["x-method"]) continue;
    const kind = ["Request", "Response", "Notification"].find((k) => name.endsWith(k));
    byMethod.set(`${def["x-method"]}|${kind}`, name);
  }
  const compiled = new Map();
  const check = (defName, value) => {
    if (!compiled.has(defName)) compiled.set(defName, ajv.getSchema(`acp#/$defs/${defName}`));
    const v = compiled.get(defName);
    if (!v) return [`no definition ${defName} in the schema`];
    return v(value) ? [] : v.errors.map((e) => `${defName}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
  return { byMethod, check };
}

// unstableResponseTwins: methods harness serves that ACP v1 has only as
// unstable, by the stable definition their answer has the shape of.
const unstableResponseTwins = new Map([["session/fork", "NewSessionResponse"]]);

// validateTraffic checks every recorded message; it returns the problems.
function validateTraffic(wire, unknownOnPurpose) {
  const { byMethod, check } = newValidator();
  const problems = [];
  const pending = { in: new Map(), out: new Map() }; // requests sent in each direction: id → method
  const key = (id) => JSON.stringify(id);
  for (const rec of wire) {
    const where = `${rec.dir === "in" ? "client→harness" : "harness→client"} #${rec.n}`;
    const m = rec.msg;
    if (rec.badOnPurpose) { // deliberately bad input: only note what it asks
      if (m && typeof m === "object" && typeof m.method === "string" && "id" in m) pending[rec.dir].set(key(m.id), m.method);
      continue;
    }
    if (m === undefined) {
      problems.push(`${where}: not JSON: ${clip(rec.line)}`);
      continue;
    }
    if (m === null || typeof m !== "object" || Array.isArray(m) || m.jsonrpc !== "2.0") {
      problems.push(`${where}: not a JSON-RPC 2.0 message: ${clip(rec.line)}`);
      continue;
    }
    const problem = (p) => problems.push(`${where} ${m.method ?? "response " + key(m.id)}: ${p}`);
    if (typeof m.method === "string") {
      const kind = "id" in m ? "Request" : "Notification";
      if (kind === "Request") pending[rec.dir].set(key(m.id), m.method);
      const def = byMethod.get(`${m.method}|${kind}`);
      if (!def) {
        if (!unknownOnPurpose.has(m.method)) problem(`no ${kind} of this method in ACP v1`);
        continue;
      }
      check(def, m.params).forEach(problem);
      continue;
    }
    if (!("id" in m)) {
      problem("neither a method nor an id");
      continue;
    }
    const hasResult = "result" in m, hasError = "error" in m;
    if (hasResult === hasError) {
      problem("a response needs exactly one of result and error");
      continue;
    }
    // A response answers a request that went the other way.
    const other = rec.dir === "in" ? "out" : "in";
    const method = pending[other].get(key(m.id));
    if (m.id !== null) {
      if (method === undefined) problem("answers no request");
      pending[other].delete(key(m.id));
    }
    if (hasError) {
      check("Error", m.error).forEach(problem);
      continue;
    }
    // A method ACP v1 has only as unstable is checked against the stable
    // definition its answer has the shape of, if any.
    const def = byMethod.get(`${method}|Response`) ?? (unknownOnPurpose.has(method) ? unstableResponseTwins.get(method) : undefined);
    if (def) check(def, m.result).forEach(problem);
    else if (!unknownOnPurpose.has(method)) problem(`a result for ${method}, which has no response in ACP v1`);
  }
  for (const [dir, p] of Object.entries(pending)) {
    for (const [id, method] of p) problems.push(`${dir === "in" ? "client" : "harness"} request ${method} ${id} never answered`);
  }
  return problems;
}

// ---- the agent process --------------------------------------------------------

let wireCounter = 0;

class Agent {
  constructor(bin, { env, args, label }) {
    this.label = label;
    this.wire = []; // {dir, n, line, msg, raw, badOnPurpose}
    this.stderr = [];
    this.updates = []; // session/update params as the SDK delivered them
    // available_commands_update and session_info_update params, kept apart
    // so that a replay compares equal to the live transcript
    this.meta = [];
    this.exit = null;
    this.startedAt = performance.now();
    this.child = spawn(bin, args ?? ["acp"], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        this.exit = { code, signal, at: performance.now() };
        resolve(this.exit);
      });
    });
    this.child.stdin.on("error", () => {}); // EPIPE after an exit is reported by the checks
    this.waiters = [];
    this.permissionRequests = [];
    this.elicitations = []; // elicitation/create params, answered by this.elicitationAnswer (default: decline)
    this.buffers = new Map(); // path → the text of an open editor buffer
    this.fsReads = [];
    this.fsWrites = [];
    this.terminals = new Map(); // terminalId → { params, output, exitStatus, released, … } (terminal/*)
    lines(this.child.stderr, (line) => {
      this.stderr.push(line);
      if (verbose) console.log(`[${label} stderr] ${line}`);
    });
    const input = new ReadableStream({
      start: (controller) => {
        lines(this.child.stdout, (line) => this.record("out", line), (chunk) => {
          try { controller.enqueue(chunk); } catch { /* the connection is closed */ }
        });
        this.child.stdout.on("end", () => {
          try { controller.close(); } catch { /* the connection closed it */ }
        });
      },
    });
    const decoder = new TextDecoder();
    const output = new WritableStream({
      write: (chunk) => {
        for (const line of decoder.decode(chunk).split("\n")) if (line) this.record("in", line);
        return new Promise((resolve, reject) => this.child.stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
      },
    });
    const app = acp.client({ name: "harness-acpclient" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        const kind = params?.update?.sessionUpdate;
        (kind === "available_commands_update" || kind === "session_info_update" ? this.meta : this.updates).push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        this.permissionRequests.push(params);
        // A scenario may answer with a kind (allow_once, reject_always, …);
        // by default the first allow option is chosen.
        const kind = this.permissionAnswer?.(params);
        const option = params.options.find((o) => (kind ? o.kind === kind : o.kind.startsWith("allow"))) ?? params.options[0];
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      })
      // The editor's files, when initialize offers them (initialize({ fs })):
      // reads answer an open buffer (this.buffers, by path) or the disk;
      // writes land in the buffer, never on disk, and are recorded.
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        this.fsReads.push(params);
        if (this.buffers.has(params.path)) return { content: this.buffers.get(params.path) };
        return { content: readFileSync(params.path, "utf8") };
      })
      .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
        this.elicitations.push(params);
        return this.elicitationAnswer?.(params) ?? { action: "decline" };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        this.fsWrites.push(params);
        this.buffers.set(params.path, params.content);
        return {};
      })
      // The editor's terminals, when initialize offers them (initialize({
      // terminal: true })): each runs its command as a child process and
      // keeps the tail of its output within outputByteLimit.
      .onRequest(acp.methods.client.terminal.create, ({ params }) => {
        const id = `term-${this.terminals.size + 1}`;
        const env = { ...process.env, ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) };
        const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, stdio: ["ignore", "pipe", "pipe"] });
        const t = { params, output: "", truncated: false, exitStatus: null, released: false, child };
        const limit = params.outputByteLimit ?? Infinity;
        const add = (b) => {
          t.output += b.toString();
          if (Buffer.byteLength(t.output) > limit) { t.output = t.output.slice(-limit); t.truncated = true; }
        };
        child.stdout.on("data", add);
        child.stderr.on("data", add);
        t.exited = new Promise((resolve) => child.on("close", (code, signal) => {
          t.exitStatus = signal ? { signal } : { exitCode: code };
          resolve(t.exitStatus);
        }));
        this.terminals.set(id, t);
        return { terminalId: id };
      })
      .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => this.terminal(params).exited)
      .onRequest(acp.methods.client.terminal.output, ({ params }) => {
        const t = this.terminal(params);
        return { output: t.output, truncated: t.truncated, ...(t.exitStatus ? { exitStatus: t.exitStatus } : {}) };
      })
      .onRequest(acp.methods.client.terminal.kill, ({ params }) => { this.terminal(params).child.kill("SIGKILL"); return {}; })
      .onRequest(acp.methods.client.terminal.release, ({ params }) => {
        const t = this.terminal(params);
        t.released = true;
        if (!t.exitStatus) t.child.kill("SIGKILL");
        return {};
      });
    this.conn = app.connect(acp.ndJsonStream(output, input));
    this.ctx = this.conn.agent;
  }

  record(dir, line, opts = {}) {
    const rec = { dir, n: ++wireCounter, line, at: performance.now(), ...opts };
    try { rec.msg = JSON.parse(line); } catch { rec.msg = undefined; }
    this.wire.push(rec);
    if (verbose) console.log(`[${this.label} ${dir === "in" ? ">" : "<"}] ${clip(line, 400)}`);
    for (const w of [...this.waiters]) {
      if (rec.dir === "out" && rec.msg !== undefined && w.match(rec.msg)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(rec.msg);
      }
    }
  }

  // terminal returns the terminal a terminal/* request names.
  terminal(params) {
    const t = this.terminals.get(params.terminalId);
    if (!t || t.params.sessionId !== params.sessionId) throw new Error(`no terminal ${params.terminalId} in session ${params.sessionId}`);
    return t;
  }

  request(method, params) { return this.ctx.request(method, params); }
  notify(method, params) { return this.ctx.notify(method, params); }

  // initialize performs the handshake; fs, when given, is the file system
  // the editor offers ({ readTextFile, writeTextFile }), none by default;
  // elicitation, when given, is its elicitation capability ({ form: {} });
  // terminal, when set, offers its terminals.
  async initialize({ fs, elicitation, terminal } = {}) {
    const r = await this.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: fs ?? { readTextFile: false, writeTextFile: false }, terminal: !!terminal, ...(elicitation ? { elicitation } : {}) },
      clientInfo: { name: "harness-acpclient", version: "1.0.0" },
    });
    this.initializedAt = performance.now();
    return r;
  }

  async newSession(cwd) {
    const { sessionId } = await this.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    return sessionId;
  }

  // prompt sends a prompt and returns the response with the updates of
  // the session delivered before it.
  async prompt(sessionId, prompt) {
    const from = this.updates.length;
    const blocks = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
    const r = await this.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
    return { ...r, updates: this.updatesOf(sessionId, from) };
  }

  // metaOf returns the session's available_commands_update and
  // session_info_update updates, of one kind when given.
  metaOf(sessionId, kind) {
    return this.meta.filter((u) => u.sessionId === sessionId && (!kind || u.update.sessionUpdate === kind)).map((u) => u.update);
  }

  updatesOf(sessionId, from = 0) {
    return this.updates.slice(from).filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  // wireResponse returns the response harness wrote to the last request
  // of the method (as it was on the wire, before the SDK's reading of it).
  wireResponse(method) {
    const req = this.wire.findLast((r) => r.dir === "in" && r.msg?.method === method && "id" in r.msg);
    return this.wire.find((r) => r.dir === "out" && r.msg && !r.msg.method && r.msg.id === req?.msg.id)?.msg;
  }

  // raw writes a line as is, around the SDK; badOnPurpose keeps it out of
  // schema validation.
  raw(line, { badOnPurpose = true } = {}) {
    this.record("in", line.length > 2000 ? line.slice(0, 2000) + "…" : line, { badOnPurpose, raw: true });
    return new Promise((resolve, reject) => this.child.stdin.write(line + "\n", (err) => (err ? reject(err) : resolve())));
  }

  // waitFor resolves with the first message harness writes from now on
  // that matches.
  waitFor(match, what, ms = 10000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label}: no ${what} within ${ms} ms`)), ms);
      this.waiters.push({ match, resolve: (m) => { clearTimeout(timer); resolve(m); } });
    });
  }

  // waitForUpdate resolves once an update for the session matches.
  async waitForUpdate(sessionId, match, what, ms = 10000) {
    const deadline = performance.now() + ms;
    while (performance.now() < deadline) {
      if (this.updatesOf(sessionId).some(match)) return;
      await sleep(5);
    }
    throw new Error(`${this.label}: no ${what} within ${ms} ms`);
  }

  // close ends stdin (as an editor does to stop an agent) and waits for the
  // process to exit; it returns how long that took.
  async close(ms = 5000) {
    const t0 = performance.now();
    this.child.stdin.end();
    const timer = sleep(ms).then(() => "timeout");
    const r = await Promise.race([this.exited, timer]);
    if (r === "timeout") {
      this.child.kill("SIGKILL");
      throw new Error(`${this.label}: still running ${ms} ms after stdin closed`);
    }
    this.conn.close();
    return { ...this.exit, ms: this.exit.at - t0 };
  }

  // checks returns every problem of the recorded traffic and stderr.
  checks(unknownOnPurpose = new Set()) {
    const problems = validateTraffic(this.wire, unknownOnPurpose).map((p) => `${this.label}: ${p}`);
    for (const line of this.stderr) {
      let rec;
      try { rec = JSON.parse(line); } catch { rec = null; }
      if (!rec || typeof rec !== "object" || !rec["@level"]) problems.push(`${this.label}: stderr line is not a JSON log record: ${clip(line)}`);
    }
    const sent = this.wire.filter((r) => r.dir === "out" && r.msg?.method === "session/update").length;
    if (sent !== this.updates.length + this.meta.length) {
      problems.push(`${this.label}: harness sent ${sent} session/update notifications, the SDK delivered ${this.updates.length + this.meta.length} (dropped as invalid?)`);
    }
    return problems;
  }
}

// lines calls onLine for every complete line of a stream; onChunk, if
// given, gets the raw bytes too.
function lines(stream, onLine, onChunk) {
  const decoder = new TextDecoder();
  let pending = "";
  stream.on("data", (buf) => {
    if (onChunk) onChunk(new Uint8Array(buf));
    pending += decoder.decode(buf, { stream: true });
    const parts = pending.split("\n");
    pending = parts.pop();
    for (const p of parts) if (p.trim()) onLine(p);
  });
  stream.on("end", () => {
    if (pending.trim()) onLine(pending);
  });
}

// ---- scenario runner ----------------------------------------------------------

export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

export function clip(s, n = 300) { return s.length > n ? s.slice(0, n) + "…" : s; }

// sharedStore is set when the harness under test keeps its sessions in a
// shared store (HARNESS_STORE, CI's JetStream row) rather than files.
export const sharedStore = !!process.env.HARNESS_STORE;

// sessionLogText returns session id's log as JSONL text (the header line
// first): the file in <state>/sessions, or, on a shared store, what
// `harness sessions export` writes of it.
export function sessionLogText(id, state = process.env.HARNESS_STATE_DIR) {
  if (sharedStore) {
    const out = join(mkdtempSync(join(tmpdir(), "acpclient-export-")), `${id}.jsonl`);
    execFileSync(process.argv[2], ["sessions", "export", id, out], { env: { ...process.env, HARNESS_STATE_DIR: state } });
    return readFileSync(out, "utf8");
  }
  return readFileSync(join(state, "sessions", `${id}.jsonl`), "utf8");
}

// sessionLog returns session id's log as parsed lines (the header first).
export function sessionLog(id, state = process.env.HARNESS_STATE_DIR) {
  return sessionLogText(id, state).trim().split("\n").map((l) => JSON.parse(l));
}

// script returns the path of testdata/acpclient/scripts/<name>.jsonl.
export function script(name) { return join(here, "scripts", `${name}.jsonl`); }

// coalesce joins adjacent chunks of one message (same kind and messageId),
// so that a live stream of deltas compares equal to its replay.
export function coalesce(updates) {
  const out = [];
  for (const u of updates) {
    const last = out[out.length - 1];
    if (last && u.sessionUpdate.endsWith("_chunk") && last.sessionUpdate === u.sessionUpdate &&
        last.messageId === u.messageId && last.content.type === "text" && u.content.type === "text") {
      out[out.length - 1] = { ...last, content: { ...last.content, text: last.content.text + u.content.text } };
      continue;
    }
    out.push(structuredClone(u));
  }
  return out;
}

// text concatenates the text of the updates of one kind.
export function text(updates, kind) {
  return updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");
}

// expectError asserts that a promise rejects with a JSON-RPC error code.
export async function expectError(promise, code, messagePart) {
  try {
    const r = await promise;
    assert.fail(`expected error ${code}, got result ${JSON.stringify(r)}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    assert.equal(err.code, code, `error code of ${err.message} ${JSON.stringify(err.data)}`);
    if (messagePart) assert.match(err.message, new RegExp(messagePart));
    return err;
  }
}

// run runs a scenario: body(h) gets h.start(opts) to launch harness
// processes (each an Agent), h.bin and h.args. Afterwards every process is
// stopped and its traffic checked.
export async function run(name, body) {
  const bin = process.argv[2];
  if (!bin) {
    console.error(`usage: node ${name}.mjs <harness-binary> [args…]`);
    process.exit(2);
  }
  const agents = [];
  const h = {
    bin,
    args: process.argv.slice(3),
    expectedConsoleErrors: [],
    unknownMethodsOnPurpose: new Set(),
    start(opts = {}) {
      const a = new Agent(bin, { label: opts.label ?? `harness#${agents.length + 1}`, ...opts });
      agents.push(a);
      return a;
    },
  };
  const consoleErrors = [];
  const origError = console.error;
  console.error = (...args) => {
    const line = args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ");
    consoleErrors.push(line);
    if (verbose || !h.expectedConsoleErrors.some((re) => re.test(line))) origError(...args);
  };
  let failure = null;
  try {
    const watchdog = sleep(Number(process.env.ACPCLIENT_TIMEOUT_MS ?? 60000)).then(() => { throw new Error("scenario timed out"); });
    await Promise.race([body(h), watchdog]);
  } catch (err) {
    failure = err;
  }
  for (const a of agents) {
    if (a.exit === null) {
      try { await a.close(); } catch (err) { failure ??= err; }
    }
  }
  const problems = agents.flatMap((a) => a.checks(h.unknownMethodsOnPurpose));
  for (const e of consoleErrors) {
    if (!h.expectedConsoleErrors.some((re) => re.test(e))) problems.push(`the SDK complained: ${clip(e)}`);
  }
  if (failure) problems.unshift(`${failure.stack ?? failure}`);
  if (problems.length > 0) {
    if (!verbose) {
      for (const a of agents) {
        origError(`--- ${a.label} stderr:\n${a.stderr.join("\n")}`);
        origError(`--- ${a.label} wire:\n${a.wire.map((r) => `${r.dir === "in" ? ">" : "<"} ${clip(r.line, 400)}`).join("\n")}`);
      }
    }
    origError(`FAIL ${name}\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  const count = agents.reduce((n, a) => n + a.wire.length, 0);
  console.log(`PASS ${name} (${count} messages validated)`);
  process.exit(0);
}
