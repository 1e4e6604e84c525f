package agent

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
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
	// is already JSON.
	AppendRaw(t event.Type, data json.RawMessage) (event.Event, error)
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

// Tool is one tool the model may call, as the toolbox lists it.
type Tool struct {
	Spec llm.ToolSpec
	// ConcurrencySafe tools may run together with other such calls of the
	// same step.
	ConcurrencySafe bool
	// NeedsPermission tools run only once the Approver allows the call.
	NeedsPermission bool
	// Kind is what kind of action the tool takes, as its plugin declared
	// it in ACP's ToolKind vocabulary: read, edit, delete, move, search,
	// execute, think, fetch or other; empty when it declared none. The
	// loop records it on each tool/call; permission modes decide by it.
	Kind string
	// Plugin names the binary serving the tool when the list was taken; the
	// loop records it on each tool/call.
	Plugin *event.Plugin
	// Sandboxes says the tool's plugin runs its commands in the sandbox
	// the host sends with each call (its Sandboxes capability): Loop.Sandbox
	// gives such a call one.
	Sandboxes bool
	// MCP names the MCP server serving the tool, for an MCP server's tool;
	// the loop records it on each tool/call.
	MCP *event.MCPServer
}

// Call is one tool call, with its context as fields.
type Call struct {
	SessionID string
	Turn      int
	Step      int
	CallID    string
	Name      string
	// Args is the model's raw JSON text.
	Args string
	Cwd  string
	// Plugin is the binary the step's tool list named for the tool; a
	// toolbox that hot-reloads routes the call to it while it drains.
	Plugin *event.Plugin
	// Sandbox is the sandbox the call's tool/call records (Loop.Sandbox),
	// for the toolbox to send with the call; nil: none.
	Sandbox *event.CallSandbox
	// Progress, when not nil, takes the call's live output; the loop
	// forwards it to a Live that implements ToolProgress. It is not logged.
	Progress func(text string)
}

// Emitted is an event a tool proposes; the loop appends it right before
// the call's tool/result.
type Emitted struct {
	Type event.Type
	Data json.RawMessage
}

// Result is what a tool call produced. A failure the model can act on is a
// Result with IsError, not a Go error.
type Result struct {
	Content string
	IsError bool
	Events  []Emitted
	// Meta is what the tool said the call did, for the editor; the loop
	// records it on the tool/result.
	Meta Meta
}

// Meta is what an editor shows of a call besides its text: a title, the
// files it touches, the changes it makes.
type Meta struct {
	Title     string
	Locations []event.Location
	Diffs     []event.Diff
}

// Previewer is implemented by a Toolbox that can say what a call would do
// before it runs: the loop asks it right before it logs the call's
// tool/call, which carries the answer, so that the editor shows the diff
// of an edit before the user is asked about it. Preview must not change
// anything, and returns the zero Meta when it has nothing to say.
type Previewer interface {
	Preview(ctx context.Context, c Call) Meta
}

// Toolbox lists and runs tools. host/toolbox implements it with plugins.
type Toolbox interface {
	// Tools returns the tools available now. The loop takes the list once
	// per step and keeps it for that step.
	Tools() []Tool
	// Call runs one call. It must return promptly once ctx is done. It may
	// be called concurrently for ConcurrencySafe tools.
	Call(ctx context.Context, c Call) Result
}

// ToolHolder is a Toolbox that can keep the processes serving a tool list
// alive while a step uses it. The loop prefers HoldTools to Tools: it takes
// the list at the start of each step and calls release when the step ends,
// so that every tool/call of the step names the binary and pid that serve
// it, even when a hot reload replaced the plugin while the model thought.
type ToolHolder interface {
	HoldTools() (tools []Tool, release func())
}

// ApprovalRequest asks whether a tool call may run.
type ApprovalRequest struct {
	SessionID string
	Turn      int
	Step      int
	CallID    string
	Tool      string
	// Kind is the tool's kind (Tool.Kind).
	Kind string
	// Args is the model's raw JSON text.
	Args string
	// Title, when set, is how the question names the call (a subagent's
	// call names the subagent); the loop leaves it empty.
	Title string
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
