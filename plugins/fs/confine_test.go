//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// fakeAsker is the user behind Asker: it answers every question with
// answer (or err) and records the questions.
type fakeAsker struct {
	mu     sync.Mutex
	answer pluginapi.PermissionResponse
	err    error
	titles []string
}

func (a *fakeAsker) Ask(_ context.Context, _ *pluginapi.Call, title string) (pluginapi.PermissionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.titles = append(a.titles, title)
	return a.answer, a.err
}

func (a *fakeAsker) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.titles...)
}

// confineTree makes a project and a folder outside it holding a secret,
// with symlinks both ways: proj/link and proj/linkdir lead outside,
// proj/inlink stays inside, out/backlink leads into the project.
func confineTree(t *testing.T) (proj, out string) {
	t.Helper()
	proj, out = t.TempDir(), t.TempDir()
	for p, c := range map[string]string{
		filepath.Join(proj, "inside.txt"):     "in here\n",
		filepath.Join(proj, "sub", "a.txt"):   "sub\n",
		filepath.Join(out, "secret.txt"):      "SECRET-KEY\n",
		filepath.Join(out, "deep", "key.pem"): "SECRET-PEM\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, dest := range map[string]string{
		filepath.Join(proj, "link"):      filepath.Join(out, "secret.txt"),
		filepath.Join(proj, "linkdir"):   out,
		filepath.Join(proj, "inlink"):    filepath.Join(proj, "inside.txt"),
		filepath.Join(out, "backlink"):   filepath.Join(proj, "inside.txt"),
		filepath.Join(proj, "sub", "up"): "..", // a loop of folders, inside
	} {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
	}
	return proj, out
}

// TestOutsideProject: a path outside the call's cwd (after cleaning ".."
// and resolving symlinks) is asked about once, naming the resolved path,
// before anything of it is read, listed, searched or written; a refusal is
// an error result that says why and leaks nothing; a path inside is never
// asked about.
func TestOutsideProject(t *testing.T) {
	t.Parallel()
	proj, out := confineTree(t)
	rel := func(p string) string { r, _ := filepath.Rel(proj, p); return r }
	secret := filepath.Join(out, "secret.txt")
	outside := ", outside the project " + proj
	denied := func(p string) string {
		return "permission denied: " + p + " is outside the project " + proj + "; ask the user (no)"
	}

	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		allow   bool
		ask     string   // the question, "" when none is wanted
		isError bool     // the result is an error
		want    []string // in the result
		never   []string // never in the result
	}{
		{name: "read inside", tool: "read", args: map[string]any{"file_path": "inside.txt"}, want: []string{"in here"}},
		{name: "read .. back inside", tool: "read", args: map[string]any{"file_path": "sub/../inside.txt"}, want: []string{"in here"}},
		{name: "read symlink inside", tool: "read", args: map[string]any{"file_path": "inlink"}, want: []string{"in here"}},
		{name: "read symlink from outside into the project", tool: "read", args: map[string]any{"file_path": filepath.Join(out, "backlink")}, want: []string{"in here"}},
		{name: "read .. after a symlink out is cleaned first", tool: "read", args: map[string]any{"file_path": "linkdir/../inside.txt"}, want: []string{"in here"}},
		{name: "read the project folder", tool: "read", args: map[string]any{"file_path": proj}, want: []string{"inside.txt"}},
		{name: "read .. outside, rejected", tool: "read", args: map[string]any{"file_path": rel(secret)}, ask: "read " + secret + outside,
			isError: true, want: []string{denied(secret)}, never: []string{"SECRET"}},
		{name: "read .. outside, allowed", tool: "read", args: map[string]any{"file_path": rel(secret)}, allow: true, ask: "read " + secret + outside,
			want: []string{"SECRET-KEY"}},
		{name: "read absolute outside, rejected", tool: "read", args: map[string]any{"file_path": secret}, ask: "read " + secret + outside,
			isError: true, want: []string{denied(secret)}, never: []string{"SECRET"}},
		{name: "read escaping symlink, rejected", tool: "read", args: map[string]any{"file_path": "link"},
			ask: "read " + secret + " (through the symlink " + filepath.Join(proj, "link") + ")" + outside, isError: true, never: []string{"SECRET"}},
		{name: "read escaping symlink, allowed", tool: "read", args: map[string]any{"file_path": "link"}, allow: true,
			ask: "read " + secret + " (through the symlink " + filepath.Join(proj, "link") + ")" + outside, want: []string{"SECRET-KEY"}},
		{name: "read through a symlinked folder, rejected", tool: "read", args: map[string]any{"file_path": "linkdir/secret.txt"},
			ask: "read " + secret + " (through the symlink " + filepath.Join(proj, "linkdir", "secret.txt") + ")" + outside, isError: true, never: []string{"SECRET"}},
		{name: "list a folder outside, rejected", tool: "read", args: map[string]any{"file_path": out}, ask: "read " + out + outside,
			isError: true, never: []string{"secret.txt", "deep"}},
		{name: "missing file outside names no neighbours", tool: "read", args: map[string]any{"file_path": filepath.Join(out, "secret.tx")},
			ask: "read " + filepath.Join(out, "secret.tx") + outside, isError: true, never: []string{"secret.txt", "does not exist"}},
		{name: "grep the project skips symlinks out", tool: "grep", args: map[string]any{"pattern": "SECRET", "output_mode": "content"},
			want: []string{"No matches"}, never: []string{"SECRET-"}},
		{name: "grep outside, rejected", tool: "grep", args: map[string]any{"pattern": "SECRET", "path": out, "output_mode": "content"},
			ask: "search " + out + outside, isError: true, never: []string{"SECRET-", "secret.txt"}},
		{name: "grep outside through a symlink, allowed", tool: "grep", args: map[string]any{"pattern": "SECRET", "path": "linkdir", "output_mode": "content"},
			allow: true, ask: "search " + out + " (through the symlink " + filepath.Join(proj, "linkdir") + ")" + outside, want: []string{"SECRET-KEY", "SECRET-PEM"}},
		{name: "glob the project stays inside", tool: "glob", args: map[string]any{"pattern": "**/*"},
			want: []string{filepath.Join(proj, "inside.txt")}, never: []string{"secret.txt", "key.pem", out}},
		{name: "glob .. outside, rejected", tool: "glob", args: map[string]any{"pattern": "../" + filepath.Base(out) + "/**/*", "path": "."},
			ask: "list files in " + out + outside, isError: true, never: []string{"secret.txt", "key.pem"}},
		{name: "glob absolute outside, allowed", tool: "glob", args: map[string]any{"pattern": out + "/**/*.pem"}, allow: true,
			ask: "list files in " + out + outside, want: []string{filepath.Join(out, "deep", "key.pem")}},
		{name: "write outside, rejected", tool: "write", args: map[string]any{"file_path": filepath.Join(out, "new.txt"), "content": "x"},
			ask: "write " + filepath.Join(out, "new.txt") + outside, isError: true, want: []string{denied(filepath.Join(out, "new.txt"))}},
		{name: "write inside asks nothing", tool: "write", args: map[string]any{"file_path": "new/inside.txt", "content": "x"},
			want: []string{"Created " + filepath.Join(proj, "new", "inside.txt")}},
		{name: "edit through an escaping symlink, rejected", tool: "edit", args: map[string]any{"file_path": "link", "old_string": "SECRET", "new_string": "x"},
			ask: "edit " + secret + " (through the symlink " + filepath.Join(proj, "link") + ")" + outside, isError: true, want: []string{denied(secret)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ask := &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: tc.allow}}
			if !tc.allow {
				ask.answer.Reason = "permission denied: no"
			}
			f := fixture{c: plugintest.Start(t, newServer(diskFiles{}, ask).plugin()), cwd: proj, ask: ask}
			res := f.call(t, tc.tool, tc.args)
			wantContains(t, tc.name, res, tc.isError, tc.want...)
			for _, s := range tc.never {
				if strings.Contains(res.Content, s) {
					t.Errorf("the result shows %q:\n%s", s, res.Content)
				}
			}
			got := ask.asked()
			switch {
			case tc.ask == "" && len(got) > 0:
				t.Errorf("asked %q, want no question", got)
			case tc.ask != "" && (len(got) != 1 || got[0] != tc.ask):
				t.Errorf("asked %q, want once %q", got, tc.ask)
			}
		})
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "SECRET-KEY\n" {
		t.Errorf("the secret changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(out, "new.txt")); err == nil {
		t.Error("a refused write created its file")
	}
}

// TestOutsideWithoutCwd: with no cwd every path is outside, and the
// question says so; a host that cannot ask is a refusal in one line.
func TestOutsideWithoutCwd(t *testing.T) {
	t.Parallel()
	_, out := confineTree(t)
	secret := filepath.Join(out, "secret.txt")
	ask := &fakeAsker{answer: pluginapi.PermissionResponse{Reason: "permission denied: read needs permission and there is no one to ask"}}
	f := fixture{c: plugintest.Start(t, newServer(diskFiles{}, ask).plugin()), ask: ask}
	res := f.call(t, "read", map[string]any{"file_path": secret})
	wantContains(t, "no cwd", res, true, "Error: permission denied: "+secret+" is outside the project (the session has no working directory); ask the user (read needs permission and there is no one to ask)")
	if got := ask.asked(); len(got) != 1 || got[0] != "read "+secret+", outside the project (the session has no working directory)" {
		t.Errorf("asked %q", got)
	}
	if strings.Contains(res.Content, "\n") {
		t.Errorf("the refusal is not one line: %q", res.Content)
	}
}

// askingHost is the host's side of RequestPermission: a fixed answer, and
// the requests it got.
type askingHost struct {
	plugintest.FakeHost
	answer pluginapi.PermissionResponse
	mu     sync.Mutex
	got    []pluginapi.PermissionRequest
}

func (h *askingHost) RequestPermission(_ context.Context, req pluginapi.PermissionRequest) (pluginapi.PermissionResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, req)
	return h.answer, nil
}

func (h *askingHost) requests() []pluginapi.PermissionRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]pluginapi.PermissionRequest(nil), h.got...)
}

// TestAskThroughHost: the production Asker asks through the host's
// RequestPermission over gRPC, in process and from the built binary,
// with the call's session, call id, tool and arguments; a host without
// RequestPermission is a refusal.
func TestAskThroughHost(t *testing.T) {
	t.Parallel()
	proj, out := confineTree(t)
	secret := filepath.Join(out, "secret.txt")
	args := fmt.Sprintf(`{"file_path":%q}`, secret)
	launched := func(t *testing.T, h pluginapi.HostServices) *pluginhost.Client {
		c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{Path: binary})
		if err != nil {
			t.Fatalf("launch: %v", err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test", Host: h}); err != nil {
			t.Fatalf("configure: %v", err)
		}
		return c
	}
	inProcess := func(t *testing.T, h pluginapi.HostServices) *pluginhost.Client {
		return plugintest.Start(t, newServer(diskFiles{}, hostAsker{}).plugin(), plugintest.WithHost(h))
	}
	for _, start := range []struct {
		name string
		fn   func(*testing.T, pluginapi.HostServices) *pluginhost.Client
	}{{"in process", inProcess}, {"binary", launched}} {
		tests := []struct {
			name   string
			answer *pluginapi.PermissionResponse // nil: the host cannot ask
			want   string
			isErr  bool
		}{
			{name: "allowed", answer: &pluginapi.PermissionResponse{Allowed: true}, want: "SECRET-KEY"},
			{name: "denied", answer: &pluginapi.PermissionResponse{Reason: "permission denied by user"}, isErr: true,
				want: "Error: permission denied: " + secret + " is outside the project " + proj + "; ask the user (permission denied by user)"},
			{name: "host cannot ask", isErr: true,
				want: "Error: permission denied: " + secret + " is outside the project " + proj + " and the user could not be asked (this host cannot ask the user)"},
		}
		for _, tc := range tests {
			t.Run(start.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var h pluginapi.HostServices = &plugintest.FakeHost{}
				var ah *askingHost
				if tc.answer != nil {
					ah = &askingHost{answer: *tc.answer}
					h = ah
				}
				c := start.fn(t, h)
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				res, err := c.Execute(ctx, pluginapi.CallRequest{Tool: "read", Args: []byte(args), SessionID: "s7", CallID: "call-3", Cwd: proj, Caller: pluginapi.CallerAgent}, nil)
				if err != nil {
					t.Fatal(err)
				}
				wantContains(t, tc.name, res, tc.isErr, tc.want)
				if ah == nil {
					return
				}
				got := ah.requests()
				want := pluginapi.PermissionRequest{SessionID: "s7", CallID: "call-3", Tool: "read",
					Title: "read " + secret + ", outside the project " + proj, Args: []byte(args)}
				if len(got) != 1 || got[0].SessionID != want.SessionID || got[0].CallID != want.CallID || got[0].Tool != want.Tool ||
					got[0].Title != want.Title || string(got[0].Args) != string(want.Args) {
					t.Errorf("the host got %+v, want once %+v", got, want)
				}
			})
		}
	}
}

// TestSessionFolderInside: the session's own folder under the host's
// state dir (where plugins spill the session's output) counts as inside;
// another session's folder does not.
func TestSessionFolderInside(t *testing.T) {
	t.Parallel()
	proj, state := t.TempDir(), t.TempDir()
	for _, s := range []string{"s1", "s2"} {
		if err := os.MkdirAll(filepath.Join(state, "sessions", s), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, "sessions", s, "out.txt"), []byte("spilled "+s+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ask := &fakeAsker{answer: pluginapi.PermissionResponse{Reason: "no"}}
	f := fixture{c: plugintest.Start(t, newServer(diskFiles{}, ask).plugin(), plugintest.WithStateDir(state)), cwd: proj, ask: ask}
	wantContains(t, "own session", f.call(t, "read", map[string]any{"file_path": filepath.Join(state, "sessions", "s1", "out.txt")}), false, "spilled s1")
	if got := ask.asked(); len(got) != 0 {
		t.Errorf("asked %q about the session's own folder", got)
	}
	wantContains(t, "other session", f.call(t, "read", map[string]any{"file_path": filepath.Join(state, "sessions", "s2", "out.txt")}), true, "permission denied")
	wantContains(t, "the state dir", f.call(t, "glob", map[string]any{"pattern": "**/*", "path": state}), true, "permission denied")
}
