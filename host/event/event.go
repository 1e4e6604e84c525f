package event

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Type names an event. The host's own types are the constants below;
// plugin-declared types are any other non-empty string of the form
// "family/name".
type Type string

// The host's vocabulary.
const (
	TypeTurnStart        Type = "turn/start"
	TypeTurnEnd          Type = "turn/end"
	TypeStepStart        Type = "step/start"
	TypeStepEnd          Type = "step/end"
	TypeUserMessage      Type = "user/message"
	TypeAssistantMessage Type = "assistant/message"
	TypeToolCall         Type = "tool/call"
	TypeToolResult       Type = "tool/result"
	TypeTodoWrite        Type = "todo/write"
	TypePermission       Type = "permission/decision"
	TypeConfigOption     Type = "config/option"
	TypePermissionMode   Type = "permission/mode"
	TypeSandboxPolicy    Type = "sandbox/policy"
	TypeCompact          Type = "context/compact"
)

// IsSurface reports whether events of type t derive the model's history.
func IsSurface(t Type) bool {
	switch t {
	case TypeUserMessage, TypeAssistantMessage, TypeToolResult:
		return true
	}
	return false
}

// IsKnown reports whether t is one of the host's own types.
func IsKnown(t Type) bool {
	switch t {
	case TypeTurnStart, TypeTurnEnd, TypeStepStart, TypeStepEnd,
		TypeUserMessage, TypeAssistantMessage, TypeToolCall, TypeToolResult, TypeTodoWrite, TypePermission,
		TypeConfigOption, TypePermissionMode, TypeSandboxPolicy, TypeCompact:
		return true
	}
	return false
}

// Event is one line of a session log. Data holds the payload exactly as it
// was written; decode it with [Event.Decode].
type Event struct {
	Seq  int64           `json:"seq"`
	Time time.Time       `json:"time"`
	Type Type            `json:"type"`
	Data json.RawMessage `json:"data"`
}

// ErrUnknownType is returned by [Event.Decode] for a type outside the host's
// vocabulary (a plugin-declared type, or a newer host's).
var ErrUnknownType = errors.New("event: unknown type")

// Payload is the data of one of the host's event types.
type Payload interface {
	EventType() Type
}

// Decode returns the typed payload of e. An unknown type yields an error
// wrapping [ErrUnknownType]; a payload that does not match its type yields a
// decoding error. Neither is ever silently skipped.
func (e Event) Decode() (Payload, error) {
	var p Payload
	switch e.Type {
	case TypeTurnStart:
		p = new(TurnStart)
	case TypeTurnEnd:
		p = new(TurnEnd)
	case TypeStepStart:
		p = new(StepStart)
	case TypeStepEnd:
		p = new(StepEnd)
	case TypeUserMessage:
		p = new(UserMessage)
	case TypeAssistantMessage:
		p = new(AssistantMessage)
	case TypeToolCall:
		p = new(ToolCall)
	case TypeToolResult:
		p = new(ToolResult)
	case TypeTodoWrite:
		p = new(TodoWrite)
	case TypePermission:
		p = new(Permission)
	case TypeConfigOption:
		p = new(ConfigOption)
	case TypePermissionMode:
		p = new(PermissionMode)
	case TypeSandboxPolicy:
		p = new(SandboxPolicy)
	case TypeCompact:
		p = new(Compact)
	default:
		return nil, fmt.Errorf("decode event %d: %w %q", e.Seq, ErrUnknownType, e.Type)
	}
	if err := json.Unmarshal(e.Data, p); err != nil {
		return nil, fmt.Errorf("decode event %d (%s): %w", e.Seq, e.Type, err)
	}
	return deref(p), nil
}

// deref turns the pointer Decode filled into the value type callers switch on.
func deref(p Payload) Payload {
	switch v := p.(type) {
	case *TurnStart:
		return *v
	case *TurnEnd:
		return *v
	case *StepStart:
		return *v
	case *StepEnd:
		return *v
	case *UserMessage:
		return *v
	case *AssistantMessage:
		return *v
	case *ToolCall:
		return *v
	case *ToolResult:
		return *v
	case *TodoWrite:
		return *v
	case *Permission:
		return *v
	case *ConfigOption:
		return *v
	case *PermissionMode:
		return *v
	case *SandboxPolicy:
		return *v
	case *Compact:
		return *v
	}
	return p
}

// Encode marshals a payload into the raw data of an event.
func Encode(p Payload) (json.RawMessage, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", p.EventType(), err)
	}
	return b, nil
}
