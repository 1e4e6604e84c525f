package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/internal/logtest"
)

// TestFSOutsideProject: through the real host and the real fs plugin, a
// read of a file outside the session's cwd is asked about with the host's
// RequestPermission: with no one to ask it is refused, in one line the
// model can act on, and nothing of the file reaches the log; with --yes it
// is read. A read inside the cwd is never asked about.
func TestFSOutsideProject(t *testing.T) {
	t.Parallel()
	cwd, out := t.TempDir(), t.TempDir()
	secret := filepath.Join(out, "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE-KEY-BYTES\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(cwd, "key")); err != nil {
		t.Fatal(err)
	}
	call := func(id, path string) string {
		args, _ := json.Marshal(map[string]string{"file_path": path})
		return fmt.Sprintf(`{"id":%q,"name":"read","args":%s}`, id, args)
	}
	script := []string{fmt.Sprintf(`{"toolCalls":[%s,%s,%s]}`, call("in", "main.go"), call("abs", secret), call("link", "key")), `{"text":"done"}`}
	tests := []struct {
		name  string
		flags []string
		want  map[string]string // call id: in its result
	}{
		{name: "no one to ask", want: map[string]string{
			"in":   "package main",
			"abs":  "Error: permission denied: " + secret + " is outside the project " + cwd + "; ask the user (",
			"link": "Error: permission denied: " + secret + " is outside the project " + cwd + "; ask the user (",
		}},
		{name: "yes", flags: []string{"--yes"}, want: map[string]string{"in": "package main", "abs": "PRIVATE-KEY-BYTES", "link": "PRIVATE-KEY-BYTES"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			id := storedSession(t, state, cwd)
			env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
				"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": writeScript(t, script...)}
			args := append(append([]string{"run", "--session", id}, tc.flags...), "read them")
			if code, stdout, stderr := harness(t, env, args...); code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			evs, logPath := logtest.ReadLog(t, state)
			got := map[string]string{}
			for _, e := range evs {
				if e["type"] == "tool/result" {
					d := e["data"].(map[string]any)
					c, _ := d["content"].(string)
					got[fmt.Sprint(d["callId"])] = c
				}
			}
			t.Logf("read of %s: %s", secret, got["abs"])
			for callID, want := range tc.want {
				if !strings.Contains(got[callID], want) {
					t.Errorf("result of %s = %q, want it to hold %q", callID, got[callID], want)
				}
				if strings.HasPrefix(want, "Error:") && strings.Contains(got[callID], "\n") {
					t.Errorf("the refusal of %s is not one line: %q", callID, got[callID])
				}
			}
			if len(tc.flags) == 0 {
				if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "PRIVATE-KEY") {
					t.Error("the refused secret reached the log")
				}
			}
		})
	}
}
