package anthropictest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestOnly: no package of the module imports this fake outside its
// tests, so it never links into harness.
func TestTestOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const self = "github.com/harness-dev/harness/host/llm/anthropic/anthropictest"
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = filepath.Join("..", "..", "..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var seen int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		seen++
		for _, imp := range f[1:] {
			if imp == self {
				t.Errorf("%s imports %s outside its tests", f[0], self)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list ./... listed %d packages; the check saw nothing:\n%s", seen, out)
	}
}
