package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// samples holds one payload of every host type; the golden file pins their
// wire format.
func samples() []Payload {
	return []Payload{
		TurnStart{Turn: 1},
		UserMessage{Content: []Content{{Type: ContentText, Text: "fix the bug"}, {Type: ContentResourceLink, URI: "file:///a.go", Name: "a.go"}}},
		StepStart{Turn: 1, Step: 1},
		AssistantMessage{Turn: 1, Step: 1, Text: "Looking.", Reasoning: "need a plan", Finish: "tool_calls",
			ToolCalls: []ToolCallRequest{{ID: "c1", Name: "todo_write", Arguments: `{"todos":[]}`}},
			Usage:     &Usage{InputTokens: 10, OutputTokens: 5}},
		ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "todo_write", Args: `{"todos":[]}`,
			Plugin: &Plugin{Name: "todo", Version: "1.0.0", SHA256: "ab12", PID: 42}},
		TodoWrite{Todos: []Todo{{Content: "read", Status: TodoInProgress}, {Content: "fix", Status: TodoPending}}},
		Permission{Turn: 1, Step: 1, CallID: "c1", Tool: "bash", Decision: AllowAlways, Source: "user", Scope: []string{"git status", "git log"}},
		ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "Updated todo list: 1 pending, 1 in progress, 0 completed."},
		StepEnd{Turn: 1, Step: 1},
		TurnEnd{Turn: 1, Reason: ReasonError, Error: "deepseek: rate limited"},
		ConfigOption{ID: "model", Value: "deepseek-reasoner"},
		PermissionMode{Mode: "accept-edits", By: "client"},
		Permission{Turn: 2, Step: 1, CallID: "c2", Tool: "write", Decision: AllowAlways, Source: "user", Kind: "edit"},
		ConfigOption{ID: "model", Value: "script", Provider: "script", By: ByHost},
		SandboxPolicy{Mode: "read-only", Network: "off", By: "host"},
		ToolCall{Turn: 3, Step: 1, CallID: "c3", Name: "bash", Args: `{"command":"make"}`, Kind: "execute",
			Plugin: &Plugin{Name: "bash", Version: "1.0.0"}, Sandbox: &CallSandbox{Mode: "workspace-write", Network: "off", Roots: []string{"/src/p", "/src/p/.git"}}},
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	for i, p := range samples() {
		data, err := Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		e := Event{Seq: int64(i), Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Type: p.EventType(), Data: data}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')

		// Every payload decodes back to itself.
		var back Event
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		got, err := back.Decode()
		if err != nil {
			t.Fatalf("decode %s: %v", e.Type, err)
		}
		if diff := cmp.Diff(p, got); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", e.Type, diff)
		}
	}
	golden := filepath.Join("testdata", "events.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", golden)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("wire format changed (-golden +now); if intended, run go test -update:\n%s", diff)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ev      Event
		unknown bool
	}{
		"plugin type":              {ev: Event{Type: "acme/thing", Data: json.RawMessage(`{}`)}, unknown: true},
		"payload of a wrong shape": {ev: Event{Type: TypeTodoWrite, Data: json.RawMessage(`{"todos":"all"}`)}},
		"not json":                 {ev: Event{Type: TypeTurnStart, Data: json.RawMessage(`{`)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.ev.Decode()
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			if got := errors.Is(err, ErrUnknownType); got != tc.unknown {
				t.Errorf("errors.Is(err, ErrUnknownType) = %v, want %v (%v)", got, tc.unknown, err)
			}
		})
	}
}

func TestSurface(t *testing.T) {
	t.Parallel()
	for _, p := range samples() {
		want := p.EventType() == TypeUserMessage || p.EventType() == TypeAssistantMessage || p.EventType() == TypeToolResult
		if IsSurface(p.EventType()) != want {
			t.Errorf("IsSurface(%s) = %v", p.EventType(), !want)
		}
		if !IsKnown(p.EventType()) {
			t.Errorf("IsKnown(%s) = false", p.EventType())
		}
	}
	if IsKnown("acme/thing") || IsSurface("acme/thing") {
		t.Error("a plugin type counts as known or surface")
	}
}

// FuzzDecode: any type and data either decode to a payload that encodes
// back to data that decodes to the same payload, or fail with an error —
// never a panic.
func FuzzDecode(f *testing.F) {
	for _, p := range samples() {
		data, _ := Encode(p)
		f.Add(string(p.EventType()), []byte(data))
	}
	f.Add("todo/write", []byte(`{"todos":"all"}`))
	f.Add("acme/thing", []byte(`{}`))
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		p, err := Event{Type: Type(typ), Data: data}.Decode()
		if err != nil {
			return
		}
		again, err := Encode(p)
		if err != nil {
			t.Fatalf("encode %#v: %v", p, err)
		}
		q, err := Event{Type: Type(typ), Data: again}.Decode()
		if err != nil {
			t.Fatalf("re-decode %s: %v", again, err)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Fatalf("round trip changed the payload (-first +second):\n%s", diff)
		}
	})
}
