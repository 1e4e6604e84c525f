// Package mcpclient connects MCP (Model Context Protocol) servers as tool
// families, on the official Go MCP SDK (github.com/modelcontextprotocol/
// go-sdk, pinned in go.mod): the host speaks no MCP of its own.
//
// # Contract
//
// [Start] connects one session's servers in the background and returns a
// [Set] at once; [Set.Tools] lists their tools as mcp__<server>__<tool>
// with the servers' input schemas, titles and readOnlyHint annotations
// (hints the engine applies, not promises), waiting for servers in their
// first start until Options.StartWait (2 s) after Start and no longer: a
// slower server's tools are listed from the first Tools after it is up
// ([Set.Wait] waits for the first starts, each bounded by its start
// timeout: Options.StartTimeout, 60 s, or the server's own
// ServerConfig.StartTimeout, mcp.json's "startTimeout"). A schema that
// pluginapi.CheckSchema refuses, or a name that is not
// ^[a-zA-Z0-9_-]{1,64}$, leaves that tool out with a warning naming the
// server and the tool. A server that says notifications/tools/list_changed
// has its list fetched again on the next Tools (the next step). [Set.Call]
// turns a tools/call result into text and blocks: text content as it is;
// an image a model may be sent (PNG, JPEG, GIF, WebP, at most
// MaxImageBytes), and an embedded blob resource that is one, as an image
// block (tool.Block, its bytes) named in the text by llm.ImageNote; an
// embedded text resource as its text under a line naming its URI; another
// blob, audio or image as a line naming its type and size; a resource
// link as a line naming its URI and mcp_read_resource; structured content
// as JSON when nothing else came; isError stays an error result.
// [Set.ResourceServers] names the servers that are up and advertise
// resources; [ReadResourceSpec] is the mcp_read_resource tool for them
// (kind read, {server, uri}); [Set.ReadResource] calls resources/read and
// renders what it gives as Call renders a result. Every tools/call
// carries a progress token (a string, unique for the server); the
// server's notifications/progress about it go, one line each ("message
// (3/10)"), at most one update every 100 ms, to the function the call's
// context carries ([WithProgress]) until the call returns; a notification
// with another token, or of another connection, is ignored. Cancelling
// the call's context sends notifications/cancelled (the SDK does).
// [Set.Prompts] lists the prompts of the servers up now (not waiting for
// a start; [Set.Watch] says when a server comes up or its prompts change,
// after notifications/prompts/list_changed), each offered as the command
// /<server>:<prompt>; [Set.GetPrompt] runs one with the text typed after
// the command ([Prompt.ParseArgs]: name=value pairs of its arguments, else
// the whole text as its first) and returns its messages as event.Content.
// [Set.Instructions] is what the servers up said in initialize's
// instructions, under "# Instructions from MCP server NAME:", each cut to
// MaxInstructions characters with a note.
//
// # Client capabilities
//
// The client advertises roots (listChanged), elicitation (form) and
// sampling, so that servers show the tools that need them. roots/list
// answers the set's roots (Options.Roots, else Cwd; [Set.SetRoots]
// replaces them and sends notifications/roots/list_changed). A server's
// elicitation/create or sampling/createMessage is answered in the
// context of the call it belongs to: the ctx the caller gave Set.Call
// ([WithCall] names the session and call; [CallOf] reads it), which the
// SDK passes to the handlers of a multi-round-trip call's input requests;
// a request the server sends on its own is taken to be about its call in
// flight (the latest, when several run). Elicitation goes to
// Options.Elicit; URL mode, a request outside a call and a host without
// Elicit are declined. Sampling is refused with one line saying how to
// allow it unless ServerConfig.Sampling (mcp.json "sampling": true); then
// Options.Sample serves it, text only.
//
// # Supervision
//
// Each server is starting, up, restarting or failed. A server that fails
// to start — its name, where it was configured, what failed, what to do —
// or dies (its process exits, its connection closes, a call finds it dead
// or not answering within Options.CallTimeout: that call is an error
// result with its last stderr lines) keeps its last list of tools: the
// next Tools or Call starts it again once its pause is over
// (Options.Backoff, 1 s, doubled per failure up to MaxBackoff, 30 s; a
// call waits for the pause and the start, one start per call), a server
// whose first start failed too. A server that ran longer than
// RestartWindow before it died starts over with the short pause. When
// RestartWindow (60 s) already holds RestartBudget (5) restarts, the next
// failure leaves it down for the session: its tools stay listed, each
// described "Unavailable: MCP server NAME is down: why (…)", and a call
// gets that line. Every change of state, and each configuration Start
// refuses, goes to Options.OnStatus as a [Status], in order, from a
// goroutine of the Set's (never under its locks); a Status marked Notice
// is one a person should be told, once per failure: a start that failed
// (not the retries that fail after it), a death, the budget spent, a
// refused entry — and a server up again after one. Its Err and Stderr are
// redacted as every error is. A failure is logged as a warning, or at info
// level when OnStatus takes it (the front end shows it).
//
// [Set.Servers] describes each server for a listing (`harness plugins`):
// transport, command or redacted URL, source, state and tools (the last
// list while it is not up), and why it is not up.
//
// # Processes
//
// A stdio server runs as the plugins do, started by
// pluginhost.StartSupervised: in the session's folder, in its own process
// group, with the allow-listed part of the host's environment
// (pluginhost.PluginEnv with the host's --plugin-env names) plus the env
// its configuration gives it — never the host's other variables, so never
// the host's API keys. Its stdin and stdout are the MCP pipe (the host's own
// never reach it); its stderr goes to the host's log line by line. On
// Linux it runs under a keeper, as the plugins and harness-llm do
// (package host/keeper: the host's binary run again, when its main hands
// os.Args to keeper.Main first), a child
// subreaper on the same pipes that ends as the server does and, when the
// server ends, kills what it left — in another session or behind a double
// fork too; when the host dies, even by SIGKILL, the keeper SIGKILLs the
// server and all below it. Provenance names the server's command and pid,
// not the keeper's. [Set.Close] closes its stdin, gives it two seconds,
// then kills the server's process group and has the keeper kill all else
// below it.
// A server whose configuration asks for a sandbox (ServerConfig.Sandbox
// "workspace-write" or "read-only", Network "off" or "on") is started
// with the supervisor Options.Confine gives (the engine's: a keeper that
// confines it, as it confines plugins); when Confine is nil or says it
// cannot confine here, the server is not started — one warning line
// saying why — and never runs unconfined. Without the key ("" or "off")
// it runs as before, with the user's rights. [ServerInfo].Sandbox and
// the "MCP server connected" log line say how each stdio server runs.
// Without a keeper (not Linux, or a main that does not call keeper.Main)
// the server is the host's child: on Linux the kernel SIGKILLs it when the
// host dies (Pdeathsig), and what it started is killed, with its process
// group, only on Close.
//
// # Secrets
//
// Env values, header values and a URL's password, query and fragment are
// passed to the server and never logged: they are replaced by
// "[redacted]" in its stderr lines and in every error, and provenance
// ([event.MCPServer]) holds the command without arguments or the URL
// without credentials or query.
//
// # Configuration files
//
// [ParseFile] reads Claude Code's mcp.json shape, {"mcpServers": {NAME:
// {"command", "args", "env"} | {"type": "http"|"sse", "url", "headers"}}},
// with its ${VAR} and ${VAR:-default} expansion, plus harness's own
// "sampling" key (true lets the server sample the session's model),
// "startTimeout" (seconds) and "sandbox" and "network" keys for a stdio server (a bad value, network
// "on" without a sandbox, or either key on an http or sse server is one
// error naming the file and the server, and that server is left out): the shape users already
// have for Claude Code and that other agents read too, so that a server
// configured once works here as it is. The user's file is
// $XDG_CONFIG_HOME/harness/mcp.json (the engine names it), [ProjectFile] a
// project's (.mcp.json in the session's folder). [LoadFile] refuses a file
// another user could have written — owned by a user other than this one
// or root, or writable by group or others (package ownership) — since its
// servers are commands harness would run.
//
// [Sources] gathers a session's servers (the user's file, the project's
// only when trusted, then the front end's, a later one replacing an
// earlier one of the same name); [Sessions] keeps each session's [Set],
// started per session, lent to its running child sessions, stopped when
// the session closes, and tells Sessions.OnStatus of each session's
// statuses, what a file left out (StatusInvalid, a Notice) included.
package mcpclient
