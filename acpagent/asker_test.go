package acpagent

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
)

// bridgeAsker records what the editor would be asked.
type bridgeAsker struct{ title, always string }

func (b *bridgeAsker) AskPermission(_ context.Context, _, _, title, always string) (event.Decision, error) {
	b.title, b.always = title, always
	return event.AllowOnce, nil
}

// TestEditorAskerProtected: the editor's question about a call touching a
// protected path offers no "always" and its title says the path is
// protected and why; other questions keep their title and "always".
func TestEditorAskerProtected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		req    permission.Request
		title  string // what the title holds; "" for none (the call's own)
		always string
	}{
		{req: permission.Request{Tool: "edit", NoAlways: true, Protected: ".git/config", ProtectedWhy: "it is in a git folder (.git)"},
			title: "edit .git/config — .git/config is protected: it is in a git folder (.git). \"Always\" is not offered"},
		{req: permission.Request{Tool: "edit", Title: "subagent \"x\" to run edit", NoAlways: true, Protected: ".vscode/tasks.json", ProtectedWhy: "editor settings"},
			title: "subagent \"x\" to run edit — .vscode/tasks.json is protected: editor settings."},
		{req: permission.Request{Tool: "edit", ScopeKind: permission.KindEdit}, always: "edits in this session"},
	} {
		var b bridgeAsker
		if _, err := (editorAsker{&b}).Ask(context.Background(), tc.req); err != nil {
			t.Fatal(err)
		}
		if b.always != tc.always {
			t.Errorf("%+v: always %q, want %q", tc.req, b.always, tc.always)
		}
		if tc.title == "" && b.title != "" || !strings.Contains(b.title, tc.title) {
			t.Errorf("%+v: title %q, want %q in it", tc.req, b.title, tc.title)
		}
	}
}
