package agent

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
)

// Model streams one model answer. Providers in host/llm/... implement it.
// Stream is called from the loop's goroutine, once per step; the sequence
// follows the contract in package llm's doc.
type Model interface {
	Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error]
}

// SessionLog is the log the loop records into. host/session implements it.
// The loop is its only writer while a turn runs.
type SessionLog interface {
	// ID is the session id.
	ID() string
	// Cwd is the session's working directory.
	Cwd() string
	// Append validates p against the log's structure (an open turn, step
	// numbering, …), writes it and returns the logged event. It does not
	// fsync.
	Append(p event.Payload) (event.Event, error)
	// AppendRaw appends an event of a plugin-declared type whose payload
	// is already JSON, checking it as event.Propose does.
	AppendRaw(t event.Type, data json.RawMessage) (event.Event, error)
	// AppendProposed appends an event checked when it was proposed
	// (event.Propose): the log checks only what it alone can tell, its
	// place in the turn structure and a host type's payload.
	AppendProposed(p event.Proposed) (event.Event, error)
	// Messages returns the model history derived from the surface events.
	// The caller must not modify the slice.
	Messages() []llm.Message
	// LastTurn is the number of the last turn started in the log, 0 if none.
	LastTurn() int
	// Always returns the "always" permission answers the log holds for a
	// tool, in log order; the loop hands them to the Approver.
	Always(tool string) []event.Permission
	// Sync makes everything appended so far durable.
	Sync() error
}

// Tools is where the loop gets each step's tools. Package engine
// composes it: the plugin toolbox's step (host/toolbox), then the
// session's MCP servers' tools; a subagent's restrictions filter it.
type Tools interface {
	// Step returns the tool set of one step. The loop calls it once at the
	// start of each step and closes the set when the step's calls have all
	// ended. An error ends the turn.
	Step(ctx context.Context, s StepInfo) (Step, error)
}

// StepInfo says which step of which session a tool set serves.
type StepInfo struct {
	SessionID string
	// Cwd is the session's working directory: the plugins the step starts
	// are confined to it.
	Cwd  string
	Turn int
	Step int
}

// Step is the tool set of one step: the tools the model is sent, and
// what runs their calls. It holds what serves the tools (the plugin
// processes its list names) until Close, so that every tool/call of the
// step names the process that serves it, even when a hot reload replaced
// the plugin while the model thought. Warm and Tool are called from the
// loop's goroutine; Preview and Call concurrently, for ConcurrencySafe
// tools.
type Step interface {
	// Tools lists the step's tools, as the model is sent them.
	Tools() []tool.Tool
	// Warm is told a tool's name as soon as the model's answer names it:
	// a set whose tools start on first use starts the tool's process now,
	// concurrently with the rest of the answer. It does not block.
	Warm(name string)
	// Tool returns the list entry of the tool name once a warm start of it
	// has ended, its Plugin naming the process that serves it now. The
	// loop takes it after the answer, before it logs the call's tool/call.
	Tool(name string) (tool.Tool, bool)
	// Preview says what c would do, without running it: the loop asks it
	// right before it logs the call's tool/call, which carries the answer,
	// so that the editor shows the diff of an edit before the user is
	// asked about it. It must not change anything, and returns the zero
	// Meta when it has nothing to say.
	Preview(ctx context.Context, c tool.Call) tool.Meta
	// Call runs one call. It must return promptly once ctx is done.
	Call(ctx context.Context, c tool.Call) tool.Result
	// Close releases what the step holds; it waits for warm starts still
	// running. It is called once.
	Close()
}

// Unlisted is implemented by a Step that can say why a tool it does not
// list cannot be called yet (a tool deferred behind a search): the result
// of a call of it is that line, which tells the model what to do, instead
// of `unknown tool`.
type Unlisted interface {
	Unlisted(name string) (why string, ok bool)
}

// ApprovalRequest asks whether a tool call may run.
type ApprovalRequest struct {
	SessionID string
	Turn      int
	Step      int
	CallID    string
	Tool      string
	// Kind is the tool's kind (tool.Tool.Kind).
	Kind string
	// MCP names the MCP server serving the tool, for an MCP server's tool
	// (tool.Tool.MCP): the approver weighs a server's read-only hint.
	MCP *event.MCPServer
	// Args is the model's raw JSON text.
	Args string
	// Title, when set, is how the question names the call (a subagent's
	// call names the subagent); the loop leaves it empty.
	Title string
	// ToolTitle is an MCP tool's title for people (tool.Tool.Title:
	// "server: title"), which the question names the call by when Title
	// is empty, the raw name (Tool) in its details; "" for other tools.
	ToolTitle string
	// Always holds the session's earlier "always" answers about Tool (see
	// SessionLog.Always). The Approver decides whether one covers this call:
	// the loop never skips it, so its deny rules always apply.
	Always []event.Permission
	// Once marks a question whose answer holds for this request only (a
	// plugin's own question through the host services): no "always" is
	// offered, and one given anyway counts once.
	Once bool
	// Sandbox is the sandbox the call runs under, as its tool/call
	// records it (Loop.Sandbox; nil: none known).
	Sandbox *event.CallSandbox
}

// Approval is the answer to an ApprovalRequest.
type Approval struct {
	Decision event.Decision
	// Source says who decided (event.Permission's Source).
	Source event.Source
	// Scope is what a user's "always" answer covers (event.Permission's
	// Scope); the loop records it. Kind, when set, says the answer covers
	// every call of that kind (event.Permission's Kind).
	Scope []string
	Kind  string
	// Reason is what the model is told when the call is rejected; empty
	// means "permission denied by user".
	Reason string
}

// Approver decides on calls to tools that need permission; it may ask the
// user (the editor or the terminal) and block until they answer. It is
// called from the loop's goroutine, one call at a time, after the call's
// tool/call is logged. It returns ctx.Err() when ctx ends first; the turn
// then ends cancelled.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// Live receives what happens during a turn as it happens, including what is
// never logged: text and reasoning deltas. Methods are called from the loop's
// goroutines and must not block for long; durable events reach followers of
// the session in order regardless.
type Live interface {
	// TextDelta is a piece of the model's answer text.
	TextDelta(sessionID, text string)
	// ReasoningDelta is a piece of the model's reasoning.
	ReasoningDelta(sessionID, text string)
}

// ToolProgress is implemented by a Live that shows tools' live output. It is
// called from the goroutine running the call; calls of one tool call come in
// order and end before its tool/result is appended.
type ToolProgress interface {
	ToolProgress(sessionID, callID, text string)
}

// ToolStart is implemented by a Live that shows when a tool call starts
// running: after its tool/call and, for a call that needed permission, its
// allowing permission/decision are logged, right before the tool is
// called. It is called from the loop's goroutine.
type ToolStart interface {
	ToolStart(sessionID, callID string)
}
