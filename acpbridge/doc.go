// Package acpbridge is the agent side of the Agent Client Protocol (ACP v1):
// it lets an editor such as Zed drive the host over JSON-RPC lines on stdio.
// It turns ACP calls into calls on an [Agent] and a [Session], and the
// session's events into session/update notifications. It is built on
// github.com/coder/acp-go-sdk, which nothing else in harness imports; it
// reads host/event and declares everything else it needs here.
//
// # Methods
//
// [Serve] answers initialize with protocol version 1, loadSession, the
// session capabilities list, resume and close, and prompts of text,
// resource links and embedded text resources (embeddedContext); no images,
// audio or authentication. MCP servers go to an Agent that implements
// [MCPAgent]: initialize advertises the transports it takes
// (mcpCapabilities; stdio always), and the mcpServers of session/new,
// load and resume — those of a session newly opened on the connection —
// are handed to ConnectMCP (a server of a transport not advertised is
// dropped with a warning naming it; env and header values are never
// logged). An Agent without it gets none (one warning). A prompt block of any other kind —
// an image, audio, an unknown type, a block without a type — is answered
// -32602 naming the block and its type, and no turn runs; an embedded
// resource that is binary or has no text goes to the model as a link to its
// URI. session/new creates a session; a cwd the host refuses
// ([ErrInvalidCwd]: missing, not a directory) is answered -32602, and a
// failed session/new leaves no session behind;
// session/load opens one, replays its whole conversation and only then
// answers; session/resume opens one without replay; session/list lists the
// host's sessions, those of the cwd asked only; session/close cancels the
// session's turn, waits for it and closes the session. A session id not
// open on the connection (prompt, close) or unknown to the host (load,
// resume) is answered -32002 with data.sessionId.
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
// (the SDK cancels it) and runs when it has ended. Sessions are
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
//   - tool/call → tool_call (status pending, a title and kind per tool,
//     rawInput the parsed arguments), then tool_call_update in_progress;
//   - tool/result → tool_call_update completed or failed, the result as
//     text content and rawOutput {content, isError};
//   - todo/write → plan, the complete list, every entry of priority
//     "medium" (priority exists only at this boundary).
//
// Tools are shown as: bash → kind execute, the command as title;
// todo_write → "Update todo list", kind other; any other tool → its name,
// kind other. Message chunks carry a messageId derived from the session,
// turn and step, the same live and on replay, so a replayed transcript
// equals the live one once adjacent chunks of a message are joined.
//
// # The wire
//
// Serve reads the client's messages itself before the SDK sees them, so
// that bad input costs an error, never the connection: a line that is not
// JSON is answered -32700, a non-object or a batch -32600, and a message
// over Options.MaxMessageBytes (8 MiB by default) -32600 naming the limit,
// with the request's id when it is found at the start of the line. Unknown
// methods are answered -32601 by the SDK. Serve writes ACP messages to out
// and nothing else (session/update lines are encoded with the SDK's types
// and written by the bridge itself, so that a replay can batch them);
// diagnostics go to Options.Logger — the SDK's own slog records too, under
// the name jsonrpc, with groups as dotted keys, and none once Serve has
// returned. When the input ends
// (the editor closes stdin), running turns are cancelled, given
// Options.ShutdownGrace (500 ms) to write their turn/end, and every session
// is closed before Serve returns.
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
