package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
//   - 2: tool metadata for editors: [ToolSpec.Kind] in Describe,
//     [Result.Meta] (title, locations, diffs), the Preview RPC
//     ([Tool.Preview]); HostServices.ReadTextFile and WriteTextFile
//     ([ReadTextFile], [WriteTextFile]).
//   - 3: [Plugin.StartEarly] in Describe ([Description.StartEarly]): the
//     plugin runs from the host's start and is never stopped when idle.
//   - 4: [CallRequest.Sandbox]: the sandbox the host runs the call's
//     commands under (the bash plugin builds each command's policy from
//     it); [Plugin.Capabilities] in Describe ([Description.Capabilities]):
//     what the plugin's process needs beyond the default confinement the
//     host launches it under.
//   - 5: declared presentation in Describe: [ToolSpec.HasPreview] (the host
//     calls Preview only for tools that have one; [Serve] sets it from
//     [Tool.Preview]) and [ToolSpec.Title] (a title template the host
//     expands without an RPC, [ExpandTitle]).
const ProtocolMinor = 5

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
	// is the better one when set; empty means the tool's name. Since
	// minor 5.
	Title string `json:",omitempty"`
}

// ExpandTitle is a call's title from its tool's [ToolSpec.Title] template
// and its arguments object: each {name} is replaced by the top-level
// string argument name, trimmed of surrounding space. When a named
// argument is missing, not a string or blank, the title is empty (the
// caller shows the tool's name instead). A brace that does not enclose a
// name (letters, digits, '_' or '-') stays as it is.
func ExpandTitle(template string, args json.RawMessage) string {
	if !strings.Contains(template, "{") {
		return template
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		obj = nil
	}
	var b strings.Builder
	for rest := template; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String()
		}
		n := strings.IndexByte(rest[open:], '}')
		if n < 0 || !isArgName(rest[open+1:open+n]) {
			b.WriteString(rest[:open+1])
			rest = rest[open+1:]
			continue
		}
		var v string
		if json.Unmarshal(obj[rest[open+1:open+n]], &v) != nil || strings.TrimSpace(v) == "" {
			return ""
		}
		b.WriteString(rest[:open])
		b.WriteString(strings.TrimSpace(v))
		rest = rest[open+n+1:]
	}
}

// isArgName reports whether s can name an argument in a title template.
func isArgName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Tool kinds, ACP's ToolKind vocabulary.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindDelete  = "delete"
	KindMove    = "move"
	KindSearch  = "search"
	KindExecute = "execute"
	KindThink   = "think"
	KindFetch   = "fetch"
	KindOther   = "other"
)

// ValidKind reports whether k is one of the Kind* constants or empty.
func ValidKind(k string) bool {
	switch k {
	case "", KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch, KindOther:
		return true
	}
	return false
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

// IsZero reports whether m says nothing.
func (m Meta) IsZero() bool {
	return m.Title == "" && len(m.Locations) == 0 && len(m.Diffs) == 0
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

// TextFiles is implemented by a HostServices that reads and writes text
// files the way the user sees them (HostServices.ReadTextFile and
// WriteTextFile, minor 2). On the plugin side, call [ReadTextFile] and
// [WriteTextFile] rather than asserting it.
type TextFiles interface {
	// ReadTextFile returns the text of the file at the absolute path: the
	// editor's buffer (unsaved changes included) when the session's editor
	// offers it, else the file on disk. A missing file is an error
	// wrapping fs.ErrNotExist.
	ReadTextFile(ctx context.Context, req ReadTextFileRequest) (TextFile, error)
	// WriteTextFile replaces the text of the file (creating it): through
	// the session's editor when it offers it, else on disk. The caller
	// asks for any permission needed before.
	WriteTextFile(ctx context.Context, req WriteTextFileRequest) (TextFile, error)
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

// Where a text file was read or written.
const (
	SourceEditor = "editor"
	SourceDisk   = "disk"
)

// ReadTextFile reads a file through the host behind h. A host that offers
// no text files (minor < 2) answers an error wrapping ErrUnimplemented;
// the plugin then reads the disk itself.
func ReadTextFile(ctx context.Context, h HostServices, req ReadTextFileRequest) (TextFile, error) {
	t, ok := h.(TextFiles)
	if !ok {
		return TextFile{}, fmt.Errorf("read text file: %w", ErrUnimplemented)
	}
	return t.ReadTextFile(ctx, req)
}

// WriteTextFile writes a file through the host behind h. A host that
// offers no text files answers an error wrapping ErrUnimplemented.
func WriteTextFile(ctx context.Context, h HostServices, req WriteTextFileRequest) (TextFile, error) {
	t, ok := h.(TextFiles)
	if !ok {
		return TextFile{}, fmt.Errorf("write text file: %w", ErrUnimplemented)
	}
	return t.WriteTextFile(ctx, req)
}

// Progress receives the progress text of a running call (live output). It
// may be called from any goroutine of the handler, never after the handler
// returned.
type Progress func(text string)

// ErrUnimplemented is wrapped by errors of HostServices methods the host
// does not offer (gRPC Unimplemented).
var ErrUnimplemented = wire.ErrUnimplemented
