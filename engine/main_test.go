package engine_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harness-dev/harness/host/keeper"
)

// testTemp is this run's temp folder: the plugins, the test builds, and
// (as $TMPDIR) what the processes the tests start put in a temp dir.
var testTemp string

// pluginDir holds the real plugins, built by TestMain.
var pluginDir string

// TestMain builds the real plugins (as the README does: static) for the
// example and the tests, and removes them afterwards.
func TestMain(m *testing.M) {
	// the test binary is the keeper of the MCP servers the tests start
	// (host/keeper), as harness is
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
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
	// The SDK providers run in harness-llm, found next to the running
	// executable (as an install has it next to harness): build it next
	// to this test binary.
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine tests:", err)
		return 2
	}
	if out, err := goBuild("-o", filepath.Dir(exe)+"/", "../cmd/harness-llm").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "engine tests: go build harness-llm: %v\n%s", err, out)
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
