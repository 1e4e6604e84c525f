package keeper_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// leaver is a server that leaves a setsid'd sleep and a double-forked one
// behind, prints their pids and "ready", and then runs tail: what it does
// until it ends.
func leaver(tail string) string {
	return `(setsid sleep 300 & echo $!); (sleep 301 & echo $!); echo ready; ` + tail
}

// start starts script under a keeper as mcpclient does: Wrap, then
// pluginhost.StartProcess, then Started.
func start(t testing.TB, script string) (*pluginhost.Process, int) {
	t.Helper()
	p, server, err := startKept(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = keeper.Stop(p.PID()); _ = p.KillGroup() })
	return p, server
}

func startKept(script string) (*pluginhost.Process, int, error) {
	k, err := keeper.Wrap(exec.Command("/bin/sh", "-c", script))
	if err != nil {
		return nil, 0, err
	}
	if k.Cmd.Path != "/proc/self/exe" {
		return nil, 0, fmt.Errorf("Wrap did not wrap: %s", k.Cmd.Path)
	}
	p, err := pluginhost.StartProcess(k.Cmd)
	if err != nil {
		k.Close()
		return nil, 0, err
	}
	server, err := k.Started()
	if err != nil {
		_ = p.KillGroup()
		return nil, 0, err
	}
	return p, server, nil
}

// actAsHost is the test binary re-run as a host (TestHostKilled): it
// starts script under a keeper, prints the keeper's and the server's pids
// and then what the server prints, and waits to be killed.
func actAsHost(script string) int {
	p, server, err := startKept(script)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d\n%d\n", p.PID(), server) // stdout-ok: read by the test
	_, _ = io.Copy(os.Stdout, p.Stdout())
	select {}
}

// readPIDs reads pids, one a line, up to "ready".
func readPIDs(t *testing.T, r *bufio.Reader) []int {
	t.Helper()
	var pids []int
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read the pids: %v (have %v)", err, pids)
		}
		line = strings.TrimSpace(line)
		if line == "ready" {
			return pids
		}
		pid, err := strconv.Atoi(line)
		if err != nil {
			t.Fatalf("not a pid: %q", line)
		}
		pids = append(pids, pid)
	}
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// allGone waits up to 10 s for every pid to be gone; it reports those
// left (and kills them).
func allGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("%v alive 10 s after %s", left, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func wait(t *testing.T, p *pluginhost.Process) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = p.Wait(ctx)
	if ctx.Err() != nil {
		t.Fatal("the keeper did not exit within 10 s")
	}
}

// TestHostKilled: when the host is SIGKILLed, the keeper kills the server
// (one that does not exit when its stdin closes)
// and what it left in another session and behind a double fork.
func TestHostKilled(t *testing.T) {
	t.Parallel()
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), "KEEPER_TEST_HOST="+leaver("exec sleep 304"))
	host.Stderr = os.Stderr
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	pids := readPIDs(t, bufio.NewReader(out)) // keeper, server, setsid sleep, double-forked sleep
	if len(pids) != 4 {
		t.Fatalf("pids %v, want keeper, server and two sleeps", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%d of %v is gone while the host lives", pid, pids)
		}
	}
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	allGone(t, "the host was SIGKILLed", pids...)
}

// TestServerEnds: when the server ends — its stdin closed, a crash, a
// signal, Stop — nothing it left is running, and the keeper ends as the
// server did, its stderr reaching the host.
func TestServerEnds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tail string
		end        func(p *pluginhost.Process, server int)
		state      string
		stderr     string
	}{
		{"stdin closed", "exec cat", func(p *pluginhost.Process, _ int) { p.CloseStdin() }, "exit status 0", ""},
		{"exit status", "echo going down >&2; exit 3", nil, "exit status 3", "going down"},
		{"killed by a signal", "kill -SEGV $$", nil, "signal: segmentation fault", ""},
		{"SIGKILLed", "exec cat", func(_ *pluginhost.Process, server int) { _ = syscall.Kill(server, syscall.SIGKILL) }, "signal: killed", ""},
		{"SIGTERM forwarded", "sleep 302 & wait", // the trap is set before "ready": see below
			func(p *pluginhost.Process, _ int) { _ = syscall.Kill(p.PID(), syscall.SIGTERM) }, "exit status 5", "got TERM"},
		{"Stop", "trap '' TERM; exec cat", func(p *pluginhost.Process, _ int) { _ = keeper.Stop(p.PID()) }, "signal: killed", ""},
		{"leftover ignores SIGTERM", "(trap '' TERM; sleep 303) & echo bye >&2", nil, "exit status 0", "bye"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			script := leaver(c.tail)
			if c.stderr == "got TERM" {
				// The signal is sent once the script says ready: its trap
				// must be in place by then.
				script = "trap 'echo got TERM >&2; exit 5' TERM; " + script
			}
			p, server := start(t, script)
			stderr := make(chan string, 1)
			go func() { b, _ := io.ReadAll(p.Stderr()); stderr <- string(b) }()
			pids := append(readPIDs(t, bufio.NewReader(p.Stdout())), server)
			go func() { _, _ = io.Copy(io.Discard, p.Stdout()) }()
			if c.end != nil {
				c.end(p, server)
			}
			wait(t, p)
			if got := p.State(); got != c.state {
				t.Errorf("the keeper ended with %q, want the server's %q", got, c.state)
			}
			allGone(t, "the keeper exited", pids...)
			select {
			case got := <-stderr:
				if !strings.Contains(got, c.stderr) {
					t.Errorf("stderr = %q, want %q in it", got, c.stderr)
				}
			case <-time.After(10 * time.Second):
				t.Error("stderr still open 10 s after the keeper exited")
			}
		})
	}
}

// TestStartFails: a server that cannot be executed is exec's own error,
// from Started; a name exec.Command finds nowhere in PATH is not wrapped,
// so starting it fails as it always did.
func TestStartFails(t *testing.T) {
	t.Parallel()
	notExec := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{notExec, "fork/exec " + notExec + ": permission denied"},
		{"/nonexistent/server", "fork/exec /nonexistent/server: no such file or directory"},
	} {
		k, err := keeper.Wrap(exec.Command(c.path))
		if err != nil {
			t.Fatal(err)
		}
		p, err := pluginhost.StartProcess(k.Cmd)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Started(); err == nil || err.Error() != c.want {
			t.Errorf("Started = %v, want %q", err, c.want)
		}
		wait(t, p)
	}

	missing := exec.Command("no-such-mcp-server-anywhere")
	k, err := keeper.Wrap(missing)
	if err != nil {
		t.Fatal(err)
	}
	if k.Cmd != missing {
		t.Errorf("a command exec.Command did not find was wrapped")
	}
	_, err = pluginhost.StartProcess(k.Cmd)
	if err == nil || !strings.Contains(err.Error(), "no-such-mcp-server-anywhere") {
		t.Errorf("StartProcess = %v, want exec's error naming the binary", err)
	}
	k.Close()
}
