package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// TestModes is every mode against every kind of call that needs
// permission: who decides and what, and what an "always" answer would
// cover when the user is asked.
func TestModes(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(cwd, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "gone"), filepath.Join(cwd, "dangling")); err != nil {
		t.Fatal(err)
	}
	fp := func(p string) string { b, _ := json.Marshal(map[string]string{"file_path": p}); return string(b) }

	type call struct {
		tool, kind, args    string
		once                bool
		sandboxed, escalate bool
	}
	calls := map[string]call{
		"read":               {tool: "read", kind: KindRead, args: fp("a.go")},
		"search":             {tool: "grep", kind: KindSearch, args: `{"pattern":"x"}`},
		"think":              {tool: "todo_write", kind: KindThink, args: `{}`},
		"edit inside":        {tool: "edit", kind: KindEdit, args: fp(filepath.Join(cwd, "a.go"))},
		"edit relative":      {tool: "write", kind: KindEdit, args: fp("sub/new.go")},
		"edit outside":       {tool: "edit", kind: KindEdit, args: fp(filepath.Join(outside, "a.go"))},
		"edit via symlink":   {tool: "edit", kind: KindEdit, args: fp("out/a.go")},
		"edit dangling link": {tool: "write", kind: KindEdit, args: fp("dangling")},
		"edit with ..":       {tool: "edit", kind: KindEdit, args: fp("sub/../../x")},
		"edit two paths":     {tool: "edit", kind: KindEdit, args: `{"file_path":"a.go","FILE_PATH":"/etc/passwd"}`},
		"edit no path":       {tool: "edit", kind: KindEdit, args: `{}`},
		"bash":               {tool: "bash", kind: "execute", args: `{"command":"git status -s"}`},
		"fetch":              {tool: "fetch", kind: "fetch", args: `{"url":"https://x"}`},
		"other":              {tool: "deploy", kind: "other", args: `{}`},
		"no kind":            {tool: "mystery", args: `{}`},
		"plugin's question":  {tool: "edit", kind: KindEdit, args: fp(filepath.Join(outside, "a.go")), once: true},
		"bash sandboxed":     {tool: "bash", kind: "execute", args: `{"command":"git status -s"}`, sandboxed: true},
		"bash escalates":     {tool: "bash", kind: "execute", args: `{"command":"git status -s","sandbox":"off"}`, sandboxed: true, escalate: true},
		"bash to .git":       {tool: "bash", kind: "execute", args: `{"command":"cp x .git/hooks/pre-commit"}`, sandboxed: true},
		"mcp execute":        {tool: "mcp__gh__merge", kind: "execute", args: `{}`},
		"delete inside":      {tool: "rm", kind: KindDelete, args: fp("a.go")},
	}
	const (
		asks    = "asks"
		runs    = "runs" // allowed by the mode
		refused = "refused"
	)
	want := map[string]map[Mode]string{
		"read":               {ModeReadOnly: asks, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: runs, ModeAllowAll: runs},
		"search":             {ModeReadOnly: asks, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: runs, ModeAllowAll: runs},
		"think":              {ModeReadOnly: asks, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: runs, ModeAllowAll: runs},
		"edit inside":        {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: runs, ModeAuto: runs, ModeAllowAll: runs},
		"edit relative":      {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: runs, ModeAuto: runs, ModeAllowAll: runs},
		"edit outside":       {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"edit via symlink":   {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"edit dangling link": {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"edit with ..":       {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"edit two paths":     {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"edit no path":       {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"bash":               {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"fetch":              {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"other":              {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"no kind":            {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"plugin's question":  {ModeReadOnly: asks, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"bash sandboxed":     {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: runs, ModeAllowAll: runs},
		"bash escalates":     {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"bash to .git":       {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"mcp execute":        {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
		"delete inside":      {ModeReadOnly: refused, ModeAsk: asks, ModeAcceptEdits: asks, ModeAuto: asks, ModeAllowAll: runs},
	}
	// What the "always" option names when the user is asked.
	covers := map[string]string{
		"edit inside": "edits in this session", "edit relative": "edits in this session",
		"bash": "`git status …`", "read": "read", "search": "grep", "think": "todo_write", "fetch": "fetch",
		"other": "deploy", "no kind": "mystery", "bash sandboxed": "`git status …`", "mcp execute": "mcp__gh__merge",
		"delete inside": "rm",
	}
	for name, c := range calls {
		for _, m := range Modes() {
			t.Run(name+"/"+string(m.ID), func(t *testing.T) {
				t.Parallel()
				var asked *Request
				yes := askerFunc(func(_ context.Context, req Request) (event.Decision, error) {
					asked = &req
					return event.AllowOnce, nil
				})
				chk := Checker{Policy: Policy{Mode: m.ID}, Asker: yes}
				v, err := chk.Check(context.Background(), Request{Tool: c.tool, Kind: c.kind, Cwd: cwd,
					Args: json.RawMessage(c.args), Once: c.once, NoAlways: c.once,
					Sandboxed: c.sandboxed, Escalate: c.escalate, Justification: "needs the network"})
				if err != nil {
					t.Fatal(err)
				}
				var got string
				switch {
				case asked != nil && v.Source == "user" && v.Decision == event.AllowOnce:
					got = asks
				case asked == nil && v.Source == "mode" && v.Decision == event.AllowOnce:
					got = runs
				case asked == nil && v.Source == "mode" && v.Decision == event.RejectOnce:
					got = refused
					if !strings.Contains(v.Reason, "read-only mode") || !strings.Contains(v.Reason, "--mode") || !strings.Contains(v.Reason, c.tool) {
						t.Errorf("reason %q does not say the session is read-only and how to switch", v.Reason)
					}
				default:
					t.Fatalf("Check = %+v (asked: %v)", v, asked != nil)
				}
				if w := want[name][m.ID]; got != w {
					t.Errorf("%s in %s: %s, want %s", name, m.ID, got, w)
				}
				if asked != nil {
					if g := asked.AlwaysCovers(); g != covers[name] {
						t.Errorf("always covers %q, want %q", g, covers[name])
					}
					if note := asked.ProtectedNote(); c.escalate != strings.Contains(note, `"needs the network"`) ||
						c.escalate != strings.Contains(note, "OUTSIDE the sandbox") {
						t.Errorf("the question's note %q: want the justification and the sandbox exactly when it escalates (%v)", note, c.escalate)
					}
				}
			})
		}
	}
}

// TestModesDenyWins: a deny rule rejects in every mode, naming the rule.
func TestModesDenyWins(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	rules := []Rule{{Tool: "edit", Action: Deny}, {Tool: "bash", Prefix: "rm", Action: Deny}}
	for _, m := range Modes() {
		for _, req := range []Request{
			{Tool: "edit", Kind: KindEdit, Cwd: cwd, Args: json.RawMessage(`{"file_path":"a.go"}`)},
			{Tool: "bash", Kind: "execute", Cwd: cwd, Args: json.RawMessage(`{"command":"ls; rm -rf x"}`)},
		} {
			chk := Checker{Policy: Policy{Mode: m.ID, Rules: rules, File: "perm.json"}, Asker: askerFunc(func(context.Context, Request) (event.Decision, error) {
				t.Errorf("%s in %s: asked, want denied by the rule", req.Tool, m.ID)
				return event.AllowOnce, nil
			})}
			v, err := chk.Check(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != event.RejectOnce || v.Source != "rule" || !strings.Contains(v.Reason, "perm.json") {
				t.Errorf("%s in %s: %+v, want rejected by the rule", req.Tool, m.ID, v)
			}
		}
	}
}

// TestAlwaysEdits: "always allow edits" covers every edit-kind tool inside
// the cwd, not outside it, and not in read-only; "always reject edits"
// rejects them everywhere. A user's "always" answer to an edit says so
// (Verdict.Kind) and one to an edit outside the cwd counts once.
func TestAlwaysEdits(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	allowEdits := []event.Permission{{Tool: "write", Decision: event.AllowAlways, Source: "user", Kind: KindEdit}}
	rejectEdits := []event.Permission{{Tool: "write", Decision: event.RejectAlways, Source: "user", Kind: KindEdit}}
	inside := json.RawMessage(`{"file_path":"a.go"}`)
	outside := json.RawMessage(`{"file_path":"/elsewhere/a.go"}`)
	tests := map[string]struct {
		mode   Mode
		args   json.RawMessage
		kindAs []event.Permission
		answer event.Decision // the user's, when asked
		want   Verdict
	}{
		"allow edits covers edit":        {mode: ModeAsk, args: inside, kindAs: allowEdits, want: Verdict{Decision: event.AllowAlways, Source: "session"}},
		"not outside the cwd":            {mode: ModeAsk, args: outside, kindAs: allowEdits, answer: event.AllowOnce, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"not in read-only":               {mode: ModeReadOnly, args: inside, kindAs: allowEdits, want: Verdict{Decision: event.RejectOnce, Source: "mode"}},
		"reject edits rejects inside":    {mode: ModeAllowAll, args: inside, kindAs: rejectEdits, want: Verdict{Decision: event.RejectAlways, Source: "session"}},
		"reject edits rejects outside":   {mode: ModeAcceptEdits, args: outside, kindAs: rejectEdits, want: Verdict{Decision: event.RejectAlways, Source: "session"}},
		"user's always is kind-wide":     {mode: ModeAsk, args: inside, answer: event.AllowAlways, want: Verdict{Decision: event.AllowAlways, Source: "user", Kind: KindEdit}},
		"outside: an always counts once": {mode: ModeAsk, args: outside, answer: event.AllowAlways, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			chk := Checker{Policy: Policy{Mode: tc.mode}, Asker: askerFunc(func(context.Context, Request) (event.Decision, error) {
				if tc.answer == "" {
					t.Error("asked, want decided without asking")
					return event.RejectOnce, nil
				}
				return tc.answer, nil
			})}
			v, err := chk.Check(context.Background(), Request{Tool: "edit", Kind: KindEdit, Cwd: cwd, Args: tc.args, AlwaysKind: tc.kindAs})
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != tc.want.Decision || v.Source != tc.want.Source || v.Kind != tc.want.Kind {
				t.Errorf("Check = %+v, want %+v", v, tc.want)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, m := range Modes() {
		if got, err := ParseMode(string(m.ID)); err != nil || got != m.ID {
			t.Errorf("ParseMode(%q) = %q, %v", m.ID, got, err)
		}
		if m.Name == "" || m.Description == "" {
			t.Errorf("mode %s has no name or description", m.ID)
		}
	}
	if _, err := ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "accept-edits") {
		t.Errorf("ParseMode(yolo) = %v, want an error naming the modes", err)
	}
}

// TestNobodyToAskSaysHow: with no one to ask, the refusal names the mode
// that would let the call run: accept-edits only for an edit inside the
// cwd, auto only for a sandboxed call.
func TestNobodyToAskSaysHow(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	for _, tc := range []struct {
		req              Request
		acceptEdit, auto bool
	}{
		{Request{Tool: "edit", Kind: KindEdit, Cwd: cwd, Args: json.RawMessage(`{"file_path":"a.go"}`)}, true, false},
		{Request{Tool: "edit", Kind: KindEdit, Cwd: cwd, Args: json.RawMessage(`{"file_path":"/etc/passwd"}`)}, false, false},
		{Request{Tool: "bash", Kind: "execute", Cwd: cwd, Args: json.RawMessage(`{"command":"ls"}`)}, false, false},
		{Request{Tool: "bash", Kind: "execute", Cwd: cwd, Args: json.RawMessage(`{"command":"ls"}`), Sandboxed: true}, false, true},
	} {
		v, err := Checker{Policy: Policy{Mode: ModeAsk}}.Check(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision != event.RejectOnce || !strings.Contains(v.Reason, "--yes") ||
			strings.Contains(v.Reason, "accept-edits") != tc.acceptEdit || strings.Contains(v.Reason, "--mode auto") != tc.auto {
			t.Errorf("%s %s: %+v, want a refusal naming --yes (and accept-edits: %v)", tc.req.Tool, tc.req.Args, v, tc.acceptEdit)
		}
	}
}

// TestEscalation: a call asking to run outside the sandbox is asked in
// every mode but allow-all, whatever allow rules and "always" answers
// say; it offers no "always" (one given counts once); a deny rule still
// rejects it; read-only refuses it; with nobody to ask it is refused,
// saying how the user can allow it.
func TestEscalation(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	args := json.RawMessage(`{"command":"curl -o x https://example.com","sandbox":"off","justification":"fetch the release"}`)
	allowAll := []Rule{{Tool: "bash", Action: Allow}}
	allowCurl := []Rule{{Tool: "bash", Prefix: "curl", Action: Allow}}
	alwaysCurl := []event.Permission{{Tool: "bash", Decision: event.AllowAlways, Source: "user", Scope: []string{"curl -o"}}}
	tests := map[string]struct {
		mode   Mode
		rules  []Rule
		always []event.Permission
		nobody bool
		want   Verdict // Source "user": asked
		reason []string
	}{
		"ask":                          {mode: ModeAsk, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"accept-edits":                 {mode: ModeAcceptEdits, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"auto":                         {mode: ModeAuto, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"auto, a tool-wide allow rule": {mode: ModeAuto, rules: allowAll, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"ask, a prefix allow rule":     {mode: ModeAsk, rules: allowCurl, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"auto, an always answer":       {mode: ModeAuto, always: alwaysCurl, want: Verdict{Decision: event.AllowOnce, Source: "user"}},
		"allow-all runs it":            {mode: ModeAllowAll, want: Verdict{Decision: event.AllowOnce, Source: "mode"}},
		"deny rule wins":               {mode: ModeAllowAll, rules: []Rule{{Tool: "bash", Prefix: "curl", Action: Deny}}, want: Verdict{Decision: event.RejectOnce, Source: "rule"}},
		"read-only refuses":            {mode: ModeReadOnly, rules: allowAll, want: Verdict{Decision: event.RejectOnce, Source: "mode"}, reason: []string{"read-only"}},
		"nobody to ask":                {mode: ModeAuto, rules: allowAll, nobody: true, want: Verdict{Decision: event.RejectOnce, Source: "protected"}, reason: []string{"outside the sandbox", "allow-all", "--sandbox off"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var asked *Request
			chk := Checker{Policy: Policy{Mode: tc.mode, Rules: tc.rules}}
			if !tc.nobody {
				chk.Asker = askerFunc(func(_ context.Context, req Request) (event.Decision, error) {
					asked = &req
					return event.AllowAlways, nil // counts once
				})
			}
			v, err := chk.Check(context.Background(), Request{Tool: "bash", Kind: "execute", Cwd: cwd, Args: args, Always: tc.always,
				Sandboxed: true, Escalate: true, Justification: "fetch the\nrelease"})
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != tc.want.Decision || (v.Source != tc.want.Source && !(tc.nobody && v.Source != "user")) || v.Scope != nil {
				t.Errorf("Check = %+v, want %+v", v, tc.want)
			}
			if (asked != nil) != (tc.want.Source == "user") {
				t.Errorf("asked %v, want %v", asked != nil, tc.want.Source == "user")
			}
			if asked != nil && (asked.AlwaysCovers() != "" || !strings.Contains(asked.ProtectedNote(), `"fetch the release"`)) {
				t.Errorf("the question offers %q and says %q; want no always, the justification on one line", asked.AlwaysCovers(), asked.ProtectedNote())
			}
			for _, w := range tc.reason {
				if !strings.Contains(v.Reason, w) {
					t.Errorf("reason %q lacks %q", v.Reason, w)
				}
			}
		})
	}
}
