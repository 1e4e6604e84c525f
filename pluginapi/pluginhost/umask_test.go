//go:build unix

package pluginhost_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// actAsUmaskHost is the test binary re-run under umask 0277 (see
// TestLaunchUmask): it launches the plugin at path, configures it with
// host services and calls a tool.
func actAsUmaskHost(path string) int {
	syscall.Umask(0o277)
	ctx := context.Background()
	c, err := pluginhost.Launch(ctx, pluginhost.LaunchConfig{Path: path})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	if err := c.Configure(ctx, pluginapi.ConfigureRequest{HostVersion: "test", Host: &plugintest.FakeHost{}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	res, err := c.Execute(ctx, call("todo_write", `{"todos":[{"content":"a","status":"pending"}]}`), nil)
	if err != nil || res.IsError {
		fmt.Fprintln(os.Stderr, err, res)
		return 1
	}
	fmt.Println("ok") // stdout-ok: read by the test
	return 0
}

// TestLaunchUmask: a user whose umask is 0277 can run plugins. go-plugin
// makes the socket folder with os.MkdirTemp and the sockets with
// net.Listen, both under the umask: 0500 folder and sockets nobody may
// connect to. Run as a user other than root (root passes every
// permission check), so the test binary and the plugin are copied where
// that user can run them.
func TestLaunchUmask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// t.TempDir is <tmp>/<test name><n>/<k>, both made 0700.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, plug := filepath.Join(dir, "host.test"), filepath.Join(dir, "todo")
	copyFile(t, self, exe)
	copyFile(t, bin("todo"), plug)
	// A parallel test's fork can hold the copy's write descriptor for a
	// moment (golang/go#22315): exec then fails with ETXTBSY. Retry, bounded.
	var out []byte
	for try := 0; ; try++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "PLUGINAPI_TEST_UMASK_HOST="+plug)
		if os.Getuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		out, err = cmd.CombinedOutput()
		if !errors.Is(err, syscall.ETXTBSY) || try == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("launch under umask 0277: %v\n%s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(to, 0o755); err != nil {
		t.Fatal(err)
	}
}
