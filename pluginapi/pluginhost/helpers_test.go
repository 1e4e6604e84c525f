package pluginhost_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// logWriter sends log lines to t.Log until the test ends.
type logWriter struct {
	t    testing.TB
	done atomic.Bool
}

func (w *logWriter) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func closeStdin(t *testing.T, c *pluginhost.Client) {
	t.Helper()
	pluginhost.CloseStdin(c)
}

func execOutput(path string, args ...string) ([]byte, error) {
	return exec.Command(path, args...).Output()
}

// groupGone reports whether no live (non-zombie) process is left in the
// process group pgid, waiting up to a second for the kernel to deliver the
// kill. Zombies count as gone: reaping orphans is init's job.
func groupGone(pgid int) bool {
	deadline := time.Now().Add(time.Second)
	for {
		if !groupLive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func groupLive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: the group answered the signal
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

// startHost re-runs the test binary as a host with the environment setting
// env (see TestMain) and returns it with the child pid it prints. The host
// is killed when the test ends.
func startHost(t *testing.T, env string) (*exec.Cmd, int) {
	t.Helper()
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), env)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the child pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return host, pid
}

// killHost SIGKILLs a host startHost started and reaps it.
func killHost(t *testing.T, host *exec.Cmd) {
	t.Helper()
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
}
