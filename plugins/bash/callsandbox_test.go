//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/sandbox"
)

// TestCallSandboxWins: the sandbox a call carries (the host's decision,
// pluginapi minor 4) is what confines its command, whatever the plugin's
// environment says (workspace-write here): its mode, its writable roots
// exactly (an added folder writable, the cwd not when the host did not
// name it), its deny-read paths (with a mount namespace); a sandbox the
// plugin cannot read runs nothing. Each case is checked on disk, in both
// ways commands are contained.
func TestCallSandboxWins(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := newSandboxed(t, sandbox.WorkspaceWrite, 0, m.env...)
			added := filepath.Join(filepath.Dir(s.cwd), "added")
			if err := os.Mkdir(added, 0o755); err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				name      string
				sandbox   *pluginapi.CallSandbox
				command   string
				wrote     []string // files the command must have written
				notWrote  []string // files it must not have
				want, not string   // in the result
				namespace bool     // holds only with a mount namespace (hidden paths)
			}{
				{name: "none sent: the environment's", command: "touch $CWD/a0 $ADDED/b0",
					wrote: []string{"CWD/a0"}, notWrote: []string{"ADDED/b0"}},
				{name: "read-only", sandbox: &pluginapi.CallSandbox{Mode: "read-only", Network: "off"},
					command: "touch $CWD/a1", notWrote: []string{"CWD/a1"}, want: "the sandbox (read-only"},
				{name: "the host's roots exactly", sandbox: &pluginapi.CallSandbox{Mode: "workspace-write", Network: "off", WritableRoots: []string{added}},
					command: "touch $ADDED/b2; touch $CWD/a2", wrote: []string{"ADDED/b2"}, notWrote: []string{"CWD/a2"}},
				{name: "cwd and an added folder", sandbox: &pluginapi.CallSandbox{Mode: "workspace-write", Network: "off", WritableRoots: []string{s.cwd, added}},
					command: "touch $ADDED/b3 $CWD/a3", wrote: []string{"ADDED/b3", "CWD/a3"}},
				{name: "off", sandbox: &pluginapi.CallSandbox{Mode: "off", Network: "on"},
					command: "touch $ADDED/b4", wrote: []string{"ADDED/b4"}},
				{name: "deny-read", sandbox: &pluginapi.CallSandbox{Mode: "workspace-write", Network: "off", WritableRoots: []string{s.cwd},
					DenyRead: []string{s.outside}}, command: "cat $OUTSIDE/keep; echo end", want: "end", not: "ORIGINAL", namespace: true},
				{name: "a root swapped for a link runs nothing", sandbox: &pluginapi.CallSandbox{Mode: "workspace-write", Network: "off",
					WritableRoots: []string{s.cwd, filepath.Join(s.cwd, "swapped")}}, command: "touch $CWD/swapped/x $OUTSIDE/x8",
					notWrote: []string{"OUTSIDE/x8"}, want: "swapped is now a link to"},
				{name: "unknown mode runs nothing", sandbox: &pluginapi.CallSandbox{Mode: "sideways", Network: "off"},
					command: "touch $CWD/a6", notWrote: []string{"CWD/a6"}, want: `unknown sandbox mode "sideways"`},
				{name: "unknown network runs nothing", sandbox: &pluginapi.CallSandbox{Mode: "workspace-write", Network: "anywhere"},
					command: "touch $CWD/a7", notWrote: []string{"CWD/a7"}, want: `"anywhere": not off, on, or a host`},
			}
			// An added folder inside the cwd that a command replaced with
			// a link to a folder outside every root.
			if err := os.Symlink(s.outside, filepath.Join(s.cwd, "swapped")); err != nil {
				t.Fatal(err)
			}
			paths := strings.NewReplacer("CWD", s.cwd, "ADDED", added, "OUTSIDE", s.outside)
			for _, tc := range tests {
				if tc.namespace && m.env != nil {
					continue // the fallback hides nothing (README: Sandbox)
				}
				line := strings.NewReplacer("$CWD", s.cwd, "$ADDED", added, "$OUTSIDE", s.outside).Replace(tc.command)
				res := s.exec(t, call{args: map[string]any{"command": line}, sandbox: tc.sandbox})
				for _, f := range tc.wrote {
					if !exists(paths.Replace(f)) {
						t.Errorf("%s: %s not written:\n%s", tc.name, f, res.Content)
					}
				}
				for _, f := range tc.notWrote {
					if exists(paths.Replace(f)) {
						t.Errorf("%s: %s written:\n%s", tc.name, f, res.Content)
					}
				}
				if tc.want != "" && !strings.Contains(res.Content, tc.want) {
					t.Errorf("%s: result lacks %q:\n%s", tc.name, tc.want, res.Content)
				}
				if tc.not != "" && strings.Contains(res.Content, tc.not) {
					t.Errorf("%s: result holds %q:\n%s", tc.name, tc.not, res.Content)
				}
			}
		})
	}
}

// TestSandboxNoteNamesRoots: the note on a refused write names where
// writes go — the working directory and the added folders as the policy
// has them, a long list cut — so that it stays true with added folders.
func TestSandboxNoteNamesRoots(t *testing.T) {
	t.Parallel()
	many := make([]string, 10)
	for i := range many {
		many[i] = "/r" + string(rune('a'+i))
	}
	tests := []struct {
		p         sandbox.Policy
		want, not string
	}{
		{p: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Network: sandbox.NetworkOff, WritableRoots: []string{"/p", "/added"}},
			want: "writes only in /p, /added and $TMPDIR"},
		{p: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Network: sandbox.NetworkOff, WritableRoots: many},
			want: "/rh (and 2 more) and $TMPDIR", not: "/ri"},
		{p: sandbox.Policy{Mode: sandbox.ReadOnly, Network: sandbox.NetworkOff}, want: "writes only in $TMPDIR", not: "added"},
	}
	for _, tc := range tests {
		got := sandboxNote(tc.p, "touch: cannot touch 'x': Read-only file system")
		if !strings.Contains(got, tc.want) || (tc.not != "" && strings.Contains(got, tc.not)) {
			t.Errorf("note %q, want %q and not %q", got, tc.want, tc.not)
		}
	}
}
