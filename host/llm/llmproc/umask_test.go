//go:build unix

package llmproc_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harness-dev/harness/host/llm/llmproc"
)

// umaskHost is the test binary re-run under umask 0277 (see
// TestUmask): it streams one answer through harness-llm from the fake API
// at $LLMPROC_TEST_URL.
func umaskHost(path string) int {
	syscall.Umask(0o277)
	p := llmproc.New(llmproc.Options{Path: path, Supervisor: supervise})
	defer p.Close()
	prov := p.Provider(llmproc.Config{Provider: "anthropic", BaseURL: os.Getenv("LLMPROC_TEST_URL"), APIKey: testKey, Model: "m-1"})
	if _, err := collect(context.Background(), prov, simple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ok") // stdout-ok: read by the test
	return 0
}

// TestUmask: a user whose umask is 0277 can use the SDK providers.
// go-plugin makes harness-llm's socket folder with os.MkdirTemp and its
// socket with net.Listen, both under the umask: a 0500 folder the
// process cannot make its socket in. Run as a user other than root (root
// passes every permission check), from a copy that user can run.
func TestUmask(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // both 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, llm := filepath.Join(dir, "host.test"), filepath.Join(dir, "harness-llm")
	copyExec(t, self, exe)
	copyExec(t, harnessLLM(t), llm)
	fp := newFake(t, "anthropic", reply{file: "text.sse"})
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LLMPROC_TEST_UMASK_HOST="+llm, "LLMPROC_TEST_URL="+fp.URL)
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("harness-llm under umask 0277: %v\n%s", err, out)
	}
}

func copyExec(t *testing.T, from, to string) {
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
