package session

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/harness-dev/harness/host/event"
)

var hostTypes = []event.Type{
	event.TypeTurnStart, event.TypeTurnEnd, event.TypeStepStart, event.TypeStepEnd, event.TypeUserMessage,
	event.TypeAssistantMessage, event.TypeToolCall, event.TypeToolResult, event.TypeTodoWrite, event.TypePermission,
	event.TypeConfigOption,
	event.TypePermissionMode,
	event.TypeSandboxPolicy,
	event.TypeCompact,
}

// samplePayloads are one or more payloads of every host type, in the shapes
// the host writes.
func samplePayloads() []event.Payload {
	return []event.Payload{
		event.TurnStart{Turn: 1},
		event.TurnEnd{Turn: 1, Reason: event.ReasonError, Error: "model: 500", Usage: &event.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, ReasoningTokens: 4}},
		event.TurnEnd{Turn: 12, Reason: event.ReasonCompleted},
		event.StepStart{Turn: 1, Step: 2},
		event.StepEnd{Turn: 1, Step: 2},
		event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "héllo \"wörld\"\n\t<&>\u2028 😀"}, {Type: event.ContentResourceLink, URI: "file:///a", Name: "a", MimeType: "text/plain"}}},
		event.UserMessage{},
		event.UserMessage{Content: []event.Content{}},
		event.AssistantMessage{Turn: 1, Step: 1, Text: "t", Reasoning: "r", ToolCalls: []event.ToolCallRequest{{ID: "c", Name: "n", Arguments: `{"a":"\u0000"}`}}, Usage: &event.Usage{OutputTokens: 7}, Finish: "tool_calls"},
		event.AssistantMessage{Turn: 1, Step: 1},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c", Name: "bash", Args: `{"cmd":"ls -la"}`, Plugin: &event.Plugin{Name: "bash", Version: "1.2.3", SHA256: "ab", PID: 4242}},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c"},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c", Name: "bash", Kind: "execute", Sandbox: &event.CallSandbox{Mode: "workspace-write", Network: "off", Roots: []string{"/a b", "/a b/.git"}}},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c", Name: "bash", Sandbox: &event.CallSandbox{Mode: "off", Network: "on"}},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c", Content: "line\nline\r\n\x01", IsError: true},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c"},
		event.TodoWrite{Todos: []event.Todo{{Content: "a", Status: event.TodoPending}, {Content: "b", Status: event.TodoCompleted}}},
		event.TodoWrite{},
		event.Permission{Turn: 1, Step: 2, CallID: "c", Tool: "bash", Decision: event.AllowAlways, Source: "user", Scope: []string{"git status", "ls"}},
		event.Permission{Turn: 1, Step: 2, CallID: "c", Tool: "bash", Decision: event.RejectOnce, Source: "rule"},
		event.ConfigOption{ID: "model", Value: "deepseek-reasoner"},
		event.ConfigOption{},
		event.Permission{Turn: 1, Step: 2, CallID: "c", Tool: "write", Decision: event.AllowAlways, Source: "user", Kind: "edit"},
		event.PermissionMode{Mode: "read-only", By: "client"},
		event.SandboxPolicy{Mode: "workspace-write", Network: "off", By: "host"},
		event.Compact{Turn: 3, Summary: "the user wants \"x\"\n- done", From: 0, Keep: 41, Reason: event.CompactAuto, TokensBefore: 6600, TokensAfter: 1200, Window: 8192, Limit: 8192},
		event.Compact{Turn: 1, Reason: event.CompactCommand},
	}
}

func TestFastDecode(t *testing.T) {
	t.Parallel()
	for _, p := range samplePayloads() {
		data, err := event.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := fastDecode(p.EventType(), data)
		if !ok {
			t.Errorf("fastDecode gave up on %s", data)
			continue
		}
		if d := cmp.Diff(p, got); d != "" {
			t.Errorf("fastDecode(%s) (-want +got):\n%s", data, d)
		}
	}
	// Shapes it leaves to encoding/json.
	for _, tc := range []struct {
		t    event.Type
		data string
	}{
		{event.TypeTurnStart, `{"turn":1,"extra":true}`},
		{event.TypeTurnStart, `{"Turn":1}`},
		{event.TypeTurnStart, `{"tu\u0072n":1}`},
		{event.TypeTurnStart, `{"turn":1,"turn":2}`},
		{event.TypeTurnStart, `{"turn":null}`},
		{event.TypeTurnStart, `{"turn":1.0}`},
		{event.TypeTurnStart, `{"turn":1e2}`},
		{event.TypeTurnStart, `{"turn":1234567890}`},
		{event.TypeStepStart, `{"turn":"1","step":1}`},
		{event.TypeToolResult, `{"turn":1,"isError":null}`},
		{event.TypeToolResult, `{"content":null}`},
		{event.TypeUserMessage, `{"content":[null]}`},
		{event.TypeUserMessage, `{"content":{}}`},
		{event.TypeTurnStart, `{"turn":1} x`},
		{event.TypeTurnStart, `[]`},
	} {
		if p, ok := fastDecode(tc.t, []byte(tc.data)); ok {
			t.Errorf("fastDecode(%s, %s) = %+v, want it to give up", tc.t, tc.data, p)
		}
	}
}

// FuzzFastDecode checks that whatever fastDecode returns is exactly what
// event.Decode (encoding/json) returns for the same data, and that it never
// panics, valid JSON or not.
func FuzzFastDecode(f *testing.F) {
	for _, p := range samplePayloads() {
		data, _ := event.Encode(p)
		for i, t := range hostTypes {
			if t == p.EventType() {
				f.Add(uint8(i), []byte(data))
			}
		}
	}
	f.Add(uint8(4), []byte(`{"content":[{"type":"text","text":"\ud83d\ude00 \ud800 \udc00x \u00e9 \xff"}]}`))
	f.Add(uint8(1), []byte(` { "turn" : -0 , "reason" : "" , "usage" : null } `))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		typ := hostTypes[int(which)%len(hostTypes)]
		got, ok := fastDecode(typ, data)
		if !ok || !json.Valid(data) {
			return // replay only decodes validated data
		}
		want, err := event.Event{Type: typ, Data: data}.Decode()
		if err != nil {
			t.Fatalf("fastDecode(%s, %q) = %+v; event.Decode fails: %v", typ, data, got, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("fastDecode(%s, %q) (-event.Decode +fast):\n%s", typ, data, d)
		}
	})
}

func BenchmarkDecodePayload(b *testing.B) {
	p := event.AssistantMessage{Turn: 12, Step: 3, Text: "I'll read the file first, then update the failing test.\nOK?", ToolCalls: []event.ToolCallRequest{{ID: "call_7f3a", Name: "read_file", Arguments: `{"path":"host/eventlog/log.go"}`}}, Usage: &event.Usage{InputTokens: 5210, OutputTokens: 88}}
	data, _ := event.Encode(p)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := fastDecode(event.TypeAssistantMessage, data); !ok {
				b.Fatal("gave up")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (event.Event{Type: event.TypeAssistantMessage, Data: data}).Decode(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPlans fails when a host payload has a field the fast decoder cannot
// read, and checks that every field of every host payload — whatever
// host/event adds — survives encode then fastDecode: each field is filled
// with a value of its own, so a field the plans missed shows as a diff.
func TestPlans(t *testing.T) {
	t.Parallel()
	for _, err := range payloadPlans.errs {
		t.Error(err)
	}
	for _, typ := range hostTypes {
		if payloadPlans.byType[typ] == nil {
			t.Errorf("no fast decode plan for %s", typ)
		}
	}
	for typ, pl := range payloadPlans.byType {
		v := reflect.New(pl.typ).Elem()
		n := 0
		fill(t, v, &n)
		p := v.Interface().(event.Payload)
		if p.EventType() != typ {
			t.Fatalf("plan for %s decodes %T", typ, p)
		}
		data, err := event.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := fastDecode(typ, data)
		if !ok {
			t.Errorf("fastDecode gave up on %s", data)
			continue
		}
		if d := cmp.Diff(p, got); d != "" {
			t.Errorf("fastDecode(%s) (-want +got):\n%s", data, d)
		}
		if want, err := (event.Event{Type: typ, Data: data}).Decode(); err != nil || !cmp.Equal(want, got) {
			t.Errorf("fastDecode(%s) differs from event.Decode (err %v)", data, err)
		}
	}
}

// fill sets every field of v, recursively, to a distinct non-zero value.
func fill(t *testing.T, v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d é\"\n", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(t, v.Index(0), n)
		fill(t, v.Index(1), n)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" { // never encoded
				fill(t, v.Field(i), n)
			}
		}
	default:
		t.Fatalf("fill: kind %s", v.Kind())
	}
}
