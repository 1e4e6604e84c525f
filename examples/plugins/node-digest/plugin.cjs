#!/usr/bin/env node
// digest: a harness plugin written in Node.js, serving the tool `digest`
// (a cryptographic digest of a text). It speaks the harness plugin
// protocol v1 with no Go involved: the go-plugin handshake line on stdout,
// gRPC on a Unix socket, gRPC health, go-plugin's controller (Shutdown),
// stdio and broker services, and harness.plugin.v1.ToolProvider, loaded at
// run time with @grpc/proto-loader (no generated code) from the proto
// folder for every language, pluginapi/proto (see its README.md).
//
// The host runs a content-addressed copy of a plugin file, so a plugin
// must be one self-contained file: `node build.mjs OUT` bundles this
// script, its packages and the .proto texts into one executable. Run
// from the source tree (harness plugins check ./plugin.cjs), it reads the
// .proto files from pluginapi/proto and its packages from node_modules.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PLUGIN_NAME = 'digest';
const PLUGIN_VERSION = '0.1.0';

// The handshake: go-plugin's core protocol 1, the harness plugin protocol
// (pluginapi.ProtocolVersion) and its additive revision (ProtocolMinor).
const CORE_PROTOCOL_VERSION = 1;
const PROTOCOL_VERSION = 1;
const PROTOCOL_MINOR = 1;
// pluginapi.MagicCookieKey and MagicCookieValue: not a secret, a guard
// against running a plugin by hand.
const MAGIC_COOKIE_KEY = 'HARNESS_PLUGIN_MAGIC_COOKIE';
const MAGIC_COOKIE_VALUE = '9c4e1f7a2b6d48e3a05c31d87f2e6b94';

const MAX_MESSAGE_BYTES = 64 << 20;

const ALGORITHMS = ['sha256', 'sha384', 'sha512', 'sha1', 'md5'];
const ENCODINGS = ['hex', 'base64'];

const TOOL = {
  name: 'digest',
  description:
    'Compute a cryptographic digest of a text (sha256 by default), e.g. to compare it with a published checksum. ' +
    'The text is hashed as UTF-8, exactly as given: mind trailing newlines.',
  schema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The text to hash (UTF-8).' },
      algorithm: { type: 'string', enum: ALGORITHMS, description: 'The hash function; default sha256.' },
      encoding: { type: 'string', enum: ENCODINGS, description: 'How to write the digest; default hex.' },
    },
    required: ['text'],
    additionalProperties: false,
  },
};

// --- logging: hclog JSON lines on stderr, which the host relays under the
// plugin's name at their level.

const LEVELS = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, off: 5 };
let logLevel = LEVELS[process.env.HARNESS_PLUGIN_LOG_LEVEL] ?? LEVELS.info;

function log(level, message, fields = {}) {
  if (LEVELS[level] < logLevel) return;
  // go-plugin parses @timestamp as 2006-01-02T15:04:05.000000Z07:00
  // (microseconds): another form makes it relay the raw line at debug.
  const timestamp = new Date().toISOString().replace(/Z$/, '000Z');
  const line = { '@level': level, '@message': message, '@module': PLUGIN_NAME, '@timestamp': timestamp, ...fields };
  process.stderr.write(JSON.stringify(line) + '\n');
}

// --- the tool

// digest runs one call: arguments as JSON bytes in, a result out. Every
// failure the model can act on is an error result, never a gRPC error.
function digest(argsJSON) {
  let args;
  try {
    args = argsJSON.length === 0 ? {} : JSON.parse(argsJSON.toString('utf8'));
  } catch (err) {
    return errorResult(`invalid arguments: not JSON: ${err.message}`);
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return errorResult('invalid arguments: want a JSON object');
  }
  for (const key of Object.keys(args)) {
    if (!(key in TOOL.schema.properties)) return errorResult(`invalid arguments: unknown property ${JSON.stringify(key)}`);
  }
  const { text, algorithm = 'sha256', encoding = 'hex' } = args;
  if (typeof text !== 'string') return errorResult('invalid arguments: text: want a string');
  if (!ALGORITHMS.includes(algorithm)) return errorResult(`invalid arguments: algorithm: want one of ${ALGORITHMS.join(', ')}`);
  if (!ENCODINGS.includes(encoding)) return errorResult(`invalid arguments: encoding: want one of ${ENCODINGS.join(', ')}`);
  const bytes = Buffer.from(text, 'utf8');
  const sum = crypto.createHash(algorithm).update(bytes).digest(encoding);
  return { content: `${algorithm} of ${bytes.length} bytes (UTF-8), ${encoding}: ${sum}`, is_error: false, events: [] };
}

function errorResult(message) {
  return { content: `Error: ${message}`, is_error: true, events: [] };
}

// --- the protocol

// protoSources returns the .proto texts: inlined by the bundler (build.mjs
// defines HARNESS_PROTOS), else read from pluginapi/proto in the source
// tree.
function protoSources() {
  // eslint-disable-next-line no-undef
  if (typeof HARNESS_PROTOS !== 'undefined') return HARNESS_PROTOS;
  const read = (p) => fs.readFileSync(path.join(__dirname, '../../../pluginapi/proto', p), 'utf8');
  const files = ['harness/plugin/v1/plugin.proto', 'plugin/goplugin.proto', 'grpc/health/v1/health.proto'];
  return Object.fromEntries(files.map((f) => [f, read(f)]));
}

function loadServices() {
  const root = new protobuf.Root();
  for (const text of Object.values(protoSources())) {
    protobuf.parse(text, root, { keepCase: true });
  }
  root.resolveAll();
  const definition = protoLoader.fromJSON(root.toJSON(), {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition);
}

function describeResponse() {
  return {
    plugin_name: PLUGIN_NAME,
    plugin_version: PLUGIN_VERSION,
    protocol_minor: PROTOCOL_MINOR,
    tools: [{
      name: TOOL.name,
      description: TOOL.description,
      parameters_json_schema: JSON.stringify(TOOL.schema),
      concurrency_safe: true,
      needs_permission: false,
    }],
    event_types: [],
  };
}

function main() {
  if (process.argv[2] === '--describe') {
    const d = describeResponse();
    const t = d.tools[0];
    process.stdout.write(JSON.stringify({
      name: d.plugin_name, version: d.plugin_version, protocol: PROTOCOL_VERSION, protocolMinor: PROTOCOL_MINOR,
      tools: [{ name: t.name, description: t.description, parameters: TOOL.schema, concurrencySafe: t.concurrency_safe, needsPermission: t.needs_permission }],
      eventTypes: d.event_types,
    }, null, 2) + '\n');
    return;
  }
  if (process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    process.stderr.write(`${PLUGIN_NAME} is a harness plugin: the harness starts it from a plugin dir. ` +
      `Run it with --describe to see its tools, or check it with harness plugins check.\n`);
    process.exit(1);
  }

  const pkg = loadServices();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  const socketDir = process.env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir();
  const socket = path.join(socketDir, `${PLUGIN_NAME}-${process.pid}-${crypto.randomBytes(4).toString('hex')}.sock`);

  let stopping = false;
  function stop(why) {
    if (stopping) return;
    stopping = true;
    log('info', `${why}; exiting`);
    server.forceShutdown();
    try { fs.unlinkSync(socket); } catch { /* already gone */ }
    process.exit(0);
  }

  // Calls in flight, by call id, for Cancel.
  const calls = new Map();

  server.addService(pkg.harness.plugin.v1.ToolProvider.service, {
    Describe(_call, callback) {
      callback(null, describeResponse());
    },
    Configure(call, callback) {
      const level = LEVELS[call.request.log_level];
      if (level !== undefined) logLevel = level;
      log('debug', 'configured', { host_version: call.request.host_version, host_protocol_minor: call.request.protocol_minor });
      callback(null, { warnings: [] });
    },
    Execute(call) {
      const req = call.request;
      const id = req.call_id;
      let cancelled = false;
      const cancel = () => { cancelled = true; };
      if (id) calls.set(id, cancel);
      call.on('cancelled', cancel);
      let result;
      if (req.tool !== TOOL.name) {
        result = errorResult(`unknown tool ${JSON.stringify(req.tool)}`);
      } else {
        result = digest(req.args_json);
      }
      if (cancelled) result = errorResult('cancelled');
      if (id) calls.delete(id);
      log('debug', 'call answered', { tool: req.tool, call_id: id, is_error: result.is_error });
      call.write({ result });
      call.end();
    },
    Cancel(call, callback) {
      const cancel = calls.get(call.request.call_id);
      if (cancel) cancel();
      callback(null, {});
    },
    SessionClosed(_call, callback) {
      callback(null, {}); // this plugin holds nothing per session
    },
  });
  server.addService(pkg.grpc.health.v1.Health.service, {
    Check(call, callback) {
      const service = call.request.service;
      if (service === '' || service === 'plugin') return callback(null, { status: 'SERVING' });
      callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${service}` });
    },
  });
  server.addService(pkg.plugin.GRPCController.service, {
    Shutdown(_call, callback) {
      callback(null, {});
      setImmediate(() => stop('the host asked to shut down'));
    },
  });
  server.addService(pkg.plugin.GRPCStdio.service, {
    // Nothing is relayed: the stream stays open, empty, until the host
    // closes it.
    StreamStdio(call) {
      call.on('cancelled', () => call.end());
    },
  });
  server.addService(pkg.plugin.GRPCBroker.service, {
    // This plugin does not call the host back: the stream stays open and
    // what the host sends is ignored.
    StartStream(call) {
      call.on('data', () => {});
      call.on('end', () => call.end());
      call.on('error', () => {});
    },
  });

  server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      log('error', 'cannot listen', { socket, error: err.message });
      process.exit(1);
    }
    // The go-plugin handshake: CORE|APP|NETWORK|ADDRESS|PROTOCOL, one line,
    // the first and only thing on stdout.
    process.stdout.write(`${CORE_PROTOCOL_VERSION}|${PROTOCOL_VERSION}|unix|${socket}|grpc\n`);
    log('debug', 'serving', { socket, pid: process.pid });
  });

  // The host holds the write end of stdin: EOF means the host is gone.
  if (process.env.HARNESS_PLUGIN_EXIT_ON_STDIN_EOF === '1') {
    process.stdin.on('end', () => stop('host is gone (stdin closed)'));
    process.stdin.on('error', () => stop('host is gone (stdin error)'));
    process.stdin.resume();
  }
  process.on('SIGTERM', () => stop('got SIGTERM'));
  // go-plugin ignores SIGINT in plugins: an editor's Ctrl-C is for the host.
  process.on('SIGINT', () => log('debug', 'ignoring SIGINT'));
}

main();
