package event

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

// Content is one block of a user message: text, a link to a resource, or an
// embedded resource (ACP's prompt content kinds).
type Content struct {
	Type     ContentType `json:"type"`
	Text     string      `json:"text,omitempty"`
	URI      string      `json:"uri,omitempty"`
	Name     string      `json:"name,omitempty"`
	MimeType string      `json:"mimeType,omitempty"`
}

// ContentType is the kind of a [Content] block.
type ContentType string

// Content kinds.
const (
	ContentText         ContentType = "text"
	ContentResourceLink ContentType = "resource_link"
	ContentResource     ContentType = "resource" // embedded: URI plus its Text
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
}

// ToolResult is the result of a tool call, as the model sees it. Surface.
type ToolResult struct {
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	CallID  string `json:"callId"`
	Content string `json:"content"`
	IsError bool   `json:"isError,omitempty"`
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
	// Source says who decided: user, rule (a configured rule), mode
	// (allow-all), or session (an earlier "always" answer).
	Source string `json:"source"`
	// Scope, on an "always" answer about a command line, lists the command
	// prefixes it covers, as bash words ("git status"); see
	// host/permission. Logs written before it have none.
	Scope []string `json:"scope,omitempty"`
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
