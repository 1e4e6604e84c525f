//go:build linux

package pluginhost_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// actAsProcessParent is the test binary re-run as a host (see
// TestProcessDiesWithParent): it starts the shell command argv through
// StartProcess, prints the child's pid and waits to be killed. Its other
// goroutines come and go meanwhile, as a host's do: Pdeathsig must follow
// the host's death, not a thread's.
// An argv "HUP:mark" starts actAsHupChild instead, with Pdeathsig SIGHUP.
func actAsProcessParent(argv string) int {
	cmd := exec.Command("/bin/sh", "-c", argv)
	if mark, ok := strings.CutPrefix(argv, "HUP:"); ok {
		cmd = exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = []string{"PLUGINAPI_TEST_HUP_CHILD=" + mark}
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGHUP}
	}
	p, err := pluginhost.StartProcess(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stdout, p.PID()) // stdout-ok: read by the test
	for {
		done := make(chan struct{})
		go func() { defer close(done); time.Sleep(time.Millisecond) }()
		<-done
	}
}

// pidGone waits up to a second for pid to be gone or a zombie (reaping an
// orphan is init's job).
func pidGone(pid int) bool {
	deadline := time.Now().Add(time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && strings.HasPrefix(s[i+1:], " Z") {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProcessDiesWithParent: a child started through StartProcess is killed
// by the kernel when its parent is SIGKILLed (Pdeathsig from the thread
// StartProcess keeps for the child's lifetime).
func TestProcessDiesWithParent(t *testing.T) {
	host, pid := startHost(t, "PLUGINAPI_TEST_PROCESS_PARENT=exec sleep 300")
	time.Sleep(200 * time.Millisecond) // threads of the parent come and go
	if pidGone(pid) {
		t.Fatal("the child died while its parent lives")
	}
	killHost(t, host)
	if !pidGone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d outlived its parent", pid)
	}
}

// TestProcessKillGroup: KillGroup kills the child and a grandchild it left
// running in the background, then Wait and State say how it ended.
func TestProcessKillGroup(t *testing.T) {
	p, err := pluginhost.StartProcess(exec.Command("/bin/sh", "-c", "sleep 300 & echo $!; wait"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.KillGroup()
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil {
		t.Fatalf("read the grandchild pid: %v", err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if p.State() != "" {
		t.Fatalf("State = %q while the child runs", p.State())
	}
	if err := p.KillGroup(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Wait(ctx); err == nil || ctx.Err() != nil {
		t.Fatalf("Wait = %v, want the child's kill", err)
	}
	if got := p.State(); got != "signal: killed" {
		t.Errorf("State = %q, want signal: killed", got)
	}
	if !pidGone(grandchild) {
		_ = syscall.Kill(grandchild, syscall.SIGKILL)
		t.Fatalf("grandchild %d outlived KillGroup", grandchild)
	}
	if err := p.KillGroup(); err != nil {
		t.Errorf("second KillGroup: %v", err)
	}
}

// actAsHupChild is the test binary re-run as a child that notes SIGHUP in
// the file mark ("started", then "hup") and exits. (A shell could not: a
// shell started with SIGHUP ignored, as under nohup, cannot trap it.)
func actAsHupChild(mark string) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP)
	if err := os.WriteFile(mark, []byte("started\n"), 0o600); err != nil {
		return 1
	}
	<-sigs
	_ = os.WriteFile(mark, []byte("hup\n"), 0o600)
	return 0
}

// TestProcessParentDeathSignal: a cmd whose SysProcAttr holds only
// Pdeathsig gets that signal, not SIGKILL, when its parent dies (so that
// host/keeper can kill what is below it first); any other field of
// SysProcAttr is refused.
func TestProcessParentDeathSignal(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "hup")
	host, pid := startHost(t, "PLUGINAPI_TEST_PROCESS_PARENT=HUP:"+mark)
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(mark); string(b) != "started\n"; b, _ = os.ReadFile(mark) {
		if time.Now().After(deadline) {
			t.Fatal("the child did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	killHost(t, host)
	// SIGKILL would end it at once, leaving the mark as it is.
	deadline = time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(mark); string(b) != "hup\n"; b, _ = os.ReadFile(mark) {
		if pidGone(pid) && string(b) == "started\n" {
			if b, _ = os.ReadFile(mark); string(b) != "hup\n" {
				t.Fatalf("the child ended without noting SIGHUP (mark %q): it got another signal", b)
			}
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d did not note SIGHUP 10 s after its parent died (mark %q)", pid, b)
		}
	}
	if !pidGone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d outlived its parent", pid)
	}

	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGHUP, Setsid: true}
	if _, err := pluginhost.StartProcess(cmd); err == nil || !strings.Contains(err.Error(), "only Pdeathsig") {
		t.Errorf("StartProcess with Setsid: %v, want refused", err)
	}
}

// TestStartProcessRefusesStdio: StartProcess owns the child's stdio.
func TestStartProcessRefusesStdio(t *testing.T) {
	cmd := exec.Command("/bin/true")
	cmd.Stdout = os.Stdout
	if _, err := pluginhost.StartProcess(cmd); err == nil {
		t.Fatal("StartProcess accepted a cmd with Stdout set")
	}
}
