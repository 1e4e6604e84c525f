//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi/plugintest"
	"github.com/harness-dev/harness/sandbox"
)

// placeholderNames are the protected names a command's namespace gets a
// placeholder for when they are missing.
var placeholderNames = []string{".vscode", ".idea", ".zed", ".mcp.json"}

// newBare is the sandboxed fixture (namespaces) with none of the
// protected names in the project, no .git/hooks, and a tree to copy
// that holds them all.
func newBare(t *testing.T) sandboxed {
	t.Helper()
	s := newSandboxed(t, sandbox.WorkspaceWrite, 0)
	for _, p := range append([]string{".git/hooks"}, placeholderNames...) {
		if err := os.RemoveAll(filepath.Join(s.cwd, p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{".vscode/tasks.json", ".idea/workspace.xml", ".zed/settings.json", ".mcp.json", "ok.txt"} {
		path := filepath.Join(s.cwd, "planted", p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// leftovers says which protected names are in the project, and what
// changed beside it; "" when nothing. A command's placeholders go when its
// init is reaped, just after its result: leftovers waits for that, at most
// 10 s.
func leftovers(s sandboxed) string {
	var out []string
	left := func() []string {
		var l []string
		for _, n := range placeholderNames {
			if exists(filepath.Join(s.cwd, n)) {
				l = append(l, n+" left in the project")
			}
		}
		return l
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if l := left(); len(l) == 0 || time.Now().After(deadline) {
			out = l
			break
		}
	}
	if es, _ := os.ReadDir(s.outside); len(es) != 1 || changed(filepath.Join(s.outside, "keep")) != "" {
		out = append(out, "the folder outside changed")
	}
	return strings.Join(out, "; ")
}

// TestPlaceholders: in a namespace a missing protected name is an empty
// read-only placeholder of the user (folder 0700, file 0600) while the
// command runs, and gone after it.
func TestPlaceholders(t *testing.T) {
	t.Parallel()
	s := newBare(t)
	got := s.sh(t, `stat -c '%n %a %F %s' .vscode .idea .zed .mcp.json; ls -A .vscode .idea .zed; echo x > .git/hooks/pre-commit`).Content
	for _, want := range []string{".vscode 700 directory", ".idea 700 directory", ".zed 700 directory", ".mcp.json 600 regular empty file 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[this command created") || exists(filepath.Join(s.cwd, ".git/hooks/pre-commit")) {
		t.Errorf("a placeholder or .git/hooks reported as the command's, or hooks written:\n%s", got)
	}
	if l := leftovers(s); l != "" {
		t.Errorf("after the command: %s", l)
	}
}

// TestPlaceholderEscapes: what a command does to get a protected name of
// its own where it was missing fails on the placeholder; the command ran
// (what else it did is on disk), the project holds no placeholder after
// it, nothing outside changed.
func TestPlaceholderEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		ran  string // a file the command wrote besides
	}{
		{"mkdir", `mkdir .vscode && echo x > .vscode/tasks.json; mkdir -p .idea/x; touch ran`, "ran"},
		{"cp -r", `cp -r planted/. .`, "ok.txt"},
		{"mv onto", `mkdir d && echo x > d/tasks.json && mv -T d .vscode; echo '{}' > m; mv -f m .mcp.json; mv -T .idea gone; touch ran`, "ran"},
		{"remove and remake", `rm -rf .vscode .idea .zed .mcp.json; rmdir .zed; mkdir .vscode; echo x > .vscode/tasks.json; echo x > .mcp.json; touch ran`, "ran"},
		{"symlink", `rm -rf .vscode; ln -sfn "$OUT" .vscode; echo x > .vscode/tasks.json; ln -sf "$OUT/keep" .mcp.json; ln -s "$OUT" .zed/out; echo x > .mcp.json; touch ran`, "ran"},
		{"truncate and append", `: > .mcp.json; echo x >> .mcp.json; touch .idea/x; touch ran`, "ran"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newBare(t)
			res := s.sh(t, "OUT="+s.outside+"; "+tt.line)
			if !exists(filepath.Join(s.cwd, tt.ran)) {
				t.Fatalf("the command did not run:\n%s", res.Content)
			}
			if l := leftovers(s); l != "" {
				t.Errorf("%s\n%s", l, res.Content)
			}
			if exists(filepath.Join(s.cwd, "gone")) {
				t.Errorf("the placeholder .idea was moved aside:\n%s", res.Content)
			}
		})
	}
}

// TestPlaceholderBackground: a background task keeps the placeholders
// its start made past a foreground command that shared them; they go
// when the task ends, and it could not write them meanwhile.
func TestPlaceholderBackground(t *testing.T) {
	t.Parallel()
	s := newBare(t)
	id, _ := s.startTask(t, "", `while [ ! -e go ]; do sleep 0.02; done; mkdir .vscode/x; echo x > .mcp.json; touch ran`)
	s.sh(t, "true")
	for _, n := range placeholderNames {
		if !exists(filepath.Join(s.cwd, n)) {
			t.Errorf("%s removed while the task that shares it runs", n)
		}
	}
	s.sh(t, "touch go")
	s.waitStatus(t, id, "exited with code 0")
	if !exists(filepath.Join(s.cwd, "ran")) {
		t.Fatal("the task did not run")
	}
	if l := leftovers(s); l != "" {
		t.Errorf("after the task: %s", l)
	}
}

// TestPlaceholderNotOurs: a protected name that exists — even empty, even
// a link — is never removed, and the one a command could not have made
// is the user's to keep.
func TestPlaceholderNotOurs(t *testing.T) {
	t.Parallel()
	s := newBare(t)
	if err := os.Mkdir(filepath.Join(s.cwd, ".idea"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.outside, "keep"), filepath.Join(s.cwd, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	s.sh(t, "true")
	var left []string
	want := []string{".idea", ".mcp.json"}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // ours go once the init is reaped
		left = left[:0]
		for _, n := range placeholderNames {
			if exists(filepath.Join(s.cwd, n)) {
				left = append(left, n)
			}
		}
		if slices.Equal(left, want) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// TestPlaceholderExit: the plugin's exit kills a background task and
// removes its placeholders before it returns.
func TestPlaceholderExit(t *testing.T) {
	t.Parallel()
	s, environ := plantSandboxed(t, sandbox.WorkspaceWrite)
	for _, n := range placeholderNames {
		if err := os.RemoveAll(filepath.Join(s.cwd, n)); err != nil {
			t.Fatal(err)
		}
	}
	b := newPlugin(environ, t.TempDir())
	s.c = plugintest.Start(t, b.plugin(), plugintest.WithStateDir(s.state))
	s.startTask(t, "", "sleep 60")
	for _, n := range placeholderNames {
		if !exists(filepath.Join(s.cwd, n)) {
			t.Fatalf("no placeholder %s while the task runs", n)
		}
	}
	b.exit()
	if l := leftovers(s); l != "" {
		t.Errorf("after the plugin's exit: %s", l)
	}
}
