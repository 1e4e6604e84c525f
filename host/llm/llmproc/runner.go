package llmproc

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner starts harness-llm for go-plugin the way pluginhost starts
// tool plugins: stdin a pipe whose write end only the host holds (EOF
// tells the process the host died), its own process group (Kill reaches
// all of it), and on Linux Pdeathsig SIGKILL from a goroutine locked to
// its OS thread for the process's lifetime, so it dies with the host even
// on SIGKILL. It reaps the process as soon as it exits.
type procRunner struct {
	path string
	env  []string

	mu      sync.Mutex
	pid     int
	killed  bool
	stdin   *os.File
	stdout  *os.File
	stderr  *os.File
	started bool

	exited chan struct{}
	state  string // "signal: killed", "exit status 2"
}

var _ runner.Runner = (*procRunner)(nil)

func (r *procRunner) Start(context.Context) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return err
	}
	cmd := exec.Command(r.path)
	cmd.Env = r.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = procAttr()
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // Pdeathsig fires when this thread ends
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		r.mu.Lock()
		if cmd.ProcessState != nil {
			r.state = cmd.ProcessState.String()
		}
		r.mu.Unlock()
		close(r.exited)
	}()
	err = <-started
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return err
	}
	r.mu.Lock()
	r.pid, r.started = cmd.Process.Pid, true
	r.stdin, r.stdout, r.stderr = inW, outR, errR
	killed := r.killed
	r.mu.Unlock()
	if killed {
		_ = killGroup(r.pid)
	}
	return nil
}

func (r *procRunner) Wait(context.Context) error {
	<-r.exited
	return nil
}

// Kill SIGKILLs the process group and closes stdin; any number of times.
func (r *procRunner) Kill(context.Context) error {
	r.mu.Lock()
	r.killed = true
	pid, started, stdin := r.pid, r.started, r.stdin
	r.stdin = nil
	r.mu.Unlock()
	if stdin != nil {
		_ = stdin.Close()
	}
	if !started {
		return nil
	}
	return killGroup(pid)
}

// closeStdin closes the process's stdin: it exits on EOF.
func (r *procRunner) closeStdin() {
	r.mu.Lock()
	stdin := r.stdin
	r.stdin = nil
	r.mu.Unlock()
	if stdin != nil {
		_ = stdin.Close()
	}
}

func (r *procRunner) exitState() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

func (r *procRunner) PID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pid
}

func (r *procRunner) Stdout() io.ReadCloser           { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser           { return r.stderr }
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

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

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
