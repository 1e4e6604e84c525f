//go:build linux

package pluginhost_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// stubborn is a Supervisor (a shell) that starts the command in a session
// of its own, reports its pid on fd 3, ignores Stop's SIGHUP and never
// exits by itself: what KillGroup must end by its last resort.
type stubborn struct {
	cmd  *exec.Cmd
	r, w *os.File
}

func stubbornSupervisor(cmd *exec.Cmd) (pluginhost.Supervised, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	sh := exec.Command("/bin/sh", append([]string{"-c",
		`trap '' HUP; setsid "$@" & echo $! >&3; exec 3>&-; while :; do sleep 0.1; done`, "sh", cmd.Path}, cmd.Args[1:]...)...)
	sh.Env = cmd.Env
	sh.ExtraFiles = []*os.File{w}
	return &stubborn{cmd: sh, r: r, w: w}, nil
}

func (s *stubborn) Command() *exec.Cmd { return s.cmd }
func (s *stubborn) Close()             { s.r.Close(); s.w.Close() }
func (s *stubborn) Stop() error        { return s.cmd.Process.Signal(syscall.SIGHUP) }
func (s *stubborn) Started() (int, error) {
	s.w.Close()
	defer s.r.Close()
	line, err := bufio.NewReader(s.r).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("read the supervised pid: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(line))
}

// TestStartSupervised: under a supervisor the Process's PID is the
// supervised process's and its stdio is that process's; KillGroup kills
// the supervised process's group, asks the supervisor to stop and, when it
// does not, kills the supervisor's group too.
func TestStartSupervised(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("/bin/sh", "-c", "echo hello from $$; exec sleep 301")
	p, err := pluginhost.StartSupervised(cmd, stubbornSupervisor)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.SupervisorPID(), syscall.SIGKILL); syscall.Kill(-p.PID(), syscall.SIGKILL) })
	go io.Copy(io.Discard, p.Stderr())
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if want := fmt.Sprintf("hello from %d\n", p.PID()); err != nil || line != want {
		t.Fatalf("stdout = %q, %v; want %q: the supervised process's pipes and pid", line, err, want)
	}
	if p.SupervisorPID() == 0 || p.SupervisorPID() == p.PID() {
		t.Fatalf("SupervisorPID %d, PID %d: want the shell's and the command's", p.SupervisorPID(), p.PID())
	}
	kept := p.PID()
	if err := p.KillGroup(); err != nil {
		t.Fatal(err)
	}
	if !pidGone(kept) {
		t.Errorf("the supervised process %d is alive after KillGroup", kept)
	}
	select {
	case <-p.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("the supervisor that ignores Stop was not killed 20 s after KillGroup")
	}
	if got := p.State(); got != "signal: killed" {
		t.Errorf("the supervisor ended with %q, want killed", got)
	}
}

// TestStartSupervisedNone: a nil Supervisor starts the command as
// StartProcess does.
func TestStartSupervisedNone(t *testing.T) {
	t.Parallel()
	p, err := pluginhost.StartSupervised(exec.Command("/bin/sh", "-c", "echo $$"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(p.Stdout())
	<-p.Exited()
	if strings.TrimSpace(string(b)) != strconv.Itoa(p.PID()) || p.SupervisorPID() != 0 {
		t.Errorf("printed %q, PID %d, SupervisorPID %d", b, p.PID(), p.SupervisorPID())
	}
}
