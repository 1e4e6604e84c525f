// Package tool is the host's one vocabulary of tools: what a tool is
// (Tool), one call of it (Call), what the call produced (Result, Meta) and
// the events a tool proposes for the session log (Emitted). The agent
// loop, the plugin toolbox, the MCP client and the engine all speak it;
// no other host package defines its own Tool, Call or Result.
//
// A Tool's Spec is llm.ToolSpec, the shape the model is sent: a tool
// declares its name, description and JSON Schema once, and the loop hands
// them to the provider as they are, with no copy between two shapes of
// the same three fields. The plugin SDK (pluginapi) keeps its own types:
// it is the wire contract with plugins, a module of its own; the toolbox
// converts between the two (one function each way).
//
// The package holds data and no behaviour beyond small accessors; it
// imports only host/event, host/llm and the standard library.
package tool

import (
	"bytes"
	"encoding/json"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// Tool is one tool the model may call, as its source lists it for a step.
// Exactly one of Plugin and MCP is set for a tool from a plugin or an MCP
// server (its provenance); a tool of neither (a test's) has both nil.
type Tool struct {
	// Spec is what the model is sent: name, description, JSON Schema of
	// the arguments object.
	Spec llm.ToolSpec
	// ConcurrencySafe tools may run together with other such calls of the
	// same step.
	ConcurrencySafe bool
	// NeedsPermission tools run only once the loop's Approver allows the
	// call.
	NeedsPermission bool
	// Kind is what kind of action the tool takes, in ACP's ToolKind
	// vocabulary: read, edit, delete, move, search, execute, think, fetch
	// or other; empty when its source declared none. The loop records it
	// on each tool/call; permission modes decide by it.
	Kind string
	// Plugin names the binary (and process, PID 0 when none runs yet)
	// serving the tool; the loop records it on each tool/call.
	Plugin *event.Plugin
	// MCP names the MCP server serving the tool; the loop records it on
	// each tool/call.
	MCP *event.MCPServer
	// Sandboxes says the tool's plugin runs its commands in the sandbox
	// the host sends with each call (Call.Sandbox): its Sandboxes
	// capability.
	Sandboxes bool
	// Title, when set, is how an editor names a call of the tool when the
	// call says nothing more (an MCP tool: "server: title").
	Title string
	// TitleTemplate is a plugin tool's declared title template
	// (pluginapi.ToolSpec.Title: fixed text or {argument} placeholders);
	// its toolbox expands it for each call when the preview has no title.
	TitleTemplate string
	// HasPreview says its source answers a preview of a call (a plugin
	// that declared one, or one speaking a minor before 5, which declares
	// nothing); a tool without one costs no Preview round trip.
	HasPreview bool
}

// Call is one tool call, with its context as fields.
type Call struct {
	SessionID string
	// Caller says who makes the call, in pluginapi's vocabulary: "agent"
	// (a session's loop) or "none" (no session: a check, a direct
	// invocation); empty sends none.
	Caller string
	Turn   int
	Step   int
	CallID string
	Name   string
	// Args is the model's raw JSON text; it must be a JSON object (empty
	// text counts as {}).
	Args string
	Cwd  string
	// Plugin, if set, is the process the step's tool list named for the
	// tool; a toolbox that hot-reloads routes the call to it while it
	// drains, so the call runs where its tool/call says.
	Plugin *event.Plugin
	// Sandbox is the sandbox the call's tool/call records, sent with the
	// call to a tool that Sandboxes; nil: none.
	Sandbox *event.CallSandbox
	// Progress, when not nil, takes the call's live output. It is not
	// logged.
	Progress func(text string)
}

// Emitted is an event a tool proposes; the loop appends it right before
// the call's tool/result. One made by Checked (the toolbox makes every
// plugin's so, having checked it once: declared type, JSON object, size)
// carries the checked event, which the session appends without checking
// it again; one built from its fields (a test's tool, a source that checks
// nothing) is checked by the session when appended.
type Emitted struct {
	Type event.Type
	Data json.RawMessage

	checked event.Proposed
	ok      bool
}

// Checked is p as an Emitted that carries it.
func Checked(p event.Proposed) Emitted {
	return Emitted{Type: p.Type(), Data: p.Data(), checked: p, ok: true}
}

// Proposed returns the checked event e carries, if it was made by Checked
// and its fields are as Checked made them.
func (e Emitted) Proposed() (event.Proposed, bool) {
	if !e.ok || e.Type != e.checked.Type() || !bytes.Equal(e.Data, e.checked.Data()) {
		return event.Proposed{}, false
	}
	return e.checked, true
}

// Result is what a tool call produced. A failure the model can act on is
// a Result with IsError, not a Go error.
type Result struct {
	// Content is the text the model is given and the log records (Text).
	Content string
	// Blocks is the content as its source gave it, in order, when it gave
	// more than text (an MCP server's images and resources); Content then
	// renders it as text, naming each image (llm.ImageNote). Nil for a
	// result of text alone. The loop logs its images (those whose bytes
	// the engine stored as blobs: Blob set) on the tool/result, whence
	// they reach the model and the editor.
	Blocks  []Block
	IsError bool
	Events  []Emitted
	// Meta is what the tool said the call did, for the editor; the loop
	// records it on the tool/result.
	Meta Meta
	// Plugin names the process that served the call, when a plugin did
	// (PID 0 when no process was reached).
	Plugin *event.Plugin
}

// Text is the result as the model and the log see it.
func (r Result) Text() string { return r.Content }

// BlockKind is what a Block holds.
type BlockKind string

// Block kinds.
const (
	BlockText     BlockKind = "text"     // Text
	BlockImage    BlockKind = "image"    // Data, of MIMEType
	BlockResource BlockKind = "resource" // URI, with its Text or Data when embedded
)

// Block is one piece of a result's content.
type Block struct {
	Kind     BlockKind
	Text     string
	MIMEType string
	Data     []byte
	URI      string
	// Blob is an image's content hash once its bytes are stored in the
	// session's blob folder (session.Session.PutBlob).
	Blob string
}

// Meta is what an editor shows of a call besides its text: a title, the
// files it touches, the changes it makes. The zero Meta says nothing.
type Meta struct {
	Title     string
	Locations []event.Location
	Diffs     []event.Diff
}
