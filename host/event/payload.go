package event

import "strings"

// Reason says why a turn ended.
type Reason string

// Turn end reasons.
const (
	ReasonCompleted   Reason = "completed"   // the model answered without calling tools
	ReasonCancelled   Reason = "cancelled"   // the caller cancelled the turn
	ReasonMaxSteps    Reason = "max_steps"   // the step limit was reached
	ReasonMaxTokens   Reason = "max_tokens"  // the model hit its output limit
	ReasonRefusal     Reason = "refusal"     // the model refused to continue
	ReasonError       Reason = "error"       // the model or the host failed; see TurnEnd.Error
	ReasonInterrupted Reason = "interrupted" // the process died mid-turn; written on reopen
	ReasonBudget      Reason = "budget"      // the next step would have passed the caller's budget (agent.Loop.Budget)
)

// TurnStart opens turn Turn (numbered from 1 within a session).
type TurnStart struct {
	Turn int `json:"turn"`
}

// TurnEnd closes turn Turn.
type TurnEnd struct {
	Turn   int    `json:"turn"`
	Reason Reason `json:"reason"`
	// Error is the one-line cause when Reason is error.
	Error string `json:"error,omitempty"`
	// Usage totals the model usage of the turn's steps, when reported.
	Usage *Usage `json:"usage,omitempty"`
}

// StepStart opens step Step (numbered from 1 within a turn).
type StepStart struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// StepEnd closes step Step.
type StepEnd struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// Content is one block of a user message: text, a link to a resource, an
// embedded resource or an image (ACP's prompt content kinds); an image of
// a tool result (ToolResult.Images) too.
type Content struct {
	Type     ContentType `json:"type"`
	Text     string      `json:"text,omitempty"`
	URI      string      `json:"uri,omitempty"`
	Name     string      `json:"name,omitempty"`
	MimeType string      `json:"mimeType,omitempty"`
	// Blob is an image's content hash (lowercase hex SHA-256): its bytes
	// are in the session's blob folder, never in the log.
	Blob string `json:"blob,omitempty"`
	// Data is an image's bytes on their way in, before the host stores
	// them as a blob and sets Blob; never logged.
	Data []byte `json:"-"`
}

// ContentType is the kind of a [Content] block.
type ContentType string

// Content kinds.
const (
	ContentText         ContentType = "text"
	ContentResourceLink ContentType = "resource_link"
	ContentResource     ContentType = "resource" // embedded: URI plus its Text
	ContentImage        ContentType = "image"    // MimeType plus Blob
)

// Text returns a single text block.
func Text(s string) []Content { return []Content{{Type: ContentText, Text: s}} }

// UserMessage is what the user said. Surface.
type UserMessage struct {
	Content []Content `json:"content"`
}

// ToolCallRequest is one tool call in an assistant message, as the model
// produced it. Arguments is the model's raw JSON text.
type ToolCallRequest struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage counts tokens. Input excludes cached input.
type Usage struct {
	InputTokens     int `json:"inputTokens,omitempty"`
	OutputTokens    int `json:"outputTokens,omitempty"`
	CacheReadTokens int `json:"cacheReadTokens,omitempty"`
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
	// CacheWriteTokens is input written to the provider's prompt cache.
	CacheWriteTokens int `json:"cacheWriteTokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:     u.InputTokens + v.InputTokens,
		OutputTokens:    u.OutputTokens + v.OutputTokens,
		CacheReadTokens: u.CacheReadTokens + v.CacheReadTokens,
		ReasoningTokens: u.ReasoningTokens + v.ReasoningTokens,

		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
	}
}

// IsZero reports whether u counts nothing.
func (u Usage) IsZero() bool { return u == Usage{} }

// AssistantMessage is the model's assembled answer for one step. Surface.
type AssistantMessage struct {
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// Blocks are the provider's opaque reasoning blocks (thinking with its
	// signature, redacted thinking, encrypted reasoning), kept verbatim so
	// that they can be sent back unchanged.
	Blocks    []Block           `json:"blocks,omitempty"`
	ToolCalls []ToolCallRequest `json:"toolCalls,omitempty"`
	Usage     *Usage            `json:"usage,omitempty"`
	// Finish is the provider's finish reason (stop, tool_calls, max_tokens, …).
	Finish string `json:"finish,omitempty"`
}

// Block is one opaque provider block of an assistant message; see
// llm.Block. Only the provider named in Provider reads it.
type Block struct {
	Provider  string `json:"provider"`
	Type      string `json:"type"`
	Model     string `json:"model,omitempty"`
	ID        string `json:"id,omitempty"`
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// Plugin names the binary that served a tool call.
type Plugin struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	PID     int    `json:"pid,omitempty"`
}

// ToolCall records that the host dispatched a tool call. Args is the
// model's raw JSON text.
type ToolCall struct {
	Turn   int     `json:"turn"`
	Step   int     `json:"step"`
	CallID string  `json:"callId"`
	Name   string  `json:"name"`
	Args   string  `json:"args"`
	Plugin *Plugin `json:"plugin,omitempty"`
	// Kind is the tool's kind as its plugin declared it (ACP ToolKind:
	// read, edit, delete, move, search, execute, think, fetch, other);
	// empty when it declared none.
	Kind string `json:"kind,omitempty"`
	// MCP names the MCP server that served the call, for a tool of an MCP
	// server (mcp__<server>__<tool>) instead of a plugin's.
	MCP *MCPServer `json:"mcp,omitempty"`
	// Title, Locations and Diffs are what the plugin's preview said the
	// call would do, before it ran and before the user was asked: what an
	// editor shows on the call and in the permission question.
	Title     string     `json:"title,omitempty"`
	Locations []Location `json:"locations,omitempty"`
	Diffs     []Diff     `json:"diffs,omitempty"`
	// Sandbox is the sandbox the call's commands run under, for a tool
	// that runs commands in it (the bash plugin's execute tools); nil for
	// every other tool.
	Sandbox *CallSandbox `json:"sandbox,omitempty"`
}

// CallSandbox is the sandbox a tool call's commands run under, as the
// host sent it with the call (pluginapi.CallSandbox): its mode
// (workspace-write, read-only, off), network (off, on), the writable
// roots — the session's cwd, the folders the user added and the git
// folders of their repositories, in workspace-write; none in read-only
// and off —, the paths the user asked to hide (besides the credential
// stores every sandbox hides) and the pids limit per command (0: the
// default, 1,024). The command's private temp folder, writable in every
// mode, is made by the plugin and not listed.
type CallSandbox struct {
	Mode      string   `json:"mode"`
	Network   string   `json:"network"`
	Roots     []string `json:"roots,omitempty"`
	DenyRead  []string `json:"denyRead,omitempty"`
	PidsLimit int      `json:"pidsLimit,omitempty"`
}

// Location is a file a tool call reads or changes, with a 1-based line
// when known.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// Diff is a change to one text file, as its whole old and new text.
// NewFile marks a file that did not exist (OldText is then empty).
type Diff struct {
	Path    string `json:"path"`
	OldText string `json:"oldText,omitempty"`
	NewText string `json:"newText"`
	NewFile bool   `json:"newFile,omitempty"`
}

// MCPServer names the MCP server that served a tool call: its name in the
// configuration, how it was reached (the command of a stdio server, without
// its arguments or environment; the URL of an http or sse server, without
// its query or credentials) and what it said of itself in initialize.
type MCPServer struct {
	Name          string `json:"name"`
	Command       string `json:"command,omitempty"`
	URL           string `json:"url,omitempty"`
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	PID           int    `json:"pid,omitempty"`
}

// ToolResult is the result of a tool call, as the model sees it. Surface.
type ToolResult struct {
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	CallID  string `json:"callId"`
	Content string `json:"content"`
	IsError bool   `json:"isError,omitempty"`
	// Title, Locations and Diffs are what the plugin said the call did,
	// for the editor; not part of what the model sees. Diffs are left out
	// when they equal the tool/call's.
	Title     string     `json:"title,omitempty"`
	Locations []Location `json:"locations,omitempty"`
	Diffs     []Diff     `json:"diffs,omitempty"`
	// Images are the result's images (an MCP tool's image content, an
	// embedded image resource), in order, each ContentImage with its
	// MimeType, Blob (the bytes are in the session's blob folder, never in
	// the log) and, for a resource, URI. Content names each one where it
	// came ("[image: image/png, 4033 bytes]"); the model is sent the image
	// itself when it takes images. Logs written before it have none.
	Images []Content `json:"images,omitempty"`
}

// TodoStatus is the state of one todo item.
type TodoStatus string

// Todo states; the same triple as ACP's plan entry status.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)

// Todo is one item of the todo list.
type Todo struct {
	Content string     `json:"content"`
	Status  TodoStatus `json:"status"`
}

// TodoWrite replaces the whole todo list. The last one in a log is the
// current list.
type TodoWrite struct {
	Todos []Todo `json:"todos"`
}

// Decision is the answer to a permission request.
type Decision string

// Decisions; the "always" ones hold for the rest of the session.
const (
	AllowOnce    Decision = "allow_once"
	AllowAlways  Decision = "allow_always"
	RejectOnce   Decision = "reject_once"
	RejectAlways Decision = "reject_always"
)

// Allows reports whether d lets the call run.
func (d Decision) Allows() bool { return d == AllowOnce || d == AllowAlways }

// Permission records the decision on a tool call that needed permission,
// right after its tool/call. An "always" decision the user gave holds for
// the rest of the session, across restarts (the session projects it from
// here): for the whole tool when Scope is empty, for the command lines
// whose every command falls under Scope otherwise.
type Permission struct {
	Turn     int      `json:"turn"`
	Step     int      `json:"step"`
	CallID   string   `json:"callId"`
	Tool     string   `json:"tool"`
	Decision Decision `json:"decision"`
	// Source says who decided (the Source constants).
	Source Source `json:"source"`
	// Scope, on an "always" answer about a command line, lists the command
	// prefixes it covers, as bash words ("git status"); see
	// host/permission. Logs written before it have none.
	Scope []string `json:"scope,omitempty"`
	// Kind, on an "always" answer the user gave about a call of that kind
	// ("edit"), says the answer covers every call of the kind in the
	// session ("always allow edits in this session"), whatever the tool;
	// host/permission says where it applies. Empty otherwise.
	Kind string `json:"kind,omitempty"`
}

// PermissionMode records the session's permission mode from here on:
// read-only, ask, accept-edits, auto or allow-all (host/permission defines
// them). The last one in a log is the session's mode; a session is
// created with one, so the log alone tells the mode. Unlike every other
// event it may come outside a turn, and inside one (a switch while a turn
// runs applies to the calls not yet decided).
type PermissionMode struct {
	Mode string `json:"mode"`
	// By says who set it: ByHost (the host's setting when the session was
	// created), ByFlag (a mode given when the session was continued) or
	// ByClient (the editor).
	By By `json:"by"`
}

// SandboxPolicy records the sandbox the session's bash commands run under
// from here on (package sandbox): Mode workspace-write, read-only or off;
// Network off, on, or an allow-list of hosts (sandbox.Network's
// canonical text: "registry.npmjs.org,*.example.com"). A session is created with one, and the host logs
// another when a turn starts under a setting other than the log's last
// (a session continued with another --sandbox). Like PermissionMode it may
// come outside a turn. AddDirs are the folders the user added as writable
// roots (--add-dir, ACP additionalDirectories), DenyRead the paths the
// user asked to hide, PidsLimit the processes one command may have (0:
// the sandbox's default); a change of any of them is logged too.
type SandboxPolicy struct {
	Mode      string   `json:"mode"`
	Network   string   `json:"network"`
	AddDirs   []string `json:"addDirs,omitempty"`
	DenyRead  []string `json:"denyRead,omitempty"`
	PidsLimit int      `json:"pidsLimit,omitempty"`
	// By says who set it: ByHost (the host's setting).
	By By `json:"by"`
}

// ConfigOption records a session setting for the steps that follow: ID
// "model" (Value a model name) or "reasoning_effort" (Value a level of the
// model). The last switch of each ID in a log is the session's current
// value, so a reloaded session keeps it; a log with none uses the host's
// defaults.
//
// A "model" option also says which model serves the session from here on:
// a session is created with one, By ByHost, naming the host's default model
// and its Provider, and the host logs another, By ByHost again, when a turn
// starts on a model other than the log's last (a session continued by a
// host configured otherwise). Those record what ran and are not switches:
// the session still follows the host's default. Logs written before them
// name no model until a switch, and their switches no provider.
type ConfigOption struct {
	ID    string `json:"id"`
	Value string `json:"value"`
	// Provider, on a "model" option, names the provider that serves it
	// (deepseek, openai, anthropic, script, …); empty when unknown.
	Provider string `json:"provider,omitempty"`
	// By says who set it: ByHost (what the host runs, see above) or
	// ByClient (the editor). Empty in logs written before it: a switch by
	// the client.
	By By `json:"by,omitempty"`
}

// Why a compaction was made.
const (
	CompactAuto     = "auto"     // the next request would have passed the threshold of the window
	CompactCommand  = "command"  // the user asked (harness run --compact, the editor's /compact)
	CompactOverflow = "overflow" // the provider refused a request as too long
)

// Compact records a compaction of the model's history. Nothing is deleted:
// the model's history is derived, from here on, as the system prompt, this
// summary (restated as a context message with the todo list current at this
// event, verbatim), the surface events of seqs Keep up to this event
// verbatim, then the events after it. Events From..Keep-1 are the ones the
// summary replaces (From is 0: a summary covers the one before it). It sits
// in a turn, outside any step; it is appended whole, as one line, or not at
// all.
type Compact struct {
	Turn    int    `json:"turn"`
	Summary string `json:"summary"`
	From    int64  `json:"from"`
	Keep    int64  `json:"keep"`
	// Reason is CompactAuto, CompactCommand or CompactOverflow.
	Reason string `json:"reason"`
	// TokensBefore and TokensAfter estimate the history's size (system
	// prompt, messages, tools) before and after, in tokens.
	TokensBefore int `json:"tokensBefore"`
	TokensAfter  int `json:"tokensAfter"`
	// Window is the context window the compaction fitted (0: unknown).
	Window int `json:"window,omitempty"`
	// Limit is the context length the provider stated in its overflow
	// error, when it stated one; the host believes it over its
	// configuration for the rest of the session.
	Limit int `json:"limit,omitempty"`
}

// ContextText is the context message c's summary becomes in the model's
// history: the summary, then todos — the todo list current at the
// compaction — each item verbatim with its status (no list section when
// todos is nil: no todo/write before).
func (c Compact) ContextText(todos []Todo) string {
	var b strings.Builder
	b.WriteString("<context>\nThe earlier part of this session was compacted to save context; this summary replaces it.\n\n")
	b.WriteString(strings.TrimSpace(c.Summary))
	b.WriteString("\n")
	if todos != nil {
		b.WriteString("\nThe current todo list (from the last todo_write, verbatim):\n")
		if len(todos) == 0 {
			b.WriteString("(empty)\n")
		}
		for _, t := range todos {
			b.WriteString("- [" + string(t.Status) + "] " + t.Content + "\n")
		}
	}
	b.WriteString("</context>")
	return b.String()
}

func (TurnStart) EventType() Type        { return TypeTurnStart }
func (TurnEnd) EventType() Type          { return TypeTurnEnd }
func (StepStart) EventType() Type        { return TypeStepStart }
func (StepEnd) EventType() Type          { return TypeStepEnd }
func (UserMessage) EventType() Type      { return TypeUserMessage }
func (AssistantMessage) EventType() Type { return TypeAssistantMessage }
func (ToolCall) EventType() Type         { return TypeToolCall }
func (ToolResult) EventType() Type       { return TypeToolResult }
func (TodoWrite) EventType() Type        { return TypeTodoWrite }
func (Permission) EventType() Type       { return TypePermission }
func (ConfigOption) EventType() Type     { return TypeConfigOption }
func (PermissionMode) EventType() Type   { return TypePermissionMode }
func (SandboxPolicy) EventType() Type    { return TypeSandboxPolicy }
func (Compact) EventType() Type          { return TypeCompact }
