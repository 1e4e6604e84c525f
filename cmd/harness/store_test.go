package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/session/natsstore/natstest"
)

// host is one harness "machine" on a shared store: the real binary with a
// state folder of its own, pointed at the NATS server.
type host struct {
	t     *testing.T
	bin   string
	state string
	store string
	cwd   string
}

func (h host) cmd(args ...string) *exec.Cmd {
	c := exec.Command(h.bin, args...)
	c.Dir = h.cwd
	c.Env = append(os.Environ(), "NO_COLOR=1", "HARNESS_STATE_DIR="+h.state, "HARNESS_STORE="+h.store,
		"HARNESS_STORE_LEASE=2s", "HARNESS_PLUGIN_DIR="+filepath.Join(h.state, "no-plugins"), "HARNESS_PROVIDER=script")
	return c
}

// run runs the command to its end and returns its exit code, stdout and
// stderr.
func (h host) run(args ...string) (int, string, string) {
	h.t.Helper()
	c := h.cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// export returns session id's log, read through the store, as JSON lines.
func (h host) export(id string) []map[string]any {
	h.t.Helper()
	path := filepath.Join(h.t.TempDir(), id+".jsonl")
	if code, _, errOut := h.run("sessions", "export", id, path); code != 0 {
		h.t.Fatalf("export: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			h.t.Fatalf("exported line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// waitFor reads r until it has seen want, or fails after a while.
func waitFor(t *testing.T, r *bufio.Reader, want string, what string) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		for !strings.Contains(b.String(), want) {
			c, err := r.ReadByte()
			if err != nil {
				break
			}
			b.WriteByte(c)
		}
		got <- b.String()
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, want) {
			t.Fatalf("%s: %q never came; got %q", what, want, s)
		}
		return s
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: %q did not come within a minute", what, want)
	}
	return ""
}

// TestStoreTwoHosts runs two harness processes with separate state
// folders on one embedded NATS server: a session made on A is listed,
// followed live, refused while A holds it (naming A), continued on B; and
// taken over after A is SIGKILLed mid-turn, its turn closed as
// interrupted, every event contiguous.
func TestStoreTwoHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := natstest.Start(t, natstest.Config{})
	bin := harnessBin(t)
	cwd := t.TempDir()
	a := host{t: t, bin: bin, state: t.TempDir(), store: srv.URL(), cwd: cwd}
	b := host{t: t, bin: bin, state: t.TempDir(), store: srv.URL(), cwd: cwd}

	// A's turn hangs after its first words: the session stays held.
	script := writeScript(t, `{"text":"first words from A","hang":true}`)
	runA := a.cmd("run", "--script", script, "the prompt on A")
	stdout, err := runA.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errA bytes.Buffer
	runA.Stderr = &errA
	if err := runA.Start(); err != nil {
		t.Fatal(err)
	}
	defer runA.Process.Kill()
	waitFor(t, bufio.NewReader(stdout), "first words from A", "A's turn")

	code, list, errOut := b.run("sessions")
	if code != 0 || !strings.Contains(list, "the prompt on A") {
		t.Fatalf("sessions on B: exit %d\n%s%s", code, list, errOut)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]

	// B follows A's turn live.
	attach := b.cmd("attach", id)
	attachOut, err := attach.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := attach.Start(); err != nil {
		t.Fatal(err)
	}
	defer attach.Process.Kill()
	ar := bufio.NewReader(attachOut)
	waitFor(t, ar, "› the prompt on A", "attach")

	// While A holds it, B cannot continue it: one line naming A.
	code, _, errOut = b.run("run", "--script", writeScript(t, `{"text":"never"}`), "--session", id, "from B")
	if code == 0 || !strings.Contains(errOut, "is open on") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Fatalf("B's run while A holds it: exit %d, stderr %q: want one line naming the holder", code, errOut)
	}
	host, _ := os.Hostname()
	if !strings.Contains(errOut, host+" pid "+fmt.Sprint(runA.Process.Pid)) {
		t.Errorf("refusal %q does not name A (%s pid %d)", errOut, host, runA.Process.Pid)
	}

	// A dies mid-turn. B takes the session over once A's lease expires.
	killed := time.Now()
	if err := runA.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = runA.Wait()
	var took time.Duration
	for {
		code, out, errOut := b.run("run", "--script", writeScript(t, `{"text":"B carries on"}`), "--session", id, "from B")
		if code == 0 {
			took = time.Since(killed)
			if !strings.Contains(out, "B carries on") {
				t.Fatalf("B's turn: %s", out)
			}
			break
		}
		if !strings.Contains(errOut, "is open on") || time.Since(killed) > time.Minute {
			t.Fatalf("B's takeover: exit %d: %s", code, errOut)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("B took the session over %s after A's SIGKILL (lease 2s)", took.Round(10*time.Millisecond))
	waitFor(t, ar, "B carries on", "attach after the takeover")
	_ = attach.Process.Signal(syscall.SIGINT)
	_ = attach.Wait()

	evs := b.export(id)
	var turnEnds []string
	for i, ev := range evs[1:] {
		if seq := ev["seq"].(float64); int(seq) != i {
			t.Fatalf("event %d has seq %v", i, seq)
		}
		if ev["type"] == "turn/end" {
			turnEnds = append(turnEnds, ev["data"].(map[string]any)["reason"].(string))
		}
	}
	if strings.Join(turnEnds, " ") != "interrupted completed" {
		t.Errorf("turn ends %v, want A's interrupted then B's completed", turnEnds)
	}
}
