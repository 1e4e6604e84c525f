//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
)

// startTask starts line in the background for session and returns the
// task id and its process group.
func (f fixture) startTask(t testing.TB, session, line string) (string, int) {
	t.Helper()
	res := f.exec(t, call{session: session, args: map[string]any{"command": line, "run_in_background": true}})
	m := taskRE.FindStringSubmatch(res.Content)
	if res.IsError || m == nil {
		t.Fatalf("start: %+v", res)
	}
	pgid, _ := strconv.Atoi(m[2])
	t.Cleanup(func() { _ = signalGroup(pgid, 9) })
	return m[1], pgid
}

func (f fixture) task(t testing.TB, tool, session, id string) pluginapi.Result {
	t.Helper()
	return f.exec(t, call{tool: tool, session: session, args: map[string]any{"task_id": id}})
}

// readUntil polls bash_output until done accepts what it read since the
// call (the outputs, without "(no new output)" and status lines) and the
// last status.
func (f fixture) readUntil(t testing.TB, id string, done func(out, status string) bool) (string, string) {
	t.Helper()
	var out strings.Builder
	status := ""
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		res := f.task(t, toolOutput, "", id)
		if n := utf8.RuneCountInString(res.Content); n > maxChars {
			t.Errorf("bash_output returned %d characters", n)
		}
		i := strings.LastIndex(res.Content, "[status: ")
		if res.IsError || i < 0 {
			t.Fatalf("bash_output: %+v", res)
		}
		status = strings.TrimSuffix(res.Content[i+len("[status: "):], "]")
		if text := res.Content[:i]; text != "(no new output)\n" {
			out.WriteString(text)
		}
		if done(out.String(), status) {
			return out.String(), status
		}
	}
	t.Fatalf("bash_output: read %q, status %q", out.String(), status)
	return "", ""
}

// waitStatus reads a task until its status is want and returns the
// outputs read.
func (f fixture) waitStatus(t testing.TB, id, want string) string {
	t.Helper()
	out, _ := f.readUntil(t, id, func(_, status string) bool { return status == want })
	return out
}

// TestBackground takes a task through its life: start, new output since
// the last read, kill, status.
func TestBackground(t *testing.T) {
	t.Parallel()
	f := serve(t)
	var id string
	var pgid int
	within(t, 500*time.Millisecond, "starting a background task", func() {
		id, pgid = f.startTask(t, "", "echo first; sleep 0.3; echo second; sleep 1000")
	})
	out, status := f.readUntil(t, id, func(out, _ string) bool { return out != "" })
	if out != "first\n" || status != "running" {
		t.Fatalf("first read: %q, status %q", out, status)
	}
	out, status = f.readUntil(t, id, func(out, _ string) bool { return out != "" })
	if out != "second\n" || status != "running" {
		t.Errorf("second read: %q, status %q", out, status)
	}
	if res := f.task(t, toolOutput, "", id); res.Content != "(no new output)\n[status: running]" {
		t.Errorf("got %q", res.Content)
	}
	res := f.task(t, toolKill, "", id)
	if res.IsError || res.Content != "Stopped background task "+id+" [status: killed]. Its output stays readable with bash_output." {
		t.Errorf("bash_kill: %+v", res)
	}
	mustGone(t, pgid, time.Second)
	if res := f.task(t, toolOutput, "", id); res.Content != "(no new output)\n[status: killed]" {
		t.Errorf("after the kill: %q", res.Content)
	}
	if res := f.task(t, toolKill, "", id); res.Content != "Task "+id+" had already finished [status: killed]." {
		t.Errorf("second bash_kill: %q", res.Content)
	}
}

// TestBackgroundEnds: a task that ends by itself reports its exit code,
// keeps its output until read, and has no timeout unless given one.
func TestBackgroundEnds(t *testing.T) {
	t.Parallel()
	f := serve(t)
	id, _ := f.startTask(t, "", "sleep 0.2; echo bye; exit 4")
	if out := f.waitStatus(t, id, "exited with code 4"); out != "bye\n" {
		t.Errorf("read %q", out)
	}
	if res := f.task(t, toolOutput, "", id); res.Content != "(no new output)\n[status: exited with code 4]" {
		t.Errorf("got %q", res.Content)
	}
	res := f.exec(t, call{args: map[string]any{"command": "echo pgid=$$; sleep 1000", "run_in_background": true, "timeout_ms": 200}})
	m := taskRE.FindStringSubmatch(res.Content)
	if m == nil {
		t.Fatalf("start: %+v", res)
	}
	f.waitStatus(t, m[1], "timed out after 200 ms and was killed")
	pgid, _ := strconv.Atoi(m[2])
	mustGone(t, pgid, time.Second)
	id, _ = f.startTask(t, "", "kill -KILL $$")
	f.waitStatus(t, id, "killed by signal SIGKILL")
}

// TestBackgroundOutputCapped: bash_output caps what it returns, naming
// the task's spill file in the session's folder.
func TestBackgroundOutputCapped(t *testing.T) {
	t.Parallel()
	f := serve(t)
	id, _ := f.startTask(t, "", "seq 1 100000")
	got := f.waitStatus(t, id, "exited with code 0")
	_, rest, ok := strings.Cut(got, "\n[… ")
	if !ok {
		t.Fatalf("no cut marker in %.100q", got)
	}
	marker, _, _ := strings.Cut(rest, "]\n")
	path := spillIn(t, marker)
	if want := filepath.Join(f.state, "sessions", "s1", "bash-"+id+"-"); !strings.HasPrefix(path, want) {
		t.Errorf("spill file %s, want %s…", path, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 588895 {
		t.Errorf("spill file: %v, %v", fi, err)
	}
}

// TestOwnership: a task belongs to its session.
func TestOwnership(t *testing.T) {
	t.Parallel()
	f := serve(t)
	id, pgid := f.startTask(t, "s1", "sleep 1000")
	for _, tool := range []string{toolOutput, toolKill} {
		res := f.task(t, tool, "s2", id)
		if !res.IsError || res.Content != "Error: task "+id+" belongs to another session" {
			t.Errorf("%s from another session: %+v", tool, res)
		}
		if res := f.task(t, tool, "-", id); !res.IsError {
			t.Errorf("%s without a session: %+v", tool, res)
		}
	}
	if !groupAlive(pgid) {
		t.Error("another session's bash_kill killed the task")
	}
	if res := f.task(t, toolOutput, "s1", "bash_999"); res.Content != `Error: no background task "bash_999"` {
		t.Errorf("unknown task: %+v", res)
	}
	// A task started outside a session is open to all.
	open, _ := f.startTask(t, "-", "echo hi")
	if out := f.waitStatus(t, open, "exited with code 0"); out != "hi\n" {
		t.Errorf("read %q", out)
	}
}

// TestSessionClosed: the end of a session stops its tasks and only its.
func TestSessionClosed(t *testing.T) {
	t.Parallel()
	f := serve(t)
	_, a := f.startTask(t, "s1", "sleep 1000")
	_, b := f.startTask(t, "s1", "trap '' TERM; sleep 1000")
	other, c := f.startTask(t, "s2", "sleep 1000")
	within(t, 3*time.Second, "SessionClosed", func() {
		if err := f.c.SessionClosed(t.Context(), "s1"); err != nil {
			t.Fatal(err)
		}
	})
	mustGone(t, a, 100*time.Millisecond)
	mustGone(t, b, 100*time.Millisecond)
	if !groupAlive(c) {
		t.Error("another session's task was stopped")
	}
	if res := f.task(t, toolOutput, "s2", other); res.Content != "(no new output)\n[status: running]" {
		t.Errorf("got %q", res.Content)
	}
}

// TestTaskLimit: a session may run at most 16 tasks.
func TestTaskLimit(t *testing.T) {
	t.Parallel()
	f := serve(t)
	for range maxRunning {
		f.startTask(t, "s1", "sleep 1000")
	}
	res := f.exec(t, call{args: map[string]any{"command": "sleep 1000", "run_in_background": true}})
	if !res.IsError || !strings.Contains(res.Content, "already runs 16 background tasks") {
		t.Errorf("got %+v", res)
	}
	f.startTask(t, "s2", "true") // another session may
	if err := f.c.SessionClosed(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	f.startTask(t, "s1", "true")
}

// TestExitKillsTasks: a plugin stopped in process kills its tasks.
func TestExitKillsTasks(t *testing.T) {
	t.Parallel()
	f := serve(t)
	_, pgid := f.startTask(t, "s1", "sleep 1000")
	_ = f.c.Close()
	mustGone(t, pgid, time.Second)
}

// TestLaunched runs the built plugin as the host does: secrets stay out
// of commands, and closing the plugin kills its background tasks and the
// foreground command in flight.
func TestLaunched(t *testing.T) {
	t.Parallel()
	c, state := launch(t, "HARNESS_API_KEY=k1", "DEEPSEEK_API_KEY=k2", "FOO_TOKEN=k3", "MY_PASSWORD=k4", "SOME_SECRET=k5")
	f := fixture{c: c, state: state, cwd: t.TempDir()}
	checkEnv(t, f.sh(t, "env").Content)

	d1, d2 := sleepArg(), sleepArg()
	_, pgid := f.startTask(t, "s1", "sleep "+d1)
	fg := make(chan pluginapi.Result, 1)
	go func() {
		res, _ := c.Execute(t.Context(), f.req(t, call{id: "fg", args: map[string]any{"command": "trap '' TERM; sleep " + d2}}), nil)
		fg <- res
	}()
	waitSleepers(t, 3*time.Second, 2, d1, d2)
	within(t, 2*time.Second, "Close", func() { _ = c.Close() })
	mustGone(t, pgid, time.Second)
	sleepersGone(t, time.Second, d1, d2)
	<-fg
}

// TestLaunchedSIGTERM: a plugin told to stop by SIGTERM kills its tasks
// on its way out.
func TestLaunchedSIGTERM(t *testing.T) {
	t.Parallel()
	c, state := launch(t)
	f := fixture{c: c, state: state, cwd: t.TempDir()}
	_, pgid := f.startTask(t, "s1", "sleep 1000")
	pid := c.PID()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil { // the plugin alone
		t.Fatal(err)
	}
	select {
	case <-c.Exited():
	case <-time.After(3 * time.Second):
		t.Fatal("the plugin did not exit on SIGTERM")
	}
	mustGone(t, pgid, time.Second)
}
