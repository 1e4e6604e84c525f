// Package engine is the harness runtime as a library: it keeps sessions,
// runs their turns, and holds their permission modes and options, wiring
// host/* together so that every front end (cmd/harness's terminal, the
// ACP agent, a program embedding harness) is "Config → New → these
// operations". It sits above host/* and pluginapi and below the front
// ends: it imports neither acpbridge nor cmd (see arch_test.go). The name: "the
// host" is the harness process (docs/architecture.md) and host/* its
// packages, which this one composes; what runs turns is an engine.
//
// # Contract
//
// New is the one constructor; a Runtime is never built as a literal or
// patched after New (everything a front end decides goes into Config).
// New refuses a state folder another user could write (host/ownership);
// CreateSession and StartTools create a missing one 0700 whatever the
// umask. A Runtime writes nothing to stdout; it logs to Config.Logger.
// Close waits for background work and stops the plugins.
//
// Tools: StartTools registers the plugins (started on first use, stopped
// after Config.PluginIdle), confined by host/confine's Plugins when
// Config.ConfinePlugins; a Runtime without tools runs turns with none.
// The plugins' host services are host/services.Host over the Runtime's
// open sessions and running turns. ConnectMCP starts a session's MCP
// servers (the user's mcp.json, the project's .mcp.json when
// Config.MCPProject trusts it, the front end's), whose tools join the
// plugins' as mcp__<server>__<tool>, with mcp_read_resource while one of
// them is up and advertises resources (a read: allowed in every mode
// like a readOnlyHint tool); MCPServers lists the configured ones. An MCP
// call's progress is its live output (tool.Call.Progress), and its result
// is capped as bash's output is: 30,000 characters, the whole text
// spilled (0600) to <StateDir>/sessions/<id>/mcp-<turn>-<step>-<call>.txt,
// named in the result (mcpcap.go). An MCP result's images are stored as
// blobs of the call's session before its tool/result names them; a model
// without image input is sent, for each, a note saying it does not take
// images.
// Their prompts are slash commands /<server>:<prompt> (MCPPrompts,
// WatchMCPPrompts; Prompt runs one), their instructions join each request's
// system prompt, their roots are the session's folder and added folders,
// and their questions during a call go to the running turn's front end
// (an Elicitor among its Live and Asker; none: declined; a subagent
// child's, to its root turn's, on the parent's call); sampling, once
// a server's entry allows it, is asked through the turn's Asker and
// served by the session's model (mcpcaps.go).
// They start in the background (the first step waits Config.MCPStartWait,
// 2 s, at most) and are supervised (mcpclient: restarted with backoff
// within a budget, then listed as down); WatchMCP gives a front end its
// session's MCP statuses — the notices of failures kept until one
// watches — which it shows and never logs.
// When a step's tool schemas pass Config.ToolBudget percent of the
// session's window (10 by default), the tools beyond the built-in
// plugins' — the MCP servers' first, then third-party plugins' — are
// deferred behind ToolSearch (tool_search): its description lists them
// by name and one line (by name only when that would pass the budget),
// its result is their full schemas, and from the
// next step on they are sent in full; which it loaded is read from the
// session's history at every step. FixedContext measures what every
// request of a session takes besides the history (system prompt and
// tools) and Fixed.Warning says when that passes half the window.
//
// Sessions: CreateSession (CreateSessionWithDirs with folders the session
// adds), OpenSession and OpenOrCreateSession make a session known to the
// host services until CloseSession, which also stops its MCP servers and
// tells the plugins. A new session's log starts with its permission mode,
// its sandbox (sandbox/policy) and the model that serves it (config/option
// by host).
//
// Turns: Run runs one turn with the caller's live sink and asker: the
// policy decides, the asker answers what it asks, and the turn's approver
// also answers its subagents' and plugins' questions; a live sink that
// implements EditorFiles serves the plugins' text files, and one that also
// implements EditorTerminal (and says so) runs the bash plugin's
// foreground bash calls in the editor's terminals, outside the sandbox.
// ForkSession forks a session (session.Store.Fork). A turn logs the
// model and the sandbox again when they differ from the log's last. Prompt runs a slash command (host/slash) or a turn; Compact
// compacts the history in a turn of its own. Images are stored as blobs of
// the session first, or refused (ErrImagesUnsupported) when the session's
// model takes none.
//
// Modes: SessionMode is the last permission/mode of the log; SetSessionMode
// switches and logs it, also while a turn runs (the approver reads the mode
// at every decision). auto needs the sandbox to hold it: AutoRefusal says
// why not (confine.ErrAutoUnavailable) and a session in auto is then asked
// as in ask.
//
// Sandbox: Config.Sandbox (confine.Setting) is what every bash command runs
// under; a session may add folders (SetSessionDirs, checked by
// CheckSessionDir; a child inherits its parent's). The host is the
// authority: each call of a plugin with the Sandboxes capability gets
// confine.Call's sandbox, recorded on its tool/call and sent with the
// call; the plugins' environment carries the setting as their fallback.
//
// Options: Config.Models are the models a session may use, the default
// first (Config.OpenModels fills them the way harness does, with
// host/llm/providers). A session's model and reasoning effort are derived
// from its log (SetOption validates and logs a switch); every request is
// sent with the session's choice as of that request, to the provider
// serving that model. Usage prices a session's steps (host/pricing).
package engine
