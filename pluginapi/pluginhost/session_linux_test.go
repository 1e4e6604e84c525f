package pluginhost_test

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// TestProcessOwnSession: a child the host starts (a third-party plugin,
// an MCP server) is in a session of its own, so it has no controlling
// terminal: it cannot open /dev/tty and write to the user's terminal past
// the host's filter (host/termsafe), drawing a forged permission question.
// Its session is its own process group, which KillGroup kills.
func TestProcessOwnSession(t *testing.T) {
	t.Parallel()
	p, err := pluginhost.StartProcess(exec.Command("/bin/sh", "-c", "read x"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = p.KillGroup()
		_ = p.Wait(t.Context())
	}()
	go io.Copy(io.Discard, p.Stdout())
	go io.Copy(io.Discard, p.Stderr())
	sid, pgid, mine := statField(t, p.PID(), 6), statField(t, p.PID(), 5), statField(t, os.Getpid(), 6)
	if sid == mine || sid != p.PID() || pgid != p.PID() {
		t.Errorf("child %d: session %d, group %d (the host's session %d); want both the child's own", p.PID(), sid, pgid, mine)
	}
}

// statField returns field n of /proc/pid/stat as proc(5) numbers them:
// 5 is the process group, 6 the session.
func statField(t *testing.T, pid, n int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	v, err := strconv.Atoi(f[n-3])
	if err != nil {
		t.Fatal(err)
	}
	return v
}
