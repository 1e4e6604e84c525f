//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// binary is the plugin built by TestMain, for the tests that launch it as
// the host does.
var binary string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fs-plugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "fs")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build the plugin: %v\n", err)
		return 1
	}
	return m.Run()
}

// fixture is the plugin served in process, a session cwd, and the fake
// user it asks (who allows everything unless told otherwise).
type fixture struct {
	c   *pluginhost.Client
	cwd string
	ask *fakeAsker
}

func serve(t testing.TB) fixture {
	t.Helper()
	ask := &fakeAsker{answer: pluginapi.PermissionResponse{Allowed: true}}
	return fixture{c: plugintest.Start(t, newServer(diskFiles{}, ask).plugin()), cwd: t.TempDir(), ask: ask}
}

// call runs tool with args in session s1 (or the session given).
func (f fixture) call(t testing.TB, tool string, args map[string]any, session ...string) pluginapi.Result {
	t.Helper()
	req := pluginapi.CallRequest{Tool: tool, Args: plugintest.Args(t, args), Cwd: f.cwd, SessionID: "s1"}
	if len(session) > 0 {
		req.SessionID = session[0]
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := f.c.Execute(ctx, req, nil)
	if err != nil {
		t.Fatalf("execute %s: %v", tool, err)
	}
	return res
}

// file writes a file under the cwd (creating folders) and returns its path.
func (f fixture) file(t testing.TB, rel, content string) string {
	t.Helper()
	p := filepath.Join(f.cwd, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantContains(t testing.TB, what string, res pluginapi.Result, isError bool, subs ...string) {
	t.Helper()
	if res.IsError != isError {
		t.Errorf("%s: IsError = %v, want %v; content:\n%s", what, res.IsError, isError, res.Content)
	}
	for _, s := range subs {
		if !strings.Contains(res.Content, s) {
			t.Errorf("%s: result lacks %q; content:\n%s", what, s, res.Content)
		}
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	plugintest.Conformance(t, plugintest.Start(t, newServer(diskFiles{}, hostAsker{}).plugin()))
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	d, err := serve(t).c.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{ // concurrency-safe, needs permission
		"read": {true, false}, "write": {false, true}, "edit": {false, true},
		"grep": {true, false}, "glob": {true, false},
	}
	if len(d.Tools) != len(want) {
		t.Fatalf("tools = %d, want %d", len(d.Tools), len(want))
	}
	for _, tool := range d.Tools {
		w, ok := want[tool.Name]
		if !ok || tool.ConcurrencySafe != w[0] || tool.NeedsPermission != w[1] {
			t.Errorf("tool %s: safe=%v perm=%v, want %v", tool.Name, tool.ConcurrencySafe, tool.NeedsPermission, w)
		}
	}
}

// TestBinary launches the built plugin as the host does: it passes the
// conformance suite, and a read, an edit refused then made, and a grep
// work through the real process.
func TestBinary(t *testing.T) {
	t.Parallel()
	c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{Path: binary})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test"}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	plugintest.Conformance(t, c)

	f := fixture{c: c, cwd: t.TempDir()}
	p := f.file(t, "main.go", "package main\n\nfunc main() {}\n")
	edit := map[string]any{"file_path": "main.go", "old_string": "func main() {}", "new_string": "func main() { println(1) }"}
	wantContains(t, "edit before read", f.call(t, "edit", edit), true, "has not read it")
	wantContains(t, "read", f.call(t, "read", map[string]any{"file_path": "main.go"}), false, p+", lines 1–3 of 3:\n     1\tpackage main\n")
	wantContains(t, "edit", f.call(t, "edit", edit), false, "Edited "+p+": 1 replacement, line 3.")
	if b, _ := os.ReadFile(p); string(b) != "package main\n\nfunc main() { println(1) }\n" {
		t.Errorf("file after edit = %q", b)
	}
	wantContains(t, "grep", f.call(t, "grep", map[string]any{"pattern": "println"}), false, p+"\n")
}
