package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// envProbeChild makes the test binary probeChild.
const envProbeChild = "SANDBOX_TEST_PROBE_CHILD"

// probeChild prints what Probe finds of the namespaces, dumpable and then
// not dumpable (as harness makes itself).
func probeChild() int {
	ns := func() string {
		k := Probe()
		return fmt.Sprintf("user=%v mount=%v net=%v", k.UserNS, k.MountNS, k.NetNS)
	}
	dumpable := ns()
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	fmt.Printf("%s\n%s\n", dumpable, ns())
	return 0
}

// TestProbeNotDumpable: as a non-root user, Probe finds the same
// namespaces whether the process is dumpable or not. harness makes itself
// non-dumpable; the probe used to write the child's uid map into
// /proc/<child>, which that makes unreadable to a non-root user, and
// `harness sandbox` then said no user namespace could be had where the
// bash plugin got one. As root the test runs a copy of its binary as
// nobody.
func TestProbeNotDumpable(t *testing.T) {
	// Not parallel: a test forking while the copy is open for writing
	// would hold it, and its exec fail with ETXTBSY.
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var attr *syscall.SysProcAttr
	if os.Getuid() == 0 {
		dir, err := os.MkdirTemp("", "sandbox-probe-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		self := bin
		bin = filepath.Join(dir, "sandbox.test")
		copyExecutable(t, self, bin)
		attr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), envProbeChild+"=1")
	cmd.SysProcAttr = attr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe child: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("probe child printed %q", out)
	}
	if !strings.HasPrefix(lines[0], "user=true") {
		t.Skipf("no user namespace for a non-root user here (%s)", lines[0])
	}
	if lines[0] != lines[1] {
		t.Errorf("Probe dumpable: %s; not dumpable: %s; want the same", lines[0], lines[1])
	}
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
