// Package acpbridge is the agent side of the Agent Client Protocol (ACP v1):
// it lets an editor such as Zed drive the host over JSON-RPC lines on stdio.
// It turns ACP calls into calls on an [Agent] and a [Session], and the
// session's events into session/update notifications. It takes ACP's types
// and constants from github.com/coder/acp-go-sdk, which nothing else in
// harness imports, and speaks JSON-RPC through its own connection
// (acpbridge/internal/jsonrpc); it reads host/event and declares everything
// else it needs here.
//
// # Methods
//
// [Serve] answers initialize with protocol version 1, loadSession, the
// session capabilities list, resume and close, and prompts of text,
// resource links, embedded text resources (embeddedContext) and images
// (promptCapabilities.image is Options.Images: the default model takes
// them); no audio or authentication. An Agent that implements [DirsAgent]
// gets sessionCapabilities.additionalDirectories too: session/new hands
// its additionalDirectories to NewSessionWithDirs, session/load and
// session/resume set the complete list on the session ([DirsSession]; none
// when omitted); a relative folder, one the agent refuses
// ([ErrInvalidDirs]) or any for an agent without them is -32602 naming it,
// and a refused session/new makes no session; session/list carries
// SessionInfo.AdditionalDirectories. MCP servers go to an Agent that implements
// [MCPAgent]: initialize advertises the transports it takes
// (mcpCapabilities; stdio always), and the mcpServers of session/new,
// load and resume — those of a session newly opened on the connection —
// are handed to ConnectMCP (a server of a transport not advertised is
// dropped with a warning naming it; env and header values are never
// logged). An Agent without it gets none (one warning). A Session that
// implements [Noticer] has notices (harness: its MCP servers' failures),
// each sent once after the editor knows the session, as ACP's notice or
// an agent message of its own (notices.go), never logged in the session. An image block
// reaches Session.Prompt as event.ContentImage with its decoded bytes in
// Data (its MIME type must be image/*, its data base64), for the Session to
// store out of the log; a Session that refuses a prompt before any turn
// (harness: images for a model without image input) returns
// [ErrInvalidPrompt], answered -32602 with its reason. On replay an image
// shows as the text [image: <type>]. A prompt block of any other kind —
// audio, an unknown type, a block without a type, an image that is not
// one — is answered -32602 naming the block and its type, and no turn runs; an embedded
// resource that is binary or has no text goes to the model as a link to its
// URI. session/new creates a session; a cwd the host refuses
// ([ErrInvalidCwd]: missing, not a directory) is answered -32602, and a
// failed session/new leaves no session behind;
// session/load opens one, replays its whole conversation and only then
// answers; session/resume opens one without replay; session/fork (unstable
// in ACP; advertised as sessionCapabilities.fork only for a [ForkAgent])
// opens a new session holding another's history up to its last closed
// turn, with the request's MCP servers, answered as session/new is;
// session/list lists the
// host's sessions, those of the cwd asked only; session/close cancels the
// session's turn, waits for it and closes the session. A session id not
// open on the connection (prompt, close) or unknown to the host (load,
// resume) is answered -32002 with data.sessionId. An agent that cannot
// serve sessions for want of a credential ([ErrAuthRequired]: no API key)
// has session/new, load and resume answered -32000 "Authentication
// required: <its reason>". initialize lists one auth method per
// environment variable a key is read from (Options.KeyVars): ACP v1's
// agent type, id "env:<VAR>", _meta.envVar the variable; a key comes
// from the agent's environment only, so authenticate with one succeeds
// when the agent has that key and is answered -32000 naming the variable
// when it has not.
//
// # Config options and usage
//
// A Session that implements [Configurable] has config options: session/new,
// session/load and session/resume answer configOptions (select options:
// the model, category "model"; the reasoning effort, category
// "thought_level", for a model with levels; harness adds a read-only one,
// "sandbox", one value naming the session's sandbox). session/set_config_option
// switches one for the session's next step (the Session logs it), sends
// config_option_update with the full list, then answers with it; an
// unknown option or value ([ErrInvalidOption]), a boolean value, or a
// session without options is answered -32602. After every step of a live
// turn (each assistant/message) the bridge sends usage_update: used (the
// tokens in the context now), size (the model's window; nothing is sent
// while it is unknown) and cost (the session's so far, when every step's
// model has prices).
//
// # Slash commands
//
// A Session that implements [Commander] has slash commands: the bridge
// sends available_commands_update listing them after session/new's
// response (an editor knows the session only once it has the response),
// after session/load's replay and on session/resume (before their
// responses). A prompt "/name …" reaches Session.Prompt as
// typed: running a command is the Session's business (harness: engine's
// Runtime.Prompt). After a context/compact — /compact's or an automatic
// one — usage_update shows the compacted history's size. A Commander
// that is a [CommandWatcher] (harness: its MCP servers' prompts,
// /server:prompt) is watched from the first list on, and each change
// sends the whole list again, in order.
//
// # MCP servers' questions
//
// The Live a turn gets is an [Elicitor]: an MCP server's question during
// tool call callID goes out as elicitation/create in form mode, scoped to
// the session and the call (its tool_call update first), when the
// client's initialize advertised elicitation.form; otherwise it is
// declined unasked. The request's type is the bridge's own (the SDK's
// lacks the session scope). An answer other than accept, decline or
// cancel is an error.
//
// # Titles
//
// A Session that implements [Titled] has a title (harness: the first
// prompt on one line, cut to 100 runes; derived from the log). The bridge
// sends session_info_update {title, updatedAt} once the session's first
// user/message is logged, and again after session/load's replay;
// session/list returns the same title.
//
// # Modes
//
// When Options.Modes lists modes and the session implements [ModeSession]
// (harness: its permission modes), session/new, session/load and
// session/resume answer modes {currentModeId, availableModes with names
// and descriptions}. session/set_mode switches the session's mode (the
// session records it; a turn running applies it to what it has not
// decided yet), sends current_mode_update, then answers; an unknown mode
// id is answered -32602 naming the modes, a mode the session refuses now
// (SetMode's error marked with [ModeUnavailable]: harness's auto where
// the sandbox cannot hold it) -32602 with its reason and no update, a
// session not open -32002.
// Without modes set_mode is answered -32601. A replay shows no mode
// changes: the load answer carries the current mode.
//
// # Turns
//
// session/prompt runs one turn with Session.Prompt. Text and reasoning
// stream live as agent_message_chunk and agent_thought_chunk from the
// deltas; everything else comes from the session's log, followed as it is
// written. Every update of the turn is written before the response, whose
// stopReason maps the turn/end reason: completed → end_turn, max_steps →
// max_turn_requests, max_tokens, refusal, cancelled. A turn that fails
// answers a JSON-RPC error (-32603, "turn failed: <cause>", data.reason
// "error"). session/cancel cancels the turn, whose final updates still go
// out; the prompt then answers stopReason cancelled, never an error. A
// session runs one turn at a time: a second prompt supersedes the first
// (it cancels the first) and runs when that has ended. Sessions are
// independent: several may run turns at once on one connection.
//
// # One translator
//
// Live turns and load replay go through the same translation of events:
//
//   - user/message → user_message_chunk per block (replay only: a live
//     prompt is not echoed);
//   - assistant/message → agent_thought_chunk, then agent_message_chunk
//     (replay only: live, the deltas carry them);
//   - tool/call → tool_call (status pending, the kind the tool's plugin
//     declared, a title, rawInput the parsed arguments, and what the
//     plugin's preview said: locations and, for a change to a file, diff
//     content); it stays pending while it awaits approval, and
//     tool_call_update in_progress follows once it runs: on an allowing
//     permission/decision, when the loop starts it (agent.ToolStart) or,
//     on replay, at the next event (a rejected call goes from pending to
//     failed);
//   - tool/result → tool_call_update completed or failed, the result as
//     text content and rawOutput {content, isError}; a completed call
//     keeps its diffs (the result's, else the tool_call's) before the text
//     and takes the result's title and locations; a failed one shows its
//     text alone, since nothing was changed; the result's images
//     (event.ToolResult.Images: an MCP tool's) follow as image content,
//     read from the session's blobs when the Session is a [BlobSession]
//     (else, or when a blob is gone, a text line names the image); a call
//     run in the editor's terminal (Options.Terminal, RunInTerminal:
//     terminal/create, wait_for_exit, output, release) shows the terminal
//     as content while it runs and first on this update;
//   - todo/write → plan, the complete list, every entry of priority
//     "medium" (priority exists only at this boundary);
//   - context/compact → compaction_update completed with the summary when
//     the client advertised clientCapabilities.session.compaction (live, the
//     summary streams before as compaction_summary_chunk after an
//     in_progress compaction_update); for any other client an agent message
//     "Compacting context (auto)… done: ~N → ~M tokens." (compact.go).
//
// The kind is the one the plugin declared (ACP's ToolKind; none or an
// unknown one shows as other). The title is the one the host logged with
// the call: the plugin's preview title ("Edit src/main.go"), else the
// title its tool declares (pluginapi.ToolSpec.Title: bash its command,
// todo_write "Update todo list", subagent "Subagent: <description>");
// a call logged without one (a tool that declares none, a log written
// before tools declared titles) shows the tool's name. The bridge knows
// no tool by name. A call of an MCP server's tool (tool/call's mcp set),
// titled "server: title", carries the raw name the model called in
// _meta {"harness": {"tool": "mcp__server__tool", "mcpServer": "server"}}.
// session/request_permission carries what the call's tool_call shows:
// title, kind, rawInput, locations, the diff and _meta. A tool's live
// output (ToolProgress: bash's output, an MCP server's progress) is a
// tool_call_update whose text content is its tail so far, until the
// result replaces it; it is not logged. Message chunks carry a messageId derived from the session,
// turn and step, the same live and on replay, so a replayed transcript
// equals the live one once adjacent chunks of a message are joined.
//
// # The editor's files
//
// When the client's initialize offers fs.readTextFile / fs.writeTextFile,
// the turn's Live (the value Session.Prompt gets) reads and writes files
// through the editor: EditorFiles, ReadEditorFile (fs/read_text_file, the
// buffer with unsaved changes) and WriteEditorFile (fs/write_text_file,
// sent after the call's tool_call and its permission question). The host
// routes the plugins' text files of the turn to it (engine.EditorFiles);
// without the capability they come from disk.
//
// # The wire
//
// Serve owns the transport: one connection (acpbridge/internal/jsonrpc)
// decodes every line once, into an envelope whose params the method's
// handler decodes into the SDK's type for it. Bad input costs an error,
// never the connection: a line that is not JSON is answered -32700, a
// non-object or a batch -32600, and a message over
// Options.MaxMessageBytes (DefaultMaxMessageBytes) -32600 naming the
// limit, with the request's id when it is found at the start of the line;
// params that do not fit the method -32602; unknown methods -32601
// (unknown notifications are ignored, never answered). Requests are served
// concurrently and answered in any order; $/cancel_request cancels the
// request it names (a prompt then answers stopReason cancelled). The
// bridge's own requests to the editor (session/request_permission,
// fs/read_text_file, fs/write_text_file) are matched to their responses by
// id. Serve writes ACP messages to out and nothing else, each
// session/update encoded with encoding/json from the SDK's types (a replay
// writes them in batches); diagnostics go to Options.Logger — the
// connection's slog records under the name jsonrpc, with groups as dotted
// keys, and none once Serve has returned. When the input ends (the editor
// closes stdin), running prompts are cancelled and the other requests
// already read are still answered (up to 5 s: a client may send and close
// at once); then running turns are given Options.ShutdownGrace
// (DefaultShutdownGrace) to write their turn/end and their prompt's answer,
// every session is closed, and nothing is written after Serve returns.
//
// # Zed
//
// `harness acp` serves this on stdio. In Zed's settings.json:
//
//	"agent_servers": {
//	  "harness": {
//	    "type": "custom",
//	    "command": "/path/to/harness",
//	    "args": ["acp"],
//	    "env": {
//	      "HARNESS_PROVIDER": "deepseek",
//	      "DEEPSEEK_API_KEY": "sk-…"
//	    }
//	  }
//	}
//
// For a local OpenAI-compatible server use "HARNESS_PROVIDER": "openai",
// "HARNESS_BASE_URL": "http://localhost:11434/v1" and "HARNESS_MODEL".
package acpbridge
