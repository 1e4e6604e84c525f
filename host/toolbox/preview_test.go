package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// TestPreviewOnlyWhenDeclared: the toolbox sends a Preview RPC for the
// calls of a tool that declared a preview, one per call, and none for a
// tool that did not; a plugin before minor 5, which declares nothing, is
// asked for every call as before. The plugin counts the RPCs it gets.
func TestPreviewOnlyWhenDeclared(t *testing.T) {
	t.Parallel()
	const calls = 3
	for _, tc := range []struct {
		plugin     string
		hasPreview map[string]bool
		want       map[string]int
	}{
		{"previewcount", map[string]bool{"plain": false, "shown": true}, map[string]int{"plain": 0, "shown": calls}},
		{"previewcount-4", map[string]bool{"plain": true, "shown": true}, map[string]int{"plain": calls, "shown": calls}},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			t.Parallel()
			tb := open(t, testConfig(t, pluginDir(t, tc.plugin)))
			for name, want := range tc.hasPreview {
				if got := toolNamed(t, tb, name).HasPreview; got != want {
					t.Errorf("tool %s HasPreview = %v, want %v", name, got, want)
				}
			}
			ctx := context.Background()
			for i := range calls {
				for _, name := range []string{"plain", "shown"} {
					c := tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), Turn: 1,
						CallID: fmt.Sprintf("%s-%d", name, i), Name: name, Args: `{"what":"it"}`, Cwd: "/src"}
					m := tb.Preview(ctx, c)
					if want := map[string]string{"plain": "", "shown": "Show it"}[name]; m.Title != want {
						t.Errorf("preview of %s titled %q, want %q", name, m.Title, want)
					}
					if r := tb.Call(ctx, c); r.IsError || r.Content != "ran "+name {
						t.Errorf("call %s = %+v", name, r)
					}
				}
			}
			r := call(tb, "count", `{}`)
			var got map[string]int
			if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
				t.Fatalf("count answered %q: %v", r.Content, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Preview RPCs per tool after %d calls of each (-want +got):\n%s", calls, diff)
			}
		})
	}
}

// TestDeclaredTitle: a tool's declared title template (todo_write's
// "Update todo list") titles its calls without an RPC, through Title and
// as the title of its preview.
func TestDeclaredTitle(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "todo")))
	if got := toolNamed(t, tb, "todo_write"); got.TitleTemplate != "Update todo list" || got.HasPreview {
		t.Errorf("todo_write: Title %q, HasPreview %v; want its declared title and no preview", got.TitleTemplate, got.HasPreview)
	}
	if got := tb.Title("todo_write", json.RawMessage(todoArgs)); got != "Update todo list" {
		t.Errorf("Title(todo_write) = %q", got)
	}
	if got := tb.Title("nope", json.RawMessage(`{}`)); got != "" {
		t.Errorf("Title of an unknown tool = %q, want empty", got)
	}
	m := tb.Preview(context.Background(), tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), CallID: "c1",
		Name: "todo_write", Args: todoArgs, Cwd: "/src"})
	if m.Title != "Update todo list" {
		t.Errorf("preview of todo_write titled %q", m.Title)
	}
}
