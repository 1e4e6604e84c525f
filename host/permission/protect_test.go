//go:build unix

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

// protectFixture is a project with a .git folder, a worktree whose .git
// file points elsewhere, harness's config folder, and symlinks into them.
type protectFixture struct {
	cwd, worktree, cfg, store string
}

func newProtectFixture(t *testing.T) protectFixture {
	t.Helper()
	root := t.TempDir()
	f := protectFixture{cwd: filepath.Join(root, "proj"), worktree: filepath.Join(root, "wt"),
		cfg: filepath.Join(root, "config", "harness"), store: filepath.Join(root, "repo-store")}
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		mkdir(filepath.Dir(p))
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(f.cwd, ".git", "config"), "[core]\n")
	mkdir(filepath.Join(f.cwd, ".git", "hooks"))
	write(filepath.Join(f.cwd, "a.go"), "package a\n")
	write(filepath.Join(f.cfg, "permissions.json"), `{"rules":[]}`)
	link(filepath.Join(f.cwd, ".git", "config"), filepath.Join(f.cwd, "gitconfig"))    // a file link
	link(filepath.Join(f.cwd, ".git", "hooks"), filepath.Join(f.cwd, "hooks"))         // a folder link
	link(f.cfg, filepath.Join(f.cwd, "cfg"))                                           // into harness's config
	link(filepath.Join(f.cfg, "new.json"), filepath.Join(f.cwd, "dangling"))           // a write creates it
	link(filepath.Join(f.cwd, "loop"), filepath.Join(f.cwd, "loop"))                   // never resolves
	link(filepath.Join(root, "elsewhere"), filepath.Join(f.cwd, "out"))                // harmless
	link(filepath.Join(f.cwd, "sub", "..", "cfg"), filepath.Join(f.cwd, "cfg-dotdot")) // through .. in a link
	mkdir(filepath.Join(root, "elsewhere"))
	// A worktree: its .git is a file naming its git folder, whose
	// commondir names the main one; neither has .git in its path.
	write(filepath.Join(f.store, "config"), "[core]\n")
	write(filepath.Join(f.store, "worktrees", "wt", "commondir"), "../..\n")
	write(filepath.Join(f.store, "worktrees", "wt", "HEAD"), "ref: refs/heads/wt\n")
	write(filepath.Join(f.worktree, ".git"), "gitdir: "+filepath.Join(f.store, "worktrees", "wt")+"\n")
	write(filepath.Join(f.worktree, "b.go"), "package b\n")
	link(f.store, filepath.Join(f.worktree, "store")) // the worktree's git folder, under another name
	mkdir(filepath.Join(f.cwd, "sub"))
	return f
}

// TestProtected is every mode against calls that touch protected paths
// and calls that do not, with no "always" answer, with "always allow"
// answers for the tool and for edits in the session, and with an allow
// rule: a protected call asks in every mode but read-only (refused) and
// allow-all (runs), whatever the answers and rules, and its question
// says why and offers no "always".
func TestProtected(t *testing.T) {
	t.Parallel()
	f := newProtectFixture(t)
	fp := func(p string) string { b, _ := json.Marshal(map[string]string{"file_path": p}); return string(b) }
	type call struct {
		tool, kind, cwd, args string
		protected             bool
		outside               bool // an edit that accept-edits asks about
	}
	calls := map[string]call{
		"normal edit":                  {tool: "edit", kind: KindEdit, args: fp("a.go")},
		"normal new file":              {tool: "write", kind: KindEdit, args: fp("sub/new.go")},
		"edit .git/config":             {tool: "edit", kind: KindEdit, args: fp(".git/config"), protected: true},
		"edit .GIT/Config":             {tool: "edit", kind: KindEdit, args: fp(".GIT/Config"), protected: true},
		"absolute .git":                {tool: "write", kind: KindEdit, args: fp(filepath.Join(f.cwd, ".git", "hooks", "pre-commit")), protected: true},
		"nested .git":                  {tool: "write", kind: KindEdit, args: fp("vendor/x/.git/config"), protected: true},
		".git via ..":                  {tool: "write", kind: KindEdit, args: fp("sub/../.git/config"), protected: true},
		".mcp.json":                    {tool: "write", kind: KindEdit, args: fp(".mcp.json"), protected: true},
		".Vscode":                      {tool: "write", kind: KindEdit, args: fp(".Vscode/tasks.json"), protected: true},
		".idea":                        {tool: "write", kind: KindEdit, args: fp(".idea/workspace.xml"), protected: true},
		".zed":                         {tool: "write", kind: KindEdit, args: fp(".zed/settings.json"), protected: true},
		"symlink to .git/config":       {tool: "edit", kind: KindEdit, args: fp("gitconfig"), protected: true},
		"new file in linked .git":      {tool: "write", kind: KindEdit, args: fp("hooks/post-checkout"), protected: true},
		"harness's rules":              {tool: "write", kind: KindEdit, args: fp(filepath.Join(f.cfg, "permissions.json")), protected: true},
		"harness's rules, any case":    {tool: "write", kind: KindEdit, args: fp(strings.ToUpper(filepath.Join(f.cfg, "permissions.json"))), protected: true},
		"harness's config via link":    {tool: "write", kind: KindEdit, args: fp("cfg/permissions.json"), protected: true},
		"dangling link to config":      {tool: "write", kind: KindEdit, args: fp("dangling"), protected: true},
		"link with .. to config":       {tool: "write", kind: KindEdit, args: fp("cfg-dotdot/mcp.json"), protected: true},
		".. after a link":              {tool: "write", kind: KindEdit, args: fp("cfg/../harness/config.toml"), protected: true},
		"symlink loop":                 {tool: "write", kind: KindEdit, args: fp("loop/x"), protected: true},
		"harmless link":                {tool: "write", kind: KindEdit, args: fp("out/x.txt"), outside: true},
		"worktree file":                {tool: "edit", kind: KindEdit, cwd: f.worktree, args: fp("b.go")},
		"worktree's gitdir":            {tool: "edit", kind: KindEdit, cwd: f.worktree, args: fp(filepath.Join(f.store, "worktrees", "wt", "HEAD")), protected: true},
		"worktree's commondir":         {tool: "edit", kind: KindEdit, cwd: f.worktree, args: fp(filepath.Join(f.store, "config")), protected: true},
		"git store no .git file names": {tool: "edit", kind: KindEdit, args: fp(filepath.Join(f.store, "hooks", "pre-push")), outside: true},
		"through the path's .git file": {tool: "edit", kind: KindEdit, args: fp(filepath.Join(f.worktree, "store", "config")), protected: true},
		"paths list":                   {tool: "move", kind: KindMove, args: `{"paths":["a.go",".git/HEAD"]}`, protected: true},
		"nested path arg":              {tool: "multi_edit", kind: KindEdit, args: `{"edits":[{"file_path":"a.go"},{"file_path":".git/config"}]}`, protected: true},
		"source/destination":           {tool: "mv", kind: KindMove, args: `{"source":"a.go","destination":".vscode/a.go"}`, protected: true},
		"file uri":                     {tool: "write_file", args: `{"uri":"file://` + filepath.Join(f.cwd, ".git", "config") + `"}`, protected: true},
		"delete the project":           {tool: "rm", kind: KindDelete, args: `{"path":"."}`, protected: true},
		"delete a config parent":       {tool: "rm", kind: KindDelete, args: `{"path":"` + filepath.Dir(f.cfg) + `"}`, protected: true},
		"no kind, the project":         {tool: "mcp__files__list", args: `{"path":"."}`},
		"edit names the project":       {tool: "touch", kind: KindEdit, args: `{"path":"."}`, outside: true},
		"bash":                         {tool: "bash", kind: "execute", args: `{"command":"git status"}`},
		"bash cp into hooks":           {tool: "bash", kind: "execute", args: `{"command":"cp evil.sh .git/hooks/pre-commit"}`, protected: true},
		"bash tee the rules":           {tool: "bash", kind: "execute", args: `{"command":"echo '{}' | tee ` + filepath.Join(f.cfg, "permissions.json") + `"}`, protected: true},
		"bash dd of=":                  {tool: "bash", kind: "execute", args: `{"command":"dd if=x of=.GIT/config"}`, protected: true},
		"bash git config":              {tool: "bash", kind: "execute", args: `{"command":"git config core.hooksPath /tmp/h"}`, protected: true},
		"bash git -C config --add":     {tool: "bash", kind: "execute", args: `{"command":"git -C sub config --add alias.x '!sh'"}`, protected: true},
		"bash git config reads":        {tool: "bash", kind: "execute", args: `{"command":"git config user.name && git config --get core.editor"}`},
		"bash rm the project":          {tool: "bash", kind: "execute", args: `{"command":"rm -rf ."}`, protected: true},
		"bash rm a build folder":       {tool: "bash", kind: "execute", args: `{"command":"rm -rf build"}`},
		"bash in .git":                 {tool: "bash", kind: "execute", args: `{"command":"cp x config","workdir":".git"}`, protected: true},
		"bash cat a file":              {tool: "bash", kind: "execute", args: `{"command":"cat a.go"}`},
		"bash redirect into hooks":     {tool: "bash", kind: "execute", args: `{"command":"cat evil.sh > .git/hooks/pre-commit"}`, protected: true},
		"bash append to the rules":     {tool: "bash", kind: "execute", args: `{"command":"echo x >> ` + filepath.Join(f.cfg, "permissions.json") + `"}`, protected: true},
		"bash cat .git/config":         {tool: "bash", kind: "execute", args: `{"command":"cat .git/config && ls -la .git"}`},
		"read .git/config":             {tool: "read", kind: KindRead, args: fp(".git/config")},
	}
	// Kind-wide and tool-wide "always allow" answers, and an allow rule:
	// none of them covers a protected call.
	answers := map[string]func(c call) ([]event.Permission, []event.Permission, []Rule){
		"none": func(call) ([]event.Permission, []event.Permission, []Rule) { return nil, nil, nil },
		"always": func(c call) ([]event.Permission, []event.Permission, []Rule) {
			var scope []string
			if c.tool == "bash" {
				scope = scopes(ParseLine(Command(json.RawMessage(c.args))))
			}
			return []event.Permission{{Tool: c.tool, Decision: event.AllowAlways, Source: "user", Scope: scope}},
				[]event.Permission{{Tool: "write", Decision: event.AllowAlways, Source: "user", Kind: KindEdit}}, nil
		},
		"allow rule": func(c call) ([]event.Permission, []event.Permission, []Rule) {
			return nil, nil, []Rule{{Tool: c.tool, Action: Allow}}
		},
	}
	for name, c := range calls {
		for an, answer := range answers {
			for _, m := range Modes() {
				t.Run(name+"/"+an+"/"+string(m.ID), func(t *testing.T) {
					t.Parallel()
					always, kindAlways, rules := answer(c)
					var asked *Request
					chk := Checker{Policy: Policy{Mode: m.ID, Rules: rules, Protected: []string{f.cfg, filepath.Join(f.cfg, "permissions.json")}},
						Asker: askerFunc(func(_ context.Context, req Request) (event.Decision, error) {
							asked = &req
							return event.AllowAlways, nil
						})}
					cwd := c.cwd
					if cwd == "" {
						cwd = f.cwd
					}
					v, err := chk.Check(context.Background(), Request{Tool: c.tool, Kind: c.kind, Cwd: cwd,
						Args: json.RawMessage(c.args), Always: always, AlwaysKind: kindAlways})
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case m.ID == ModeReadOnly && c.kind != KindRead:
						if asked != nil || v.Decision != event.RejectOnce || v.Source != "mode" {
							t.Errorf("read-only: %+v (asked %v), want refused by the mode", v, asked != nil)
						}
					case c.protected && m.ID == ModeAllowAll:
						if asked != nil || !v.Decision.Allows() {
							t.Errorf("allow-all: %+v (asked %v), want run without asking", v, asked != nil)
						}
					case c.protected:
						if asked == nil {
							t.Fatalf("%+v without asking, want asked", v)
						}
						if asked.Protected == "" || asked.ProtectedWhy == "" || !strings.Contains(asked.ProtectedNote(), "protected") {
							t.Errorf("the question does not say the path is protected: %q %q", asked.Protected, asked.ProtectedWhy)
						}
						if a := asked.AlwaysCovers(); a != "" || !asked.NoAlways {
							t.Errorf("the question offers always for %q", a)
						}
						if v.Decision != event.AllowOnce || v.Source != "user" || v.Scope != nil || v.Kind != "" {
							t.Errorf("an \"always\" answer gave %+v, want allow once", v)
						}
					default:
						if asked != nil && asked.Protected != "" {
							t.Errorf("unprotected call asked as protected: %q (%s)", asked.Protected, asked.ProtectedWhy)
						}
						if !v.Decision.Allows() {
							t.Errorf("%+v, want allowed", v)
						}
						// The modes, answers and rules apply as before.
						unasked := m.ID == ModeAllowAll || an != "none" ||
							m.ID == ModeAcceptEdits && c.kind == KindEdit && !c.outside ||
							m.ID == ModeAuto && (c.kind == KindEdit && !c.outside || c.kind == KindRead)
						if unasked != (asked == nil) {
							t.Errorf("asked %v, want %v (%+v)", asked != nil, !unasked, v)
						}
					}
				})
			}
		}
	}
}

// TestProtectedDenyAndNobody: deny rules and "always reject" answers
// still reject a protected call, in every mode; with nobody to ask it is
// refused, saying it is protected and how to run it.
func TestProtectedDenyAndNobody(t *testing.T) {
	t.Parallel()
	f := newProtectFixture(t)
	req := Request{Tool: "edit", Kind: KindEdit, Cwd: f.cwd, Args: json.RawMessage(`{"file_path":".git/config"}`)}
	for _, m := range Modes() {
		v, err := Checker{Policy: Policy{Mode: m.ID, Rules: []Rule{{Tool: "edit", Action: Deny}}}}.Check(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision != event.RejectOnce || v.Source != "rule" {
			t.Errorf("%s, deny rule: %+v", m.ID, v)
		}
		r := req
		r.AlwaysKind = []event.Permission{{Tool: "write", Decision: event.RejectAlways, Source: "user", Kind: KindEdit}}
		if v, _ := (Checker{Policy: Policy{Mode: m.ID}}).Check(context.Background(), r); v.Decision.Allows() {
			t.Errorf("%s, always reject edits: %+v", m.ID, v)
		}
	}
	for _, m := range []Mode{ModeAsk, ModeAcceptEdits} {
		v, err := Checker{Policy: Policy{Mode: m, Rules: []Rule{{Tool: "edit", Action: Allow}}}}.Check(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision != event.RejectOnce || v.Source != "protected" || !strings.Contains(v.Reason, "is protected") ||
			!strings.Contains(v.Reason, "--yes") || !strings.Contains(v.Reason, ".git") {
			t.Errorf("%s, nobody to ask: %+v", m, v)
		}
	}
}

// TestProtectedTarget names the path and the reason.
func TestProtectedTarget(t *testing.T) {
	t.Parallel()
	f := newProtectFixture(t)
	p := Policy{Protected: []string{f.cfg}}
	for _, tc := range []struct {
		args, path, why string
	}{
		{`{"file_path":"a.go","new_path":"gitconfig"}`, "gitconfig", "git folder"},
		{`{"file_path":"cfg/x"}`, "cfg/x", "harness's own"},
		{`{"file_path":"a.go","content":".git/config"}`, "", ""}, // not a path argument
		{`{"FILE_PATH":".mcp.json"}`, ".mcp.json", "MCP servers"},
		{`not json`, "", ""},
	} {
		path, why := p.protectedTarget(KindEdit, f.cwd, json.RawMessage(tc.args))
		if path != tc.path || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %q, %q; want %q, …%s…", tc.args, path, why, tc.path, tc.why)
		}
	}
}

// TestProtectedHomeWord: a bash word that starts with $HOME or ${HOME}
// (outside quotes or inside double quotes) is followed as a path, so an
// allowed cp cannot reach harness's rules through the variable.
func TestProtectedHomeWord(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".config", "harness")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Protected: []string{cfg}}
	cwd := t.TempDir()
	tests := []struct {
		line      string
		protected bool
	}{
		{`cp x $HOME/.config/harness/permissions.json`, true},
		{`cp x ${HOME}/.config/harness/mcp.json`, true},
		{`cp x "$HOME/.config/harness/config.toml"`, true},
		{`echo '{}' > $HOME/.config/harness/permissions.json`, true},
		{`cp x $HOME/notes.txt`, false},
		{`cp x $HOMEDIR/.config/harness/permissions.json`, false}, // another variable: not followed
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"command": tt.line})
		path, why := p.protectedTarget("execute", cwd, args)
		if (path != "") != tt.protected {
			t.Errorf("%s: protected %q (%s), want protected %v", tt.line, path, why, tt.protected)
		}
	}
}

// TestProtectedPluginQuestion: a plugin's own question about its running
// call (Request.Once: fs reaching outside the project) is a protected
// question: an allow rule or an earlier "always" answer about the tool
// does not answer it, the question offers no "always" and says why, and
// with nobody to ask it is refused naming --yes; allow-all runs it and a
// deny rule still rejects it.
func TestProtectedPluginQuestion(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "id_rsa")
	req := Request{Tool: "read", Cwd: t.TempDir(), Args: json.RawMessage(`{"file_path":"` + outside + `"}`),
		Title: "read " + outside + ", outside the project", Once: true, NoAlways: true}
	allowRead := []Rule{{Tool: "read", Action: Allow}}
	always := []event.Permission{{Tool: "read", Decision: event.AllowAlways, Source: "user"}}
	for _, m := range []Mode{ModeReadOnly, ModeAsk, ModeAcceptEdits} {
		for name, r := range map[string]Request{"allow rule": req, "always answer": func() Request { r := req; r.Always = always; return r }()} {
			var asked *Request
			yes := askerFunc(func(_ context.Context, q Request) (event.Decision, error) {
				asked = &q
				return event.AllowAlways, nil // an "always" given anyway counts once
			})
			v, err := Checker{Policy: Policy{Mode: m, Rules: allowRead}, Asker: yes}.Check(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if asked == nil {
				t.Errorf("%s, %s: %+v without asking", m, name, v)
				continue
			}
			if asked.AlwaysCovers() != "" || !asked.NoAlways || asked.Protected != outside || !strings.Contains(asked.ProtectedNote(), "is protected") {
				t.Errorf("%s, %s: the question offers always or does not say why: %q / %q", m, name, asked.AlwaysCovers(), asked.ProtectedNote())
			}
			if v.Decision != event.AllowOnce || v.Scope != nil {
				t.Errorf("%s, %s: %+v, want allowed once", m, name, v)
			}
		}
		v, err := Checker{Policy: Policy{Mode: m, Rules: allowRead}}.Check(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision.Allows() || !strings.Contains(v.Reason, "--yes") || !strings.Contains(v.Reason, outside) {
			t.Errorf("%s, nobody to ask: %+v", m, v)
		}
		if v, _ := (Checker{Policy: Policy{Mode: m, Rules: []Rule{{Tool: "read", Action: Deny}}}}).Check(context.Background(), req); v.Decision.Allows() {
			t.Errorf("%s, deny rule: %+v", m, v)
		}
	}
	if v, _ := (Checker{Policy: Policy{Mode: ModeAllowAll}}).Check(context.Background(), req); !v.Decision.Allows() {
		t.Errorf("allow-all: %+v, want it to run", v)
	}
}
