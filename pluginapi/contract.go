package pluginapi

import "github.com/harness-dev/harness/pluginapi/internal/contract"

// The protocol's data types are declared in pluginapi/internal/contract,
// which both sides' protobuf mapping (pluginapi/internal/convert) reads
// and writes; these aliases are their names here. Their fields are
// documented there (go doc github.com/harness-dev/harness/pluginapi/internal/contract).

// CallerKind says who makes a call.
type CallerKind = contract.CallerKind

// ToolSpec describes one tool.
type ToolSpec = contract.ToolSpec

// Meta is what an editor shows of a call besides its text (ACP's tool
// call title, locations and diff content). Every field is optional.
// Since minor 2.
type Meta = contract.Meta

// Location is a file a call reads or changes.
type Location = contract.Location

// Diff is a change to one text file, as whole texts.
type Diff = contract.Diff

// Description is what a plugin says about itself (Describe).
type Description = contract.Description

// CallRequest is one tool call, with its context as fields.
type CallRequest = contract.CallRequest

// CallSandbox is the sandbox setting a call carries (minor 4): what the
// bash plugin confines each command of the call to. The host records the
// same value on the call's tool/call event.
type CallSandbox = contract.CallSandbox

// Event is an event a plugin proposes for the caller's session. The host
// checks the type against the plugin's declared EventTypes and appends it
// right before the call's tool/result. A plugin never writes the log.
type Event = contract.Event

// Result is the one result of a call. A failure the model can act on is a
// Result with IsError set, never a Go error.
type Result = contract.Result

// Todo is one item of a session's todo list, as HostServices.ReadState
// returns it.
type Todo = contract.Todo

// ReadStateRequest asks for a session's state.
type ReadStateRequest = contract.ReadStateRequest

// ReadStateResponse is a session's current state, projected from its log.
type ReadStateResponse = contract.ReadStateResponse

// PermissionRequest asks the user, through the host, whether a running call
// may do something (a plugin's own question, beyond the host's check of
// NeedsPermission tools before they run).
type PermissionRequest = contract.PermissionRequest

// PermissionResponse is the user's answer. Reason says why when denied;
// it is meant for the model.
type PermissionResponse = contract.PermissionResponse

// SubagentRequest asks the host for a child agent session.
type SubagentRequest = contract.SubagentRequest

// SubagentResult is a child's final answer. IsError marks a child that gave
// no answer (cancelled, failed, over a budget); Text then says why.
type SubagentResult = contract.SubagentResult

// ReadTextFileRequest names a file of a session.
type ReadTextFileRequest = contract.ReadTextFileRequest

// WriteTextFileRequest is new text for a file of a session.
type WriteTextFileRequest = contract.WriteTextFileRequest

// TextFile is a file's text and where it came from or went: SourceEditor
// or SourceDisk. A write's answer has no Content.
type TextFile = contract.TextFile

// Caller kinds.
const (
	CallerAgent = contract.CallerAgent // the agent loop of a session
	CallerNone  = contract.CallerNone  // no session: a conformance check, a direct invocation
)

// Where a text file was read or written.
const (
	SourceEditor = contract.SourceEditor
	SourceDisk   = contract.SourceDisk
)

// Capabilities is what a plugin's process needs beyond the default
// confinement hosts launch plugins under (see contract.Capabilities for
// its fields and rules). Since minor 4.
type Capabilities = contract.Capabilities

// The words of Capabilities' Write and Read lists besides absolute paths.
const (
	CapCwd  = contract.CapCwd
	CapTemp = contract.CapTemp
	CapHome = contract.CapHome
)
