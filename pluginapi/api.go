package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

// ProtocolVersion is the major version of the plugin protocol: the go-plugin
// handshake version and the proto package suffix (harness.plugin.v1).
const ProtocolVersion = 1

// ProtocolMinor is the additive revision of v1 this package speaks:
//
//   - 0: Describe, Configure, Execute, Cancel; HostServices.ReadState.
//   - 1: Configure carries the host's state dir ([ConfigureRequest.StateDir],
//     [Call.StateDir], [Call.SessionDir]); the SessionClosed RPC
//     ([Client.SessionClosed], [Plugin.SessionClosed]).
const ProtocolMinor = 1

// Magic cookie of the go-plugin handshake. It keeps a user from running a
// plugin by hand by mistake; it is not a security measure.
const (
	MagicCookieKey   = "HARNESS_PLUGIN_MAGIC_COOKIE"
	MagicCookieValue = "9c4e1f7a2b6d48e3a05c31d87f2e6b94"
)

// CallerKind says who makes a call.
type CallerKind string

// Caller kinds.
const (
	CallerAgent CallerKind = "agent" // the agent loop of a session
	CallerNone  CallerKind = "none"  // no session: a conformance check, a direct invocation
)

// ToolSpec describes one tool.
type ToolSpec struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments object.
	Schema json.RawMessage
	// ConcurrencySafe tools may run together with other such calls.
	ConcurrencySafe bool
	// NeedsPermission tools ask the user before they run (issue: permissions).
	NeedsPermission bool
}

// Description is what a plugin says about itself (Describe).
type Description struct {
	Name          string
	Version       string
	ProtocolMinor int
	Tools         []ToolSpec
	// EventTypes are the event types the plugin may propose in results.
	EventTypes []string
}

// CallRequest is one tool call, with its context as fields.
type CallRequest struct {
	Tool      string
	Args      json.RawMessage
	SessionID string
	Caller    CallerKind
	Turn      int
	CallID    string
	Cwd       string
}

// Event is an event a plugin proposes for the caller's session. The host
// checks the type against the plugin's declared EventTypes and appends it
// right before the call's tool/result. A plugin never writes the log.
type Event struct {
	Type string
	Data json.RawMessage
}

// Result is the one result of a call. A failure the model can act on is a
// Result with IsError set, never a Go error.
type Result struct {
	Content string
	IsError bool
	Events  []Event
	// HoldsState says that after this call the plugin holds state for the
	// call's session in its own process (bash's background tasks), so the
	// host must not stop it when idle until a later result of that session
	// says false or the session is closed (SessionClosed). A plugin sets it
	// for all its results with [Plugin.HoldsState]; hosts that predate it
	// ignore it.
	HoldsState bool
}

// Todo is one item of a session's todo list, as HostServices.ReadState
// returns it.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// ReadStateRequest asks for a session's state.
type ReadStateRequest struct {
	SessionID string
}

// ReadStateResponse is a session's current state, projected from its log.
type ReadStateResponse struct {
	Todos []Todo
	Cwd   string
}

// HostServices are the host's services a plugin may call back, over the
// go-plugin broker. The host implements them; a plugin reaches them through
// Call.Host. Methods not yet offered return an error wrapping
// ErrUnimplemented.
type HostServices interface {
	ReadState(ctx context.Context, req ReadStateRequest) (ReadStateResponse, error)
}

// PermissionRequest asks the user, through the host, whether a running call
// may do something (a plugin's own question, beyond the host's check of
// NeedsPermission tools before they run).
type PermissionRequest struct {
	SessionID string
	CallID    string
	Tool      string
	// Title is a one-line question shown to the user.
	Title string
	// Args is what the action is about, as JSON.
	Args json.RawMessage
}

// PermissionResponse is the user's answer. Reason says why when denied;
// it is meant for the model.
type PermissionResponse struct {
	Allowed bool
	Reason  string
}

// Permissions is implemented by a HostServices that can ask the user
// (HostServices.RequestPermission). On the plugin side, call
// [RequestPermission] rather than asserting it.
type Permissions interface {
	RequestPermission(ctx context.Context, req PermissionRequest) (PermissionResponse, error)
}

// RequestPermission asks the user through the host behind h. A host that
// cannot ask answers an error wrapping ErrUnimplemented.
func RequestPermission(ctx context.Context, h HostServices, req PermissionRequest) (PermissionResponse, error) {
	p, ok := h.(Permissions)
	if !ok {
		return PermissionResponse{}, fmt.Errorf("request permission: %w", ErrUnimplemented)
	}
	return p.RequestPermission(ctx, req)
}

// SubagentRequest asks the host for a child agent session.
type SubagentRequest struct {
	ParentSessionID string
	ParentCallID    string
	// Description is a short label of the task (a few words).
	Description string
	// Prompt is the child's instructions.
	Prompt string
}

// SubagentResult is a child's final answer. IsError marks a child that gave
// no answer (cancelled, failed, over a budget); Text then says why.
type SubagentResult struct {
	Text    string
	IsError bool
}

// Subagents is implemented by a HostServices that can run child agents
// (HostServices.SpawnSubagent). On the plugin side, call [SpawnSubagent]
// rather than asserting it.
type Subagents interface {
	// SpawnSubagent runs a child session to its answer, reporting its
	// progress as it goes. It returns when the child ends or ctx is done.
	SpawnSubagent(ctx context.Context, req SubagentRequest, progress Progress) (SubagentResult, error)
}

// SpawnSubagent asks the host behind h for a child agent. A host that
// offers none answers an error wrapping ErrUnimplemented.
func SpawnSubagent(ctx context.Context, h HostServices, req SubagentRequest, progress Progress) (SubagentResult, error) {
	s, ok := h.(Subagents)
	if !ok {
		return SubagentResult{}, fmt.Errorf("spawn subagent: %w", ErrUnimplemented)
	}
	return s.SpawnSubagent(ctx, req, progress)
}

// Progress receives the progress text of a running call (live output). It
// may be called from any goroutine of the handler, never after the handler
// returned.
type Progress func(text string)

// ErrUnimplemented is wrapped by errors of HostServices methods the host
// does not offer (gRPC Unimplemented).
var ErrUnimplemented = wire.ErrUnimplemented
