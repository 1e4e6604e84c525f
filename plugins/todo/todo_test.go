package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	plugintest.Conformance(t, plugintest.Start(t, todoPlugin()))
}

// TestTodoWrite covers every rule of todo_write, the order in which they
// are checked and their exact messages, through the real gRPC path.
func TestTodoWrite(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, todoPlugin())

	const (
		agent = pluginapi.CallerAgent
		none  = pluginapi.CallerNone
	)
	tests := []struct {
		name    string
		args    string
		caller  pluginapi.CallerKind
		session string
		want    string // the result's content
		isError bool
		event   string // the todo/write data, when it succeeds
	}{
		// 1. The schema: types, required keys, the status enum, no unknown keys.
		{name: "no arguments", args: ``, want: `Error: invalid arguments: missing required property "todos"`, isError: true},
		{name: "todos missing", args: `{}`, want: `Error: invalid arguments: missing required property "todos"`, isError: true},
		{name: "todos not an array", args: `{"todos":"nope"}`, want: `Error: invalid arguments: todos: expected array, got string`, isError: true},
		{name: "todos null", args: `{"todos":null}`, want: `Error: invalid arguments: todos: expected array, got null`, isError: true},
		{name: "arguments not an object", args: `[]`, want: `Error: invalid arguments: the arguments must be a JSON object, got array`, isError: true},
		{name: "malformed JSON", args: `{"todos":[`, want: `Error: invalid arguments: malformed JSON: unexpected EOF`, isError: true},
		{name: "unknown top-level key", args: `{"todos":[],"extra":1}`, want: `Error: invalid arguments: unknown property "extra"`, isError: true},
		{name: "item not an object", args: `{"todos":["write tests"]}`, want: `Error: invalid arguments: todos[0]: expected object, got string`, isError: true},
		{name: "status not in the enum", args: `{"todos":[{"content":"a","status":"doing"}]}`,
			want: `Error: invalid arguments: todos[0].status: "doing" is not one of "pending", "in_progress", "completed"`, isError: true},
		{name: "status missing", args: `{"todos":[{"content":"a"}]}`, want: `Error: invalid arguments: todos[0]: missing required property "status"`, isError: true},
		{name: "content missing", args: `{"todos":[{"status":"pending"}]}`, want: `Error: invalid arguments: todos[0]: missing required property "content"`, isError: true},
		{name: "content not a string", args: `{"todos":[{"content":5,"status":"pending"}]}`, want: `Error: invalid arguments: todos[0].content: expected string, got number`, isError: true},
		{name: "unknown item key", args: `{"todos":[{"content":"a","status":"pending","priority":"high"}]}`,
			want: `Error: invalid arguments: todos[0]: unknown property "priority"`, isError: true},
		{name: "schema before values", args: `{"todos":[{"content":"","status":"pending"},{"content":"b","status":"doing"}]}`,
			want: `Error: invalid arguments: todos[1].status: "doing" is not one of "pending", "in_progress", "completed"`, isError: true},
		{name: "schema before caller", args: `{"todos":"nope"}`, caller: none,
			want: `Error: invalid arguments: todos: expected array, got string`, isError: true},

		// 2. The values, item by item, then the in_progress count.
		{name: "empty content", args: `{"todos":[{"content":"","status":"pending"}]}`,
			want: "Error: invalid todo: `content` must be a non-empty string", isError: true},
		{name: "blank content", args: `{"todos":[{"content":"a","status":"pending"},{"content":" \t\n","status":"pending"}]}`,
			want: "Error: invalid todo: `content` must be a non-empty string", isError: true},
		{name: "duplicate content after trimming", args: `{"todos":[{"content":"write tests","status":"pending"},{"content":"  write tests ","status":"completed"}]}`,
			want: `Error: invalid todos: duplicate content "write tests"`, isError: true},
		{name: "duplicate content is JSON-quoted", args: `{"todos":[{"content":"say \"hi\" <b>","status":"pending"},{"content":"say \"hi\" <b>","status":"pending"}]}`,
			want: `Error: invalid todos: duplicate content "say \"hi\" <b>"`, isError: true},
		{name: "two in progress", args: `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`,
			want: `Error: invalid todos: at most one task may be in_progress, got 2`, isError: true},
		{name: "three in progress", args: `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"},{"content":"c","status":"in_progress"}]}`,
			want: `Error: invalid todos: at most one task may be in_progress, got 3`, isError: true},
		{name: "item errors before the count", args: `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"},{"content":"","status":"pending"}]}`,
			want: "Error: invalid todo: `content` must be a non-empty string", isError: true},
		{name: "duplicate before the count", args: `{"todos":[{"content":"a","status":"in_progress"},{"content":"a","status":"in_progress"}]}`,
			want: `Error: invalid todos: duplicate content "a"`, isError: true},
		{name: "first bad item wins", args: `{"todos":[{"content":"a","status":"pending"},{"content":"a","status":"pending"},{"content":"","status":"pending"}]}`,
			want: `Error: invalid todos: duplicate content "a"`, isError: true},

		// 3. The caller, after the list.
		{name: "no owning session", args: `{"todos":[]}`, caller: none, want: `Error: todo_write requires an owning agent session`, isError: true},
		{name: "unspecified caller", args: `{"todos":[]}`, caller: "-", want: `Error: todo_write requires an owning agent session`, isError: true},
		{name: "agent without a session id", args: `{"todos":[]}`, session: "-", want: `Error: todo_write requires an owning agent session`, isError: true},
		{name: "list before caller", args: `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`, caller: none,
			want: `Error: invalid todos: at most one task may be in_progress, got 2`, isError: true},

		// Success.
		{name: "a plan", args: `{"todos":[{"content":"  read the code ","status":"completed"},{"content":"write the test","status":"in_progress"},{"content":"fix the bug","status":"pending"},{"content":"run CI","status":"pending"}]}`,
			want:  `Updated todo list: 2 pending, 1 in progress, 1 completed.`,
			event: `{"todos":[{"content":"read the code","status":"completed"},{"content":"write the test","status":"in_progress"},{"content":"fix the bug","status":"pending"},{"content":"run CI","status":"pending"}]}`},
		{name: "all done", args: `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"completed"}]}`,
			want: `Updated todo list: 0 pending, 0 in progress, 2 completed.`, event: `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"completed"}]}`},
		{name: "empty list", args: `{"todos":[]}`,
			want: `Updated todo list: 0 pending, 0 in progress, 0 completed.`, event: `{"todos":[]}`},
		{name: "unicode and markup kept", args: `{"todos":[{"content":"修复 <b>&</b>","status":"pending"}]}`,
			want: `Updated todo list: 1 pending, 0 in progress, 0 completed.`, event: `{"todos":[{"content":"修复 <b>&</b>","status":"pending"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := pluginapi.CallRequest{Tool: toolName, Args: json.RawMessage(tt.args), Caller: agent, SessionID: "s1", Turn: 1, CallID: "c-" + tt.name}
			switch tt.caller {
			case "":
			case "-":
				req.Caller = ""
			default:
				req.Caller = tt.caller
			}
			if tt.session == "-" {
				req.SessionID = ""
			}
			res, err := c.Execute(t.Context(), req, nil)
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if res.Content != tt.want || res.IsError != tt.isError {
				t.Errorf("got (%q, isError %v), want (%q, isError %v)", res.Content, res.IsError, tt.want, tt.isError)
			}
			if tt.event == "" {
				if len(res.Events) != 0 {
					t.Errorf("a failed call proposed events: %v", res.Events)
				}
				return
			}
			if len(res.Events) != 1 {
				t.Fatalf("got %d events, want one todo/write", len(res.Events))
			}
			if res.Events[0].Type != "todo/write" {
				t.Errorf("event type %q, want todo/write", res.Events[0].Type)
			}
			if got := string(res.Events[0].Data); got != tt.event {
				t.Errorf("event data\n got %s\nwant %s", got, tt.event)
			}
		})
	}
}

// TestReplaces checks that the plugin keeps no state: each call's event
// carries exactly the list it was sent.
func TestReplaces(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, todoPlugin())
	for _, list := range []string{
		`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"pending"}]}`,
		`{"todos":[{"content":"b","status":"in_progress"}]}`,
	} {
		res := plugintest.Exec(t, c, pluginapi.CallRequest{Tool: toolName, Args: json.RawMessage(list)})
		if len(res.Events) != 1 || string(res.Events[0].Data) != list {
			t.Errorf("sent %s, proposed %v", list, res.Events)
		}
	}
}

// TestSpec pins what the model and the host see: the seed's wire schema,
// the flags and the description's rules.
func TestSpec(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, todoPlugin())
	d, err := c.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "todo" || d.Version != "1.0.0" || !cmp.Equal(d.EventTypes, []string{"todo/write"}) {
		t.Errorf("plugin %s %s, event types %v", d.Name, d.Version, d.EventTypes)
	}
	if len(d.Tools) != 1 {
		t.Fatalf("got %d tools, want 1", len(d.Tools))
	}
	tool := d.Tools[0]
	if tool.Name != "todo_write" || tool.ConcurrencySafe || tool.NeedsPermission {
		t.Errorf("tool %s, concurrency-safe %v, needs permission %v; want todo_write, false, false", tool.Name, tool.ConcurrencySafe, tool.NeedsPermission)
	}
	const wantSchema = `{"type":"object","properties":{"todos":{"type":"array","description":"The COMPLETE task list, replacing any previous list.",
		"items":{"type":"object","additionalProperties":false,"properties":{
			"content":{"type":"string","description":"What the task is — a short imperative line."},
			"status":{"type":"string","description":"pending (not started) | in_progress (now) | completed (done).","enum":["pending","in_progress","completed"]}},
		"required":["content","status"]}}},"required":["todos"],"additionalProperties":false}`
	var got, want any
	if err := json.Unmarshal(tool.Schema, &got); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if err := json.Unmarshal([]byte(wantSchema), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	for _, rule := range []string{"ENTIRE list", "REPLACES", "AT MOST ONE", "exactly one todo should be in_progress", "completed the moment", "Skip the list for trivial", "pending: not started", "in_progress: being worked on now", "completed: finished"} {
		if !strings.Contains(tool.Description, rule) {
			t.Errorf("the description lacks %q", rule)
		}
	}
}
