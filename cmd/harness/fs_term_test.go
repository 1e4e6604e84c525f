package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunShowsEdits: `harness run` (stdout not a terminal) shows a read
// of the fs plugin as one line and an edit as a plain unified diff, and
// the edit reaches the disk.
func TestRunShowsEdits(t *testing.T) {
	t.Parallel()
	cwd, state := t.TempDir(), t.TempDir()
	p := filepath.Join(cwd, "main.go")
	if err := os.WriteFile(p, []byte("package main\n\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := storedSession(t, state, cwd)
	script := []string{
		`{"toolCalls":[{"id":"r","name":"read","args":{"file_path":"main.go"}}]}`,
		`{"toolCalls":[{"id":"e","name":"edit","args":{"file_path":"main.go","old_string":"var x = 1","new_string":"var x = 2"}}]}`,
		`{"text":"done"}`,
	}
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": writeScript(t, script...)}
	code, stdout, stderr := harness(t, env, "run", "--yes", "--session", id, "change x")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"→ Read main.go (lines 1–3) ✓\n",
		"→ Edit main.go\n    @@ -1,3 +1,3 @@\n     package main\n     \n    -var x = 1\n    +var x = 2\n",
		fmt.Sprintf("  ✓ Edited %s: 1 replacement, line 3. …\n", p),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "\x1b[") {
		t.Errorf("ANSI escapes on a non-terminal:\n%q", stdout)
	}
	if b, _ := os.ReadFile(p); string(b) != "package main\n\nvar x = 2\n" {
		t.Errorf("file after the edit = %q", b)
	}
}
