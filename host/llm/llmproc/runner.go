package llmproc

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/hashicorp/go-plugin/runner"
)

// procRunner starts harness-llm for go-plugin as a [pluginhost.Process],
// the way pluginhost starts tool plugins: stdin a pipe whose write end only
// the host holds (EOF tells the process the host died), its own process
// group (Kill reaches all of it), and on Linux Pdeathsig SIGKILL, so it
// dies with the host even on SIGKILL. The process is reaped as soon as it
// exits.
type procRunner struct {
	path string
	env  []string

	mu     sync.Mutex
	proc   *pluginhost.Process // nil until Start
	killed bool

	exited chan struct{}
}

var _ runner.Runner = (*procRunner)(nil)

func (r *procRunner) Start(context.Context) error {
	cmd := exec.Command(r.path)
	cmd.Env = r.env
	p, err := pluginhost.StartProcess(cmd)
	if err != nil {
		return err
	}
	go func() {
		<-p.Exited()
		close(r.exited)
	}()
	r.mu.Lock()
	r.proc = p
	killed := r.killed
	r.mu.Unlock()
	if killed {
		_ = p.KillGroup()
	}
	return nil
}

func (r *procRunner) process() *pluginhost.Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proc
}

func (r *procRunner) Wait(context.Context) error {
	<-r.exited
	return nil
}

// Kill SIGKILLs the process group and closes stdin; any number of times.
func (r *procRunner) Kill(context.Context) error {
	r.mu.Lock()
	r.killed = true
	p := r.proc
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.KillGroup()
}

// closeStdin closes the process's stdin: it exits on EOF.
func (r *procRunner) closeStdin() {
	if p := r.process(); p != nil {
		p.CloseStdin()
	}
}

func (r *procRunner) exitState() string {
	if p := r.process(); p != nil {
		return p.State()
	}
	return ""
}

func (r *procRunner) PID() int {
	if p := r.process(); p != nil {
		return p.PID()
	}
	return 0
}

func (r *procRunner) Stdout() io.ReadCloser           { return r.process().Stdout() }
func (r *procRunner) Stderr() io.ReadCloser           { return r.process().Stderr() }
func (r *procRunner) Name() string                    { return "harness-llm" }
func (r *procRunner) Diagnose(context.Context) string { return "" }
func (r *procRunner) ID() string {
	if pid := r.PID(); pid != 0 {
		return strconv.Itoa(pid)
	}
	return ""
}
func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }

// tailLines is how many stderr lines are kept for a crash message.
const tailLines = 8

// lineTail keeps the last lines of the process's stderr, each capped.
type lineTail struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
}

func (t *lineTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = append(t.partial, p[:min(len(p), max(0, 1024-len(t.partial)))]...)
			break
		}
		t.partial = append(t.partial, p[:min(i, max(0, 1024-len(t.partial)))]...)
		if line := strings.TrimSpace(string(t.partial)); line != "" {
			t.lines = append(t.lines, line)
			if len(t.lines) > tailLines {
				t.lines = t.lines[len(t.lines)-tailLines:]
			}
		}
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if s := strings.TrimSpace(string(t.partial)); s != "" {
		lines = append(lines[:len(lines):len(lines)], s)
	}
	return strings.Join(lines, " | ")
}
