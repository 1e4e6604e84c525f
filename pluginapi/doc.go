// Package pluginapi is the versioned contract between the harness host and
// its tool plugins: the Go types both sides use, [Serve] for the plugin's
// main, [Launch] and [Client] for the host, and [HostServices], the host's
// services a plugin may call back.
//
// # Who calls whom
//
// A plugin is an executable serving one or more tools. The host starts it
// with HashiCorp go-plugin over gRPC and calls its ToolProvider service:
//
//	host                                   plugin
//	Launch ── spawn, handshake ─────────►  Serve
//	Describe ──────────────────────────►   name, version, tools, event types
//	Configure(HostServices) ───────────►   dials the broker id, keeps the conn
//	Execute(call) ─────────────────────►   Tool.Run: progress…, one Result
//	          ◄── HostServices.ReadState ─ Call.Host
//	          ◄── RequestPermission, SpawnSubagent (when the host offers them)
//	Cancel(call id) ───────────────────►   cancels that call's context
//	SessionClosed(session id) ─────────►   Plugin.SessionClosed (minor 1)
//	Close ── Shutdown, bounded; SIGKILL of the process group ► Plugin.OnExit
//
// Configure also tells the plugin the host's state dir (minor 1), which
// handlers see as [Call.StateDir]; [Call.SessionDir] is the call's session
// folder in it, <state-dir>/sessions/<session-id>/, next to the session's
// log, for files that belong to the session. When the host is done with a
// session it calls SessionClosed, so that a plugin holding resources for
// that session (the bash plugin's background processes) releases them.
//
// Plugins propose events, the host writes them: a [Result] carries [Event]s
// whose types the plugin declared in [Plugin.EventTypes]; the host appends
// them just before the call's tool/result. A plugin never writes the log.
//
// Failures the model can act on (bad arguments, a denied action, a failed
// command) are Results with IsError set and content "Error: <message>". A Go
// error or a gRPC status is reserved for a broken plugin or transport.
//
// # Versioning
//
// The wire contract is proto/harness/plugin/v1/plugin.proto (package
// harness.plugin.v1), the source of truth for plugins in any language. The
// major version is the go-plugin handshake ProtocolVersion, [ProtocolVersion]
// = 1, dispensed under the name "tools"; only gRPC is offered. v1 is frozen
// once released: changes are additive only (new fields, new RPCs that answer
// Unimplemented when absent, capability flags), counted by [ProtocolMinor],
// which both sides exchange in Describe and Configure. A breaking change is
// a new proto package v2 with handshake version 2, served side by side with
// v1. The magic cookie ([MagicCookieKey]) only keeps people from running a
// plugin by hand; it is not a security measure.
//
// # The plugin process
//
// [Serve] owns the plugin's main. It logs JSON lines (hclog) on the
// original stderr at the level in $HARNESS_PLUGIN_LOG_LEVEL (default info);
// the host relays them into its own log under the plugin's name. What the
// plugin prints to its standard output or error after Serve starts travels
// over go-plugin's stdio stream and is logged by the host too (standard
// output at debug, standard error at info). Use [Call.Logger] in handlers. A handler that panics yields an
// error Result ("Error: tool <name> panicked: <value>") and the process
// goes on; the stack is logged. `plugin --describe` prints the Describe
// answer as JSON and exits, without a host.
//
// Run by hand with $HARNESS_PLUGIN_DEBUG=1 (under a debugger), a plugin
// serves in debug mode and prints a $HARNESS_REATTACH_PLUGINS value naming
// its address, like Terraform's TF_REATTACH_PROVIDERS; a host given it
// connects with [Attach] instead of launching the plugin ([ParseReattach]
// reads the variable), and never stops it.
//
// A plugin exits when its host is gone: the host gives it a stdin pipe
// whose write end only the host holds, so EOF on stdin means the host died
// (Serve watches it when $HARNESS_PLUGIN_EXIT_ON_STDIN_EOF=1, which Launch
// sets); Serve also exits when its parent process changes, and on Linux the
// kernel sends SIGKILL when the host dies (Pdeathsig). Whichever way it
// stops serving — the host's Close, stdin EOF, a new parent, SIGTERM — Serve
// first calls [Plugin.OnExit], where a plugin kills what it started; only
// SIGKILL skips it.
//
// # The host side
//
// [Launch] runs the binary through its own go-plugin runner: the plugin's
// stdin is that host-held pipe (never the host's stdin, which belongs to
// ACP), its stdout and stderr are pipes read by go-plugin (never the host's
// stdout), it runs in its own process group, and its Unix sockets, and the
// host's broker socket for HostServices, live in a private 0700 temporary
// folder removed on Close. AutoMTLS is off (it costs ~30 ms a start; the
// 0700 folder keeps other users out). Messages may be up to 64 MiB each way.
// [Client.Close] asks the plugin to shut down, waits at most StopTimeout,
// then kills the whole process group. Start failures are [*StartError]s of
// one line each; a plugin that dies during a call gives an [*ExitError]
// carrying its last stderr lines.
//
// # Environment: the trust boundary
//
// A plugin is code the model drives (the bash plugin runs whatever command
// the model writes), so it is outside the host's trust boundary for
// secrets: the host reads its API keys from its own environment, and no
// plugin ever gets that environment. [Launch] starts every plugin with an
// explicit environment, built by [PluginEnv] from the host's:
//
//   - the variables [DefaultPassEnv] names: PATH, HOME, USER, LOGNAME,
//     SHELL, LANG, LANGUAGE, LC_*, TZ, TERM, COLORTERM, TMPDIR, XDG_*,
//     SSL_CERT_FILE, SSL_CERT_DIR and the proxy variables (HTTP_PROXY,
//     HTTPS_PROXY, NO_PROXY, ALL_PROXY, also in lower case) — less a
//     LC_*/XDG_* variable whose name looks like a secret ([SecretName]) and
//     any whose value is a URL with a password (a proxy's credentials; a
//     warning names it);
//   - the variables LaunchConfig.PassEnv names (the user's --plugin-env),
//     as they are;
//   - go-plugin's own (the magic cookie, PLUGIN_PROTOCOL_VERSIONS,
//     PLUGIN_UNIX_SOCKET_DIR, …), HARNESS_PLUGIN_LOG_LEVEL and
//     HARNESS_PLUGIN_EXIT_ON_STDIN_EOF, then LaunchConfig.Env.
//
// LaunchConfig.SkipHostEnv leaves out the first two. Nothing else of the
// host's environment reaches a plugin, whatever LaunchConfig says, and so
// nothing reaches what the plugin starts. [Attach] starts nothing: a plugin
// run by hand for a debugger has the environment its user gave it. What a
// plugin does with what it gets (the bash plugin filters its commands'
// environment again, and hides /proc) is the plugin's contract.
//
// Tests of a plugin run it in process with package plugintest, through the
// same gRPC path.
//
// # Generated code
//
// The Go code for the proto lives in internal/pb and is committed; nothing
// outside this package sees it. `go generate ./pluginapi/...` regenerates it
// with protoc (Debian's protobuf-compiler package: apt-get install
// protobuf-compiler) and the protoc-gen-go and protoc-gen-go-grpc versions
// pinned as tools in go.mod.
package pluginapi

//go:generate sh -c "protoc -I proto --plugin=protoc-gen-go=$(go tool -n protoc-gen-go) --plugin=protoc-gen-go-grpc=$(go tool -n protoc-gen-go-grpc) --go_out=internal/pb --go_opt=paths=source_relative --go-grpc_out=internal/pb --go-grpc_opt=paths=source_relative harness/plugin/v1/plugin.proto"
