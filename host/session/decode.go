package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harness-dev/harness/host/event"
)

// decodePayload decodes the data of an event of a host type. The data must be
// a JSON object. The shapes encoding/json writes take fastDecode's path;
// anything else goes through event.Decode, whose complaint becomes an
// [*InvalidError].
func decodePayload(t event.Type, data json.RawMessage) (event.Payload, error) {
	if !isObject(data) {
		return nil, invalid(t, "data is not a JSON object")
	}
	if p, ok := fastDecode(t, data); ok {
		return p, nil
	}
	p, err := event.Event{Type: t, Data: data}.Decode()
	if err != nil {
		if cause := errors.Unwrap(err); cause != nil {
			err = cause // drop Decode's "decode event 0 (type)" prefix
		}
		return nil, invalid(t, "%v", err)
	}
	return p, nil
}

// isObject reports whether valid JSON data is an object.
func isObject(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// normalize turns a pointer payload into its value, so that the rest of the
// package switches on values only.
func normalize(p event.Payload) (event.Payload, error) {
	switch v := p.(type) {
	case nil:
		return nil, errors.New("nil payload")
	case event.TurnStart, event.TurnEnd, event.StepStart, event.StepEnd, event.UserMessage,
		event.AssistantMessage, event.ToolCall, event.ToolResult, event.TodoWrite, event.Permission,
		event.ConfigOption, event.PermissionMode, event.SandboxPolicy, event.Compact:
		return p, nil
	case *event.TurnStart:
		return deref(v)
	case *event.TurnEnd:
		return deref(v)
	case *event.StepStart:
		return deref(v)
	case *event.StepEnd:
		return deref(v)
	case *event.UserMessage:
		return deref(v)
	case *event.AssistantMessage:
		return deref(v)
	case *event.ToolCall:
		return deref(v)
	case *event.ToolResult:
		return deref(v)
	case *event.TodoWrite:
		return deref(v)
	case *event.Permission:
		return deref(v)
	case *event.ConfigOption:
		return deref(v)
	case *event.PermissionMode:
		return deref(v)
	case *event.SandboxPolicy:
		return deref(v)
	case *event.Compact:
		return deref(v)
	}
	return nil, fmt.Errorf("payload type %T is not a host event; use AppendRaw", p)
}

func deref[T event.Payload](v *T) (event.Payload, error) {
	if v == nil {
		return nil, fmt.Errorf("nil %T payload", v)
	}
	return *v, nil
}
