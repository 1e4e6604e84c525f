// Package pluginapi is the versioned contract between the harness host and
// its tool plugins, and the plugin side of it: the Go types both sides use,
// the errors and schema rules, [Serve] and [Typed] for the plugin's main,
// and [HostServices], the host's services a plugin may call back.
//
// # Who imports which
//
// A plugin imports pluginapi (and, in its tests, pluginapi/plugintest).
// The host side — pluginhost.Launch, pluginhost.Attach, the process
// runner, the environment a plugin is started with, the HostServices
// server — is package pluginapi/pluginhost, which only the host imports:
// a plugin binary links none of it (arch_test.go checks the build graph;
// see The module for why it is in this module).
// The generated gRPC code is internal to pluginapi/, shared by both sides.
//
// # The module
//
// pluginapi is a Go module of its own, github.com/harness-dev/harness/pluginapi,
// the plugin SDK: a plugin requires it (`go get
// github.com/harness-dev/harness/pluginapi@v1.4.0`) and pulls in nothing
// else of harness — its dependency graph is go-plugin, gRPC, protobuf and
// hclog and what they need, never the host's modules (the ACP SDK,
// fsnotify, the MCP SDK; arch_test.go and internal/modproxy's TestThirdPartyPath
// check it). Its versions are tags pluginapi/vX.Y.Z of the harness
// repository: X is [ProtocolVersion], Y is [ProtocolMinor], Z counts
// releases of the same protocol revision (docs/releasing.md). [SDKVersion]
// reads the version a binary was built with from its build info; [Serve]
// sends it in Describe and `harness plugins` shows it.
//
// The host side, package pluginhost, lives in this module too, as a
// package plugins never import. The alternative — pluginhost in the host
// module, with the generated code and the wire rules exported to it as a
// package such as pluginapi/hostwire — was rejected: the generated gRPC
// types and the status/size rules would become public API of the SDK,
// versioned and frozen with it, for the sake of one importer; plugintest,
// which plays the host in a plugin's tests and so is in the SDK, needs the
// launcher anyway; and pluginhost adds no module to a plugin's graph (it
// uses go-plugin, gRPC and hclog, which a plugin has already). A plugin
// binary still links none of it: Go links packages, not modules, and
// arch_test.go checks the plugins' build graph. The cost is that a change
// to the launcher is a change to this module; the host builds against the
// folder next to it (a replace directive in the host's go.mod), so that
// costs a release only when the host itself is released.
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
//	Preview(call) ─────────────────────►   Tool.Preview: title, locations, diff (minor 2)
//	Execute(call) ─────────────────────►   Tool.Run: progress…, one Result
//	          ◄── HostServices.ReadState ─ Call.Host
//	          ◄── RequestPermission, SpawnSubagent (when the host offers them)
//	          ◄── ReadTextFile, WriteTextFile (minor 2)
//	Cancel(call id) ───────────────────►   cancels that call's context
//	SessionClosed(session id) ─────────►   Plugin.SessionClosed (minor 1)
//	Close ── Shutdown, bounded; SIGKILL of the process group ► Plugin.OnExit
//
// Configure also tells the plugin the host's state dir (minor 1), which
// handlers see as [Call.StateDir]; [Call.SessionDir] is the call's session
// folder in it, <state-dir>/sessions/<session-id>/, next to the session's
// log, for files that belong to the session. Since minor 4 a call may
// carry the sandbox the host decided for its commands ([CallRequest.Sandbox]:
// mode, network, writable roots, deny-read paths, pids limit; the host
// logs the same value on the call's tool/call); the bash plugin confines
// each command to it, and a plugin that runs no commands ignores it. When the host is done with a
// session it calls SessionClosed, so that a plugin holding resources for
// that session (the bash plugin's background processes) releases them.
//
// Plugins propose events, the host writes them: a [Result] carries [Event]s
// whose types the plugin declared in [Plugin.EventTypes]; the host appends
// them just before the call's tool/result. A plugin never writes the log.
//
// # What the editor shows (minor 2)
//
// A tool declares its kind ([ToolSpec.Kind], ACP's ToolKind vocabulary),
// and a result may carry [Meta]: a title, the files touched (locations)
// and diffs. A change must be shown before the user allows it, so a tool
// that changes files has a [Tool.Preview] ([WithPreview]): the host calls
// it before it logs the call and asks permission, logs the answer with the
// call and puts it in the question. Describe tells the host which tools
// have a preview ([ToolSpec.HasPreview], minor 5), so a call of a tool
// without one costs no Preview round trip; a tool may also declare the
// title of its calls ([ToolSpec.Title], a template such as "{command}"
// the host expands with [ExpandTitle]) when it needs no preview to have
// one. The alternative — the plugin computes
// the diff and asks permission itself through RequestPermission with the
// diff attached — was rejected: the host would no longer decide all
// permissions the same way (the user's rules, "always" answers, modes by
// kind), the tool/call in the log would not carry the diff for replays,
// and every editing tool would reimplement the asking. A preview is a pure
// function of the call and the files; the call recomputes the change when
// it runs, and its result's Meta says what was really done.
//
// [ReadTextFile] and [WriteTextFile] reach files as the user sees them:
// the session's editor's buffers under an editor that serves files (ACP
// fs/read_text_file, fs/write_text_file), else the disk, as the host reads
// and writes it.
//
// Failures the model can act on (bad arguments, a denied action, a failed
// command) are Results with IsError set and content "Error: <message>". A Go
// error or a gRPC status is reserved for a broken plugin or transport.
//
// The protocol's strings are UTF-8. A Result (or a progress line, or a
// preview) holding other bytes — a Latin-1 file's line, a binary's output —
// is sent with those bytes replaced by U+FFFD, a line appended to the
// Result's content saying so, and a warning in the log; encode binary data
// (base64, hex, %q) to keep it exact.
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
// connects with pluginhost.Attach instead of launching the plugin
// (pluginhost.ParseReattach reads the variable), and never stops it.
//
// A plugin exits when its host is gone: the host gives it a stdin pipe
// whose write end only the host holds, so EOF on stdin means the host died
// (Serve watches it when $HARNESS_PLUGIN_EXIT_ON_STDIN_EOF=1, which the
// host's launcher sets); Serve also exits when its parent process changes, and on Linux the
// kernel sends SIGKILL when the host dies (Pdeathsig). Whichever way it
// stops serving — the host's Close, stdin EOF, a new parent, SIGTERM — Serve
// first calls [Plugin.OnExit], where a plugin kills what it started; only
// SIGKILL skips it.
//
// Tests of a plugin run it in process with package plugintest, through the
// same gRPC path ([ServeInProcess] serves it; pluginhost connects).
//
// # Generated code
//
// The Go code for the proto lives in internal/pb and is committed; nothing
// outside pluginapi/ can import it, and neither side's exported API shows
// it. `go generate ./...` in pluginapi/ regenerates it with protoc
// (Debian's protobuf-compiler package: apt-get install protobuf-compiler)
// and the protoc-gen-go and protoc-gen-go-grpc versions pinned as tools in
// the host's go.mod (the repository root's), so that the SDK's module
// requires neither. The mapping between the generated messages and the Go
// types is internal/convert's, both ways, for the plugin side (this
// package) and the host side (pluginhost) alike; the Go types themselves
// are declared in internal/contract, and this package names them by
// aliases ([ToolSpec], [CallRequest], [Result], …), so that one package
// can map them for both sides without an import cycle. A field added to
// the proto is added to the contract type and mapped in convert, whose
// tests fail for a message left unmapped.
package pluginapi

//go:generate sh -c "protoc -I proto --plugin=protoc-gen-go=$(cd .. && go tool -n protoc-gen-go) --plugin=protoc-gen-go-grpc=$(cd .. && go tool -n protoc-gen-go-grpc) --go_out=internal/pb --go_opt=paths=source_relative --go-grpc_out=internal/pb --go-grpc_opt=paths=source_relative harness/plugin/v1/plugin.proto"
