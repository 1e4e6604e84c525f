package engine_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testTemp is this run's temp folder: the plugins, the test builds, and
// (as $TMPDIR) what the processes the tests start put in a temp dir.
var testTemp string

// pluginDir holds the real plugins, built by TestMain.
var pluginDir string

// TestMain builds the real plugins (as the README does: static) for the
// example and the tests, and removes them afterwards.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "engine-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine tests:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	testTemp = dir
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, "engine tests:", err)
		return 2
	}
	pluginDir = filepath.Join(dir, "plugins")
	if out, err := goBuild("-o", pluginDir+"/", "../plugins/...").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "engine tests: go build plugins: %v\n%s", err, out)
		return 2
	}
	return m.Run()
}

// goBuild is `go build args...` as the README builds: static binaries.
func goBuild(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// readLog returns the events of the only root session in stateDir (child
// sessions of subagents aside), as generic JSON objects, and its path.
func readLog(t testing.TB, stateDir string) ([]map[string]any, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(stateDir, "sessions", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	var rootEvents []map[string]any
	for _, file := range files {
		evs := readJSONL(t, file)
		if _, child := evs[0]["parentSession"]; !child {
			roots, rootEvents = append(roots, file), evs
		}
	}
	if len(roots) != 1 {
		t.Fatalf("want one root session in %s, got %v", stateDir, roots)
	}
	return rootEvents, roots[0]
}

func readJSONL(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		evs = append(evs, m)
	}
	return evs
}

func types(evs []map[string]any) []string {
	var ts []string
	for _, e := range evs {
		ts = append(ts, e["type"].(string))
	}
	return ts
}

// syncBuffer is a strings builder safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
