package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/llm"
)

var rawEq = cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s, err := st.Create(CreateOptions{ID: "rt", Cwd: "/src/project/../project", Parent: "p-1"})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "rt" || s.Cwd() != "/src/project" || s.Parent() != "p-1" || !s.CreatedAt().Equal(t0.Add(time.Second)) {
		t.Errorf("header: id %q cwd %q parent %q created %v", s.ID(), s.Cwd(), s.Parent(), s.CreatedAt())
	}
	if s.Todos() != nil || s.LastTurn() != 0 || len(s.Messages()) != 0 {
		t.Errorf("a new session is not empty")
	}

	mustAppend(t, s,
		event.TurnStart{Turn: 1},
		&event.UserMessage{Content: []event.Content{
			{Type: event.ContentText, Text: "Fix "},
			{Type: event.ContentText, Text: "this:"},
			{Type: event.ContentResourceLink, Name: "main.go", URI: "file:///src/main.go"},
			{Type: event.ContentResource, URI: "file:///src/notes.md", Text: "line 1\nline 2"},
			{Type: event.ContentText, Text: "thanks"},
		}},
		event.StepStart{Turn: 1, Step: 1},
		event.AssistantMessage{Turn: 1, Step: 1, Text: "Planning.", Reasoning: "think", ToolCalls: []event.ToolCallRequest{
			{ID: "c1", Name: "todo_write", Arguments: `{"todos":[]}`},
		}},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "todo_write", Args: `{"todos":[]}`},
	)
	// A plugin proposes the todo list as raw JSON, then a type of its own.
	if _, err := s.AppendRaw(event.TypeTodoWrite, json.RawMessage(`{"todos":[{"content":"read","status":"in_progress"},{"content":"fix","status":"pending"}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendRaw("todo/metrics", json.RawMessage(`{"items":2}`)); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s,
		event.ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "ok"},
		event.StepEnd{Turn: 1, Step: 1},
		event.StepStart{Turn: 1, Step: 2},
		event.AssistantMessage{Turn: 1, Step: 2, Text: "Done."},
		event.StepEnd{Turn: 1, Step: 2},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted},

		event.TurnStart{Turn: 2},
		event.UserMessage{Content: event.Text("more")},
		event.StepStart{Turn: 2, Step: 1},
		// Usage only: no message.
		event.AssistantMessage{Turn: 2, Step: 1, Usage: &event.Usage{OutputTokens: 4096}, Finish: "max_tokens"},
		event.StepEnd{Turn: 2, Step: 1},
		event.TurnEnd{Turn: 2, Reason: event.ReasonMaxTokens},
	)

	wantMsgs := []llm.Message{
		{Role: llm.RoleUser, Text: "Fix this:\n[resource: main.go <file:///src/main.go>]\n<resource uri=\"file:///src/notes.md\">\nline 1\nline 2\n</resource>\nthanks"},
		{Role: llm.RoleAssistant, Text: "Planning.", Reasoning: "think", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "todo_write", Arguments: `{"todos":[]}`}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "ok"},
		{Role: llm.RoleAssistant, Text: "Done."},
		{Role: llm.RoleUser, Text: "more"},
	}
	wantTodos := []event.Todo{{Content: "read", Status: event.TodoInProgress}, {Content: "fix", Status: event.TodoPending}}
	wantTurns := []Turn{
		{Turn: 1, Start: 0, End: 12, Reason: event.ReasonCompleted, Steps: 2},
		{Turn: 2, Start: 13, End: 18, Reason: event.ReasonMaxTokens, Steps: 1},
	}
	check := func(s *Session) {
		t.Helper()
		if d := cmp.Diff(wantMsgs, s.Messages()); d != "" {
			t.Errorf("Messages (-want +got):\n%s", d)
		}
		if d := cmp.Diff(wantTodos, s.Todos()); d != "" {
			t.Errorf("Todos (-want +got):\n%s", d)
		}
		if d := cmp.Diff(wantTurns, s.Turns()); d != "" {
			t.Errorf("Turns (-want +got):\n%s", d)
		}
		if s.LastTurn() != 2 || s.Len() != 19 {
			t.Errorf("LastTurn %d Len %d, want 2, 19", s.LastTurn(), s.Len())
		}
		if n, open := s.OpenTurn(); open {
			t.Errorf("turn %d open", n)
		}
	}
	check(s)
	live := s.Events()
	for i, ev := range live {
		if ev.Seq != int64(i) || !ev.Time.Equal(t0.Add(time.Duration(i+2)*time.Second)) {
			t.Errorf("event %d: seq %d time %v", i, ev.Seq, ev.Time)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := open(t, st, "rt")
	check(s2)
	if d := cmp.Diff(live, s2.Events(), rawEq); d != "" {
		t.Errorf("replayed events (-live +replayed):\n%s", d)
	}
	if !s2.Recovery().IsZero() {
		t.Errorf("Recovery = %v", s2.Recovery())
	}
	if s2.Parent() != "p-1" || s2.Cwd() != "/src/project" || !s2.CreatedAt().Equal(s.CreatedAt()) {
		t.Errorf("reopened header differs")
	}
	// Appending goes on after a reopen.
	mustAppend(t, s2, simpleTurn(3, "again")...)
}

func TestMessagesSliceIsSafe(t *testing.T) {
	t.Parallel()
	s := create(t, newStore(t), "safe")
	defer s.Close()
	mustAppend(t, s, event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("a")})
	m := s.Messages()
	_ = append(m, llm.Message{Text: "caller's"})
	mustAppend(t, s, event.UserMessage{Content: event.Text("b")})
	if got := s.Messages(); len(got) != 2 || got[1].Text != "b" {
		t.Errorf("Messages = %+v", got)
	}
	todos := []event.Todo{{Content: "x", Status: event.TodoPending}}
	mustAppend(t, s, event.TodoWrite{Todos: todos})
	s.Todos()[0].Content = "changed"
	if s.Todos()[0].Content != "x" {
		t.Error("Todos returned the session's own slice")
	}
	mustAppend(t, s, event.TodoWrite{Todos: []event.Todo{}})
	if got := s.Todos(); got == nil || len(got) != 0 {
		t.Errorf("Todos after an empty write = %#v, want empty, not nil", got)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		before []event.Payload
		bad    event.Payload
		msg    string
	}{
		{"message outside a turn", nil, event.UserMessage{Content: event.Text("hi")}, "user/message: no turn is open"},
		{"todo outside a turn", nil, event.TodoWrite{}, "todo/write: no turn is open"},
		{"first turn not 1", nil, event.TurnStart{Turn: 2}, "turn/start: turn 2, want 1"},
		{"turn inside a turn", []event.Payload{event.TurnStart{Turn: 1}}, event.TurnStart{Turn: 2}, "turn 1 is still open"},
		{"turn number reused", simpleTurn(1, "a"), event.TurnStart{Turn: 1}, "turn 1, want 2"},
		{"turn end without turn", simpleTurn(1, "a"), event.TurnEnd{Turn: 1, Reason: "completed"}, "no turn is open"},
		{"turn end of another turn", []event.Payload{event.TurnStart{Turn: 1}}, event.TurnEnd{Turn: 2, Reason: "completed"}, "turn 2, but turn 1 is open"},
		{"turn end with open step", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.TurnEnd{Turn: 1, Reason: "completed"}, "step 1 is still open; end it first"},
		{"turn end without reason", []event.Payload{event.TurnStart{Turn: 1}}, event.TurnEnd{Turn: 1}, "no reason"},
		{"step outside a turn", nil, event.StepStart{Turn: 1, Step: 1}, "no turn is open"},
		{"step of another turn", []event.Payload{event.TurnStart{Turn: 1}}, event.StepStart{Turn: 3, Step: 1}, "turn 3, but turn 1 is open"},
		{"first step not 1", []event.Payload{event.TurnStart{Turn: 1}}, event.StepStart{Turn: 1, Step: 2}, "step 2, want 1"},
		{"step skipped", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}, event.StepEnd{Turn: 1, Step: 1}}, event.StepStart{Turn: 1, Step: 3}, "step 3, want 2"},
		{"step inside a step", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.StepStart{Turn: 1, Step: 2}, "step 1 is still open"},
		{"step end without step", []event.Payload{event.TurnStart{Turn: 1}}, event.StepEnd{Turn: 1, Step: 1}, "no step is open"},
		{"step end of another step", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.StepEnd{Turn: 1, Step: 2}, "step 2, but step 1 is open"},
		{"assistant outside a step", []event.Payload{event.TurnStart{Turn: 1}}, event.AssistantMessage{Turn: 1, Step: 1, Text: "x"}, "no step is open"},
		{"assistant in the wrong step", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.AssistantMessage{Turn: 1, Step: 2}, "step 2, but step 1 is open"},
		{"assistant in the wrong turn", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.AssistantMessage{Turn: 2, Step: 1}, "turn 2, but turn 1 is open"},
		{"tool call without id", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.ToolCall{Turn: 1, Step: 1, Name: "x"}, "no callId"},
		{"tool call outside a step", []event.Payload{event.TurnStart{Turn: 1}}, event.ToolCall{Turn: 1, Step: 1, CallID: "c"}, "no step is open"},
		{"tool result in the wrong step", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}}, event.ToolResult{Turn: 1, Step: 2, CallID: "c"}, "step 2, but step 1 is open"},
		{"tool result for a step not run", []event.Payload{event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1}, event.StepEnd{Turn: 1, Step: 1}}, event.ToolResult{Turn: 1, Step: 2, CallID: "c"}, "step 2 has not run in turn 1"},
		{"tool result outside a turn", nil, event.ToolResult{Turn: 1, Step: 1, CallID: "c"}, "no turn is open"},
		{"todo with empty content", []event.Payload{event.TurnStart{Turn: 1}}, event.TodoWrite{Todos: []event.Todo{{Content: "", Status: "pending"}}}, "non-empty and already trimmed"},
		{"todo with untrimmed content", []event.Payload{event.TurnStart{Turn: 1}}, event.TodoWrite{Todos: []event.Todo{{Content: " a", Status: "pending"}}}, "non-empty and already trimmed"},
		{"todo with repeated content", []event.Payload{event.TurnStart{Turn: 1}}, event.TodoWrite{Todos: []event.Todo{{Content: "a", Status: "pending"}, {Content: "a", Status: "completed"}}}, `repeats content "a"`},
		{"todo with unknown status", []event.Payload{event.TurnStart{Turn: 1}}, event.TodoWrite{Todos: []event.Todo{{Content: "a", Status: "doing"}}}, `unknown status "doing"`},
		{"todo with two in progress", []event.Payload{event.TurnStart{Turn: 1}}, event.TodoWrite{Todos: []event.Todo{{Content: "a", Status: "in_progress"}, {Content: "b", Status: "in_progress"}}}, "2 items in progress"},
		{"nil payload", nil, nil, "nil payload"},
		{"nil pointer payload", nil, (*event.TurnStart)(nil), "nil *event.TurnStart payload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			s := create(t, st, "v")
			mustAppend(t, s, tc.before...)
			_, err := s.Append(tc.bad)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want one containing %q", err, tc.msg)
			}
			if tc.bad != nil && !strings.HasPrefix(tc.msg, "nil") && !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false for %v", err)
			}
			if s.Len() != len(tc.before) {
				t.Errorf("Len = %d after a refused append, want %d", s.Len(), len(tc.before))
			}
			s.Close()
			n := 0
			if _, _, err := eventlog.Read(s.Path(), func(eventlog.Record) error { n++; return nil }); err != nil || n != len(tc.before) {
				t.Errorf("the file holds %d records (%v), want %d", n, err, len(tc.before))
			}
		})
	}
}

func TestAppendRaw(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "raw")
	defer s.Close()
	if _, err := s.AppendRaw("plugin/note", json.RawMessage(`{}`)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no turn is open") {
		t.Errorf("foreign event outside a turn: err = %v", err)
	}
	mustAppend(t, s, event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1})
	for _, tc := range []struct {
		name string
		typ  event.Type
		data string
		msg  string
	}{
		{"invalid JSON", "plugin/note", `{"a":`, "not valid JSON"},
		{"not an object", "plugin/note", `[1]`, "not a JSON object"},
		{"null", "plugin/note", `null`, "not a JSON object"},
		{"no family", "note", `{}`, "not a valid event type"},
		{"empty part", "plugin//note", `{}`, "not a valid event type"},
		{"trailing slash", "plugin/", `{}`, "not a valid event type"},
		{"space", "plugin/a note", `{}`, "not a valid event type"},
		{"known type, bad payload", event.TypeTodoWrite, `{"todos":"all"}`, "cannot unmarshal"},
		{"known type, not an object", event.TypeStepEnd, `null`, "not a JSON object"},
		{"known type, bad structure", event.TypeStepStart, `{"turn":1,"step":2}`, "step 1 is still open"},
	} {
		if _, err := s.AppendRaw(tc.typ, json.RawMessage(tc.data)); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
	if s.Len() != 2 {
		t.Fatalf("Len = %d after refused raw appends, want 2", s.Len())
	}

	buf := []byte("{\n  \"x\": 1\n}")
	ev, err := s.AppendRaw("plugin.v2/note-taken", buf)
	if err != nil {
		t.Fatal(err)
	}
	buf[5] = 'y'
	if string(ev.Data) != `{"x":1}` || string(s.Events()[2].Data) != `{"x":1}` {
		t.Errorf("raw data = %s, want the compacted copy", ev.Data)
	}
	// A known type through AppendRaw keeps its bytes and moves the structure.
	if _, err := s.AppendRaw(event.TypeStepEnd, json.RawMessage(`{"step":1, "turn":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, open := s.OpenStep(); open {
		t.Error("a raw step/end did not close the step")
	}
	if got := string(s.Events()[3].Data); got != `{"step":1, "turn":1}` {
		t.Errorf("raw known data logged as %s", got)
	}
}

// writeRaw writes a session file directly, one eventlog record per payload.
func writeRaw(t testing.TB, st *Store, id string, recs [][2]string) {
	t.Helper()
	l, err := eventlog.Create(filepath.Join(st.Dir, id+".jsonl"), eventlog.Header{ID: id, CreatedAt: t0, Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if err := l.Append(eventlog.Record{Seq: int64(i), Time: t0, Type: r[0], Data: json.RawMessage(r[1])}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReplayCorrupt(t *testing.T) {
	t.Parallel()
	start := [2]string{"turn/start", `{"turn":1}`}
	end := [2]string{"turn/end", `{"turn":1,"reason":"completed"}`}
	for _, tc := range []struct {
		name string
		recs [][2]string
		line int
		msg  string
	}{
		{"event outside a turn", [][2]string{start, end, {"user/message", `{"content":[]}`}, {"turn/start", `{"turn":2}`}}, 4, "user/message: no turn is open"},
		{"step out of order", [][2]string{start, {"step/start", `{"turn":1,"step":2}`}}, 3, "step/start: step 2, want 1"},
		{"undecodable host payload", [][2]string{start, {"todo/write", `{"todos":7}`}, end}, 3, "cannot unmarshal"},
		{"turn number as string", [][2]string{{"turn/start", `{"turn":"1"}`}, end}, 2, "cannot unmarshal"},
		{"host payload not an object", [][2]string{start, {"user/message", `[]`}, end}, 3, "not a JSON object"},
		{"foreign payload not an object", [][2]string{start, {"plugin/x", `"s"`}, end}, 3, "not a JSON object"},
		{"foreign type malformed", [][2]string{start, {"plugin", `{}`}, end}, 3, "not a valid event type"},
		{"final event breaks structure", [][2]string{start, end, end}, 4, "turn/end: no turn is open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			writeRaw(t, st, "bad", tc.recs)
			path := filepath.Join(st.Dir, "bad.jsonl")
			before, _ := os.ReadFile(path)
			_, err := st.Open("bad")
			var ce *eventlog.CorruptError
			if !errors.As(err, &ce) || ce.Line != tc.line || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want corruption at line %d containing %q", err, tc.line, tc.msg)
			}
			if !strings.Contains(err.Error(), path+":") {
				t.Errorf("err = %v, does not name the file", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("a failed Open changed the file")
			}
		})
	}

	t.Run("header names another session", func(t *testing.T) {
		t.Parallel()
		st := newStore(t)
		writeRaw(t, st, "one", nil)
		os.Rename(filepath.Join(st.Dir, "one.jsonl"), filepath.Join(st.Dir, "two.jsonl"))
		_, err := st.Open("two")
		var ce *eventlog.CorruptError
		if !errors.As(err, &ce) || ce.Line != 1 || !strings.Contains(err.Error(), `header names session "one"`) {
			t.Fatalf("err = %v", err)
		}
		// The lock is released: the file can be opened for repair.
		if _, err := eventlog.Open(filepath.Join(st.Dir, "two.jsonl"), nil); err != nil {
			t.Errorf("reopen after a failed Open: %v", err)
		}
	})
}

func TestStoreErrors(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	if _, err := st.Open("nope"); !errors.Is(err, ErrNotFound) || err.Error() != "open session nope: session not found" {
		t.Errorf("Open unknown: err = %v", err)
	}
	for _, id := range []string{"", "../x", ".hidden", "a/b", "a b", strings.Repeat("a", 129)} {
		if _, err := st.Open(id); err == nil || !strings.Contains(err.Error(), "not a valid session id") {
			t.Errorf("Open(%q): err = %v", id, err)
		}
	}
	for _, opts := range []CreateOptions{
		{Cwd: "relative/dir"},
		{Cwd: ""},
		{Cwd: "/", ID: "-x"},
		{Cwd: "/", Parent: "a/b"},
	} {
		if _, err := st.Create(opts); err == nil {
			t.Errorf("Create(%+v) succeeded", opts)
		}
	}
	if _, err := (&Store{}).Create(CreateOptions{Cwd: "/"}); err == nil {
		t.Error("Create in a store without a directory succeeded")
	}

	s := create(t, st, "dup")
	if _, err := st.Create(CreateOptions{ID: "dup", Cwd: "/"}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create duplicate: err = %v, want fs.ErrExist", err)
	}
	_, err := st.Open("dup")
	if !errors.Is(err, eventlog.ErrLocked) || !strings.HasPrefix(err.Error(), "session dup is open in another harness process; close it there first") {
		t.Errorf("Open while open: err = %v", err)
	}
	s.Close()
	if _, err := s.Append(event.TurnStart{Turn: 1}); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: err = %v", err)
	}
	if err := s.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close: err = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	open(t, st, "dup")

	for _, dir := range []string{st.Dir, filepath.Dir(st.Dir)} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want 0700", dir, fi.Mode().Perm(), err)
		}
	}
	if fi, err := os.Stat(filepath.Join(st.Dir, "dup.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("session file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestGeneratedID(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s, err := st.Create(CreateOptions{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The store clock read t0+1s.
	if id := s.ID(); !strings.HasPrefix(id, "20261129T194711-") || len(id) != len("20261129T194711-3f9a2c1b") || !ValidID(id) {
		t.Errorf("generated id %q", id)
	}
	if a, b := NewID(t0), NewID(t0); a == b {
		t.Errorf("two ids alike: %s", a)
	}
	for id, want := range map[string]bool{
		"a": true, "0": true, "20261129T194710-3f9a2c1b": true, "A.b_c-d": true, strings.Repeat("x", 128): true,
		"": false, "-a": false, ".": false, "..": false, "_a": false, "a/b": false, "a\\b": false, "é": false, strings.Repeat("x", 129): false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, !want, want)
		}
	}
}

func TestPermissionAlwaysSurvivesReopen(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "perm")
	mustAppend(t, s,
		event.TurnStart{Turn: 1},
		event.UserMessage{Content: event.Text("go")},
		event.StepStart{Turn: 1, Step: 1},
		event.AssistantMessage{Turn: 1, Step: 1, ToolCalls: []event.ToolCallRequest{{ID: "c1", Name: "bash"}, {ID: "c2", Name: "rm"}, {ID: "c3", Name: "bash"}, {ID: "c4", Name: "bash"}}},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "bash"},
		event.Permission{Turn: 1, Step: 1, CallID: "c1", Tool: "bash", Decision: event.AllowAlways, Source: "user"},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "ok"},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c3", Name: "bash"},
		event.Permission{Turn: 1, Step: 1, CallID: "c3", Tool: "bash", Decision: event.AllowAlways, Source: "user", Scope: []string{"git status"}},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c3", Content: "ok"},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c4", Name: "bash"},
		event.Permission{Turn: 1, Step: 1, CallID: "c4", Tool: "bash", Decision: event.AllowAlways, Source: "session"},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c4", Content: "ok"},
		event.ToolCall{Turn: 1, Step: 1, CallID: "c2", Name: "rm"},
		event.Permission{Turn: 1, Step: 1, CallID: "c2", Tool: "rm", Decision: event.RejectOnce, Source: "user"},
		event.ToolResult{Turn: 1, Step: 1, CallID: "c2", Content: "Error: permission denied by user", IsError: true},
		event.StepEnd{Turn: 1, Step: 1},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted},
	)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := st.Open("perm")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The user's answers, in order, with their scopes; the one applied
	// again (source session) adds nothing.
	got := r.Always("bash")
	if len(got) != 2 || got[0].Scope != nil || got[0].Decision != event.AllowAlways ||
		len(got[1].Scope) != 1 || got[1].Scope[0] != "git status" {
		t.Errorf("Always(bash) = %+v; want the tool-wide answer then the one scoped to git status", got)
	}
	if got := r.Always("rm"); got != nil {
		t.Errorf("Always(rm) = %+v; a once decision must not be remembered", got)
	}
	_, err = r.Append(event.Permission{Turn: 2, Step: 1, CallID: "x", Tool: "bash", Decision: "maybe"})
	if err == nil || !strings.Contains(err.Error(), "no turn is open") && !strings.Contains(err.Error(), "unknown decision") {
		t.Errorf("a bad permission event was accepted: %v", err)
	}
}

// TestAppendProposed: a checked event is appended as AppendRaw would
// append it, its data as checked; a host type's payload is still decoded
// (a todo/write updates Todos); the zero Proposed is refused.
func TestAppendProposed(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "proposed")
	defer s.Close()
	mustAppend(t, s, event.TurnStart{Turn: 1}, event.StepStart{Turn: 1, Step: 1})
	if _, err := s.AppendProposed(event.Proposed{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero Proposed: err = %v, want ErrInvalid", err)
	}
	p, err := event.Propose("plugin/note", json.RawMessage("{\n \"x\": 1\n}"))
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := s.AppendProposed(p); err != nil || string(ev.Data) != `{"x":1}` {
		t.Fatalf("AppendProposed = %s, %v", ev.Data, err)
	}
	todo, err := event.Propose(event.TypeTodoWrite, json.RawMessage(`{"todos":[{"content":"a","status":"pending"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendProposed(todo); err != nil {
		t.Fatal(err)
	}
	if got := s.Todos(); len(got) != 1 || got[0].Content != "a" {
		t.Errorf("Todos = %+v, want the proposed list", got)
	}
	bad, err := event.Propose(event.TypeTodoWrite, json.RawMessage(`{"todos":"all"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendProposed(bad); err == nil || !strings.Contains(err.Error(), "cannot unmarshal") {
		t.Errorf("a todo/write whose payload does not decode: err = %v", err)
	}
}
