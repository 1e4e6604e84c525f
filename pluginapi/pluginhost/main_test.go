package pluginhost_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// bins holds the plugin binaries TestMain builds: todo (the real plugin),
// testplugin and v2plugin (testdata).
var bins string

func TestMain(m *testing.M) {
	if path := os.Getenv("PLUGINAPI_TEST_HOST"); path != "" {
		os.Exit(actAsHost(path))
	}
	if argv := os.Getenv("PLUGINAPI_TEST_PROCESS_PARENT"); argv != "" {
		os.Exit(actAsProcessParent(argv))
	}
	if path := os.Getenv("PLUGINAPI_TEST_UMASK_HOST"); path != "" {
		os.Exit(actAsUmaskHost(path))
	}
	if mark := os.Getenv("PLUGINAPI_TEST_HUP_CHILD"); mark != "" {
		os.Exit(actAsHupChild(mark))
	}
	os.Exit(run(m))
}

// actAsHost is the test binary re-run as a host (see TestHostDeath): it
// launches the plugin at path, prints its pid and waits to be killed.
func actAsHost(path string) int {
	c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{Path: path})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stdout, c.PID()) // stdout-ok: read by the test
	select {}
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pluginapi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The test plugins are in this module; the todo plugin is the host
	// module's (the repository root), which builds against this folder.
	for _, b := range []struct{ dir, pkg string }{
		{"..", "./testdata/testplugin"},
		{"..", "./testdata/v2plugin"},
		{"../..", "./plugins/todo"},
	} {
		build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), b.pkg)
		build.Dir = b.dir
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build test plugin %s: %v\n", b.pkg, err)
			return 1
		}
	}
	bins = dir
	return m.Run()
}

func bin(name string) string { return filepath.Join(bins, name) }
