// Package contract declares the Go types of the plugin protocol's
// messages: what a plugin and a host exchange (a tool's spec, a call, its
// result, the host services' requests and answers), without the generated
// protobuf code. Package pluginapi names them by aliases (pluginapi.ToolSpec
// is contract.ToolSpec), which is how plugins and hosts use them; package
// convert maps them to and from the protobuf messages for both sides.
// Doc links in the comments below name pluginapi's identifiers.
package contract

import "encoding/json"

// CallerKind says who makes a call.
type CallerKind string

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
	// Kind is what kind of action the tool takes, in ACP's ToolKind
	// vocabulary (the Kind* constants): editors pick icons by it and
	// permission modes decide by it ("accept edits" covers edit, delete
	// and move). Empty means other. Since minor 2.
	Kind string
	// HasPreview says the tool answers Preview; the host calls Preview for
	// its calls and only for them. [Serve] sets it from [Tool.Preview]; a
	// plugin before minor 5 says nothing, and the host then calls Preview
	// for every call. Since minor 5.
	HasPreview bool `json:",omitempty"`
	// Title is the title of the tool's calls, computed by the host without
	// an RPC ([ExpandTitle]): a fixed text ("Update todo list") or one
	// naming top-level string arguments in braces ("{command}",
	// "Subagent: {description}"). A preview's or a result's [Meta.Title]
	// is the better one when set; empty means the tool's name. Serve
	// refuses a template naming what the tool's schema does not list among
	// its properties. Since minor 5.
	Title string `json:",omitempty"`
}

// Meta is what an editor shows of a call besides its text (ACP's tool
// call title, locations and diff content). Every field is optional.
// Since minor 2.
type Meta struct {
	// Title is a short human title: "Edit src/main.go",
	// "Read README.md (lines 1–200)".
	Title     string
	Locations []Location
	Diffs     []Diff
}

// Location is a file a call reads or changes.
type Location struct {
	Path string // absolute
	Line int    // 1-based; 0 when not known
}

// Diff is a change to one text file, as whole texts.
type Diff struct {
	Path    string // absolute
	OldText string
	NewText string
	// NewFile marks a file that did not exist: OldText is empty.
	NewFile bool
}

// Description is what a plugin says about itself (Describe).
type Description struct {
	Name          string
	Version       string
	ProtocolMinor int
	Tools         []ToolSpec
	// EventTypes are the event types the plugin may propose in results.
	EventTypes []string
	// SDKVersion is the plugin SDK the plugin says it was built with
	// ([SDKVersion] for a Go plugin); empty when it did not say.
	SDKVersion string `json:",omitempty"`
	// StartEarly says the plugin asked to run for as long as the host does
	// ([Plugin.StartEarly]).
	StartEarly bool `json:",omitempty"`
	// Capabilities is what the plugin asked for beyond the default
	// ([Plugin.Capabilities]); zero from a plugin before minor 4.
	Capabilities Capabilities `json:",omitzero"`
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
	// Sandbox is the sandbox the host decided for this call's commands
	// (the session's setting, with the writable roots computed for Cwd);
	// nil when the host sends none (a host before minor 4, a call with no
	// session's setting such as a conformance check). Since minor 4.
	Sandbox *CallSandbox
}

// CallSandbox is the sandbox setting a call carries (minor 4): what the
// bash plugin confines each command of the call to. The host records the
// same value on the call's tool/call event.
type CallSandbox struct {
	// Mode is workspace-write, read-only or off.
	Mode string
	// Network is off (loopback only) or on.
	Network string
	// WritableRoots are where commands may write: the session's cwd, the
	// folders the user added, and the git folders of the repositories they
	// are in (workspace-write); none in read-only and off. The plugin's
	// own private temp folder is not listed.
	WritableRoots []string
	// DenyRead are paths the user asked to hide, besides the credential
	// stores every sandbox hides.
	DenyRead []string
	// PidsLimit caps the processes of one command; 0: the plugin's default.
	PidsLimit int
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
	// Meta is what the call did, for the editor (minor 2).
	Meta Meta
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

// ReadTextFileRequest names a file of a session.
type ReadTextFileRequest struct {
	SessionID string
	Path      string // absolute
}

// WriteTextFileRequest is new text for a file of a session.
type WriteTextFileRequest struct {
	SessionID string
	Path      string // absolute
	Content   string
}

// TextFile is a file's text and where it came from or went: SourceEditor
// or SourceDisk. A write's answer has no Content.
type TextFile struct {
	Content string
	Source  string
}

// IsZero reports whether m says nothing.
func (m Meta) IsZero() bool {
	return m.Title == "" && len(m.Locations) == 0 && len(m.Diffs) == 0
}

// Caller kinds.
const (
	CallerAgent CallerKind = "agent" // the agent loop of a session
	CallerNone  CallerKind = "none"  // no session: a conformance check, a direct invocation
)

// Where a text file was read or written.
const (
	SourceEditor = "editor"
	SourceDisk   = "disk"
)
