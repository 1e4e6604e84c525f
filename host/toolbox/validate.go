package toolbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// validateDescription checks what a plugin says about itself before any of
// its tools is registered.
func validateDescription(d pluginapi.Description) error {
	if d.Name == "" {
		return errors.New("describe: empty plugin name")
	}
	if strings.IndexFunc(d.Name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("describe: plugin name %q has spaces or control characters", d.Name)
	}
	if err := d.Capabilities.Validate(); err != nil {
		return fmt.Errorf("describe: %w", err)
	}
	seen := make(map[string]bool, len(d.Tools))
	for i, t := range d.Tools {
		if !validToolName(t.Name) {
			return fmt.Errorf("describe: tool %d: name %q does not match ^[a-zA-Z0-9_-]{1,64}$", i, t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("describe: tool %q listed twice", t.Name)
		}
		seen[t.Name] = true
		if err := pluginapi.CheckSchema(t.Schema); err != nil {
			return fmt.Errorf("describe: tool %q: parameter schema: %w", t.Name, err)
		}
	}
	for _, typ := range d.EventTypes {
		if err := validateEventType(typ); err != nil {
			return fmt.Errorf("describe: %w", err)
		}
	}
	return nil
}

// validToolName reports whether s matches ^[a-zA-Z0-9_-]{1,64}$, the tool
// name rule of the model providers.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validateEventType checks a declared event type: "family/name", without
// spaces, and not one of the host's structural or surface types, which only
// the agent loop writes.
func validateEventType(typ string) error {
	family, name, ok := strings.Cut(typ, "/")
	if !ok || family == "" || name == "" || strings.ContainsFunc(typ, unicode.IsSpace) {
		return fmt.Errorf("event type %q is not of the form family/name", typ)
	}
	if t := event.Type(typ); event.IsKnown(t) && t != event.TypeTodoWrite {
		return fmt.Errorf("event type %q belongs to the host", typ)
	}
	return nil
}

// checkEvents checks the events a result proposes, once for the whole
// host: each must have a type the plugin declared, and data event.Propose
// accepts (a JSON object within its bound). It returns them as the loop
// appends them, each carrying its checked event (tool.Checked).
func checkEvents(plugin string, declared map[string]bool, events []pluginapi.Event) ([]tool.Emitted, error) {
	var out []tool.Emitted
	for _, e := range events {
		if !declared[e.Type] {
			return nil, fmt.Errorf("plugin %s proposed an undeclared event type %q", plugin, e.Type)
		}
		p, err := event.Propose(event.Type(e.Type), e.Data)
		switch {
		case errors.Is(err, event.ErrNotJSON) || errors.Is(err, event.ErrNotObject):
			return nil, fmt.Errorf("plugin %s proposed a %q event whose data is not a JSON object", plugin, e.Type)
		case err != nil:
			return nil, fmt.Errorf("plugin %s proposed a %q event: %v", plugin, e.Type, err)
		}
		out = append(out, tool.Checked(p))
	}
	return out, nil
}

// checkArgs checks that the model's argument text is a JSON object. Empty
// text stands for no arguments, {}: some providers send it for tools
// without parameters.
func checkArgs(args string) (json.RawMessage, error) {
	b := bytes.TrimSpace([]byte(args))
	if len(b) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	if b[0] != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", jsonKind(b[0]))
	}
	return b, nil
}

func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
