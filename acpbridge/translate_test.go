package acpbridge

import (
	"encoding/json"
	"regexp"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
)

func ev(t *testing.T, p event.Payload) event.Event {
	t.Helper()
	data, err := event.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return event.Event{Type: p.EventType(), Data: data}
}

func jsonOf(t *testing.T, ups []acp.SessionUpdate) []string {
	t.Helper()
	var out []string
	for _, u := range ups {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestTranslate(t *testing.T) {
	t.Parallel()
	mid := func(kind string, turn, step int) string {
		tr := translator{sessionID: "s"}
		return tr.messageID(kind, turn, step)
	}
	user := event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "hi"}}}
	answer := event.AssistantMessage{Turn: 1, Step: 1, Text: "Hello.", Reasoning: "Greet.",
		ToolCalls: []event.ToolCallRequest{{ID: "c1", Name: "x", Arguments: "{}"}}}
	tests := []struct {
		name   string
		replay bool
		ev     event.Event
		want   []string
	}{
		{"user message live", false, ev(t, user), nil},
		{"user message replay", true, ev(t, user),
			[]string{`{"content":{"text":"hi","type":"text"},"messageId":"` + mid(kindUser, 1, 0) + `","sessionUpdate":"user_message_chunk"}`}},
		{"assistant live", false, ev(t, answer), nil},
		{"assistant replay", true, ev(t, answer), []string{
			`{"content":{"text":"Greet.","type":"text"},"messageId":"` + mid(kindThought, 1, 1) + `","sessionUpdate":"agent_thought_chunk"}`,
			`{"content":{"text":"Hello.","type":"text"},"messageId":"` + mid(kindText, 1, 1) + `","sessionUpdate":"agent_message_chunk"}`,
		}},
		{"empty todo list clears the plan", false, ev(t, event.TodoWrite{}), []string{`{"entries":[],"sessionUpdate":"plan"}`}},
		{"unknown tool, arguments not JSON", false, ev(t, event.ToolCall{CallID: "c9", Name: "frob", Args: "{oops"}), []string{
			`{"kind":"other","rawInput":"{oops","sessionUpdate":"tool_call","status":"pending","title":"frob","toolCallId":"c9"}`,
		}},
		{"result without content", false, ev(t, event.ToolResult{CallID: "c9"}),
			[]string{`{"rawOutput":{"content":""},"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c9"}`}},
		{"turn and step boundaries show nothing", true, ev(t, event.StepEnd{Turn: 1, Step: 1}), nil},
		{"a plugin's own event shows nothing", true, event.Event{Type: "acme/thing", Data: json.RawMessage(`{}`)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := translator{sessionID: "s", replay: tc.replay, turn: 1}
			ups, err := tr.updates(tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, jsonOf(t, ups)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPendingUntilApproved: a tool call is pending until it runs — an
// allowing decision, the loop's start or the next other event makes it
// in_progress; a rejected one never is.
func TestPendingUntilApproved(t *testing.T) {
	t.Parallel()
	call := func(id string) event.Event { return ev(t, event.ToolCall{CallID: id, Name: "bash", Args: "{}"}) }
	decide := func(id string, d event.Decision) event.Event {
		return ev(t, event.Permission{CallID: id, Tool: "bash", Decision: d, Source: event.SourceUser})
	}
	result := func(id string) event.Event { return ev(t, event.ToolResult{CallID: id, Content: "ok"}) }
	type step struct {
		ev    event.Event
		start string
	}
	tests := []struct {
		name  string
		steps []step
		want  []string // call id and status of each tool update, in order
	}{
		{"asked and allowed", []step{{ev: call("a")}, {ev: decide("a", event.AllowOnce)}, {start: "a"}, {ev: result("a")}},
			[]string{"a pending", "a in_progress", "a completed"}},
		{"asked and rejected", []step{{ev: call("a")}, {ev: decide("a", event.RejectOnce)}, {ev: result("a")}},
			[]string{"a pending", "a completed"}},
		{"not asked: started by the loop", []step{{ev: call("a")}, {start: "a"}, {start: "a"}, {ev: result("a")}},
			[]string{"a pending", "a in_progress", "a completed"}},
		{"replay: the next event starts it", []step{{ev: call("a")}, {ev: call("b")}, {ev: decide("b", event.AllowAlways)}, {ev: result("a")}, {ev: result("b")}},
			[]string{"a pending", "a in_progress", "b pending", "b in_progress", "a completed", "b completed"}},
		{"another call's decision starts the first", []step{{ev: call("a")}, {ev: call("b")}, {ev: decide("b", event.RejectOnce)}, {ev: result("b")}},
			[]string{"a pending", "a in_progress", "b pending", "b completed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := translator{sessionID: "s"}
			var got []string
			for _, st := range tc.steps {
				var ups []acp.SessionUpdate
				if st.start != "" {
					ups = tr.start(st.start)
				} else {
					var err error
					if ups, err = tr.updates(st.ev); err != nil {
						t.Fatal(err)
					}
				}
				for _, u := range ups {
					switch {
					case u.ToolCall != nil:
						got = append(got, string(u.ToolCall.ToolCallId)+" "+string(u.ToolCall.Status))
					case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
						got = append(got, string(u.ToolCallUpdate.ToolCallId)+" "+string(*u.ToolCallUpdate.Status))
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTranslateBadPayload(t *testing.T) {
	t.Parallel()
	tr := translator{sessionID: "s"}
	if ups, err := tr.updates(event.Event{Type: event.TypeTodoWrite, Data: json.RawMessage(`{"todos":"all"}`)}); err == nil || ups != nil {
		t.Errorf("bad payload: %v, %v; want an error and nothing", ups, err)
	}
}

func TestMessageID(t *testing.T) {
	t.Parallel()
	a := translator{sessionID: "s1"}
	b := translator{sessionID: "s1", replay: true}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	id := a.messageID(kindText, 3, 2)
	if !uuid.MatchString(id) {
		t.Errorf("message id %q is not a version 5 UUID", id)
	}
	if id != b.messageID(kindText, 3, 2) {
		t.Error("live and replay ids differ")
	}
	others := []string{a.messageID(kindThought, 3, 2), a.messageID(kindText, 3, 1), a.messageID(kindText, 2, 2),
		(&translator{sessionID: "s2"}).messageID(kindText, 3, 2)}
	for _, o := range others {
		if o == id {
			t.Errorf("id %s shared by another message", id)
		}
	}
	// Live deltas take the turn and step from the events seen.
	for _, p := range []event.Payload{event.TurnStart{Turn: 3}, event.StepStart{Turn: 3, Step: 2}} {
		if _, err := a.updates(ev(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	if got := *a.delta(kindText, "x").AgentMessageChunk.MessageId; got != id {
		t.Errorf("delta message id %s, want %s", got, id)
	}
}

func TestPresent(t *testing.T) {
	t.Parallel()
	// logged is the title the host logged with the call: what the
	// plugins declare (bash "{command}", todo_write "Update todo list"),
	// expanded for the arguments; empty when the tool declares none.
	tests := []struct {
		name, logged, args, declared string
		title                        string
		kind                         acp.ToolKind
		raw                          any
	}{
		{"bash", "ls -la", `{"command":"  ls -la\n","description":"List"}`, "execute", "ls -la", acp.ToolKindExecute, map[string]any{"command": "  ls -la\n", "description": "List"}},
		{"bash", "", `{"description":"no command"}`, "execute", "bash", acp.ToolKindExecute, map[string]any{"description": "no command"}},
		{"todo_write", "Update todo list", `{"todos":[]}`, "", "Update todo list", acp.ToolKindOther, map[string]any{"todos": []any{}}},
		{"read_file", "", `{"path":"a.go"}`, "", "read_file", acp.ToolKindOther, map[string]any{"path": "a.go"}},
		{"read_file", "", ``, "", "read_file", acp.ToolKindOther, map[string]any{}},
		{"", "", `[1]`, "", "tool call", acp.ToolKindOther, []any{1.0}},
		// The kind the plugin declared wins; an unknown one is other.
		{"todo_write", "Update todo list", `{"todos":[]}`, "think", "Update todo list", acp.ToolKindThink, map[string]any{"todos": []any{}}},
		{"read", "", `{"file_path":"/a"}`, "read", "read", acp.ToolKindRead, map[string]any{"file_path": "/a"}},
		{"bash", "ls", `{"command":"ls"}`, "other", "ls", acp.ToolKindOther, map[string]any{"command": "ls"}},
		{"x", "", `{}`, "explode", "x", acp.ToolKindOther, map[string]any{}},
		// A logged title is trimmed; a blank one shows the name.
		{"edit", "  Edit a.go\n", `{}`, "edit", "Edit a.go", acp.ToolKindEdit, map[string]any{}},
		{"edit", " ", `{}`, "edit", "edit", acp.ToolKindEdit, map[string]any{}},
	}
	for _, tc := range tests {
		pr := present(tc.name, tc.logged, tc.args, tc.declared)
		if pr.title != tc.title || pr.kind != tc.kind || !cmp.Equal(pr.rawInput, tc.raw) {
			t.Errorf("present(%q, %q, %q) = %+v, want title %q kind %s raw %v", tc.name, tc.logged, tc.args, pr, tc.title, tc.kind, tc.raw)
		}
	}
}

func TestPromptContentRefuses(t *testing.T) {
	t.Parallel()
	for name, blocks := range map[string][]acp.ContentBlock{
		"empty":                nil,
		"image of a text type": {acp.ImageBlock("AA==", "text/plain")},
		"image not base64":     {acp.ImageBlock("@@", "image/png")},
		"image without data":   {acp.ImageBlock("", "image/png")},
		"audio":                {acp.AudioBlock("AA==", "audio/wav")},
		"none":                 {{}},
	} {
		if _, err := promptContent(blocks); err == nil {
			t.Errorf("%s prompt accepted", name)
		}
	}
}

// TestUpdateLine checks that the bridge writes a session/update exactly as
// the SDK would.
func TestUpdateLine(t *testing.T) {
	t.Parallel()
	tr := translator{sessionID: "s\"1", replay: true}
	var ups []acp.SessionUpdate
	for _, p := range []event.Payload{
		event.TurnStart{Turn: 1},
		event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "<hi> & \u2028"}, {Type: event.ContentResource, URI: "file:///a", Text: "x"}}},
		event.AssistantMessage{Turn: 1, Step: 1, Text: "t", Reasoning: "r"},
		event.ToolCall{CallID: "c", Name: "bash", Args: `{"command":"ls"}`},
		event.TodoWrite{Todos: []event.Todo{{Content: "a", Status: event.TodoCompleted}}},
		event.ToolResult{CallID: "c", Content: "out", IsError: true},
	} {
		u, err := tr.updates(ev(t, p))
		if err != nil {
			t.Fatal(err)
		}
		ups = append(ups, u...)
	}
	for _, u := range ups {
		got, err := updateLine(tr.sessionID, u)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(struct {
			JSONRPC string                  `json:"jsonrpc"`
			Method  string                  `json:"method"`
			Params  acp.SessionNotification `json:"params"`
		}{"2.0", "session/update", acp.SessionNotification{SessionId: acp.SessionId(tr.sessionID), Update: u}})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want)+"\n" {
			t.Errorf("bridge wrote\n%s\nthe SDK writes\n%s", got, want)
		}
	}
}

// TestPromptContentImage: an image block becomes image content with its
// bytes decoded, for the Session to store as a blob.
func TestPromptContentImage(t *testing.T) {
	t.Parallel()
	got, err := promptContent([]acp.ContentBlock{acp.TextBlock("what is this?"), acp.ImageBlock("iVBORw==", "Image/PNG")})
	if err != nil {
		t.Fatal(err)
	}
	want := []event.Content{{Type: event.ContentText, Text: "what is this?"}, {Type: event.ContentImage, MimeType: "image/png", Data: []byte("\x89PNG")}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("promptContent (-want +got):\n%s", d)
	}
}
