package llmproc

import (
	"bytes"
	"context"
	"strings"
	"sync"

	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/hashicorp/go-plugin/runner"
)

// procRunner starts harness-llm for go-plugin through a
// [pluginhost.ProcessRunner], the way pluginhost starts tool plugins: stdin
// a pipe whose write end only the host holds (EOF tells the process the
// host died), its own process group (Kill reaches all of it), and on Linux
// Pdeathsig SIGKILL, so it dies with the host even on SIGKILL. The process
// is reaped as soon as it exits.
type procRunner struct {
	*pluginhost.ProcessRunner
}

var _ runner.Runner = procRunner{}

func newProcRunner(path string) procRunner {
	return procRunner{pluginhost.NewProcessRunner(Binary, path)}
}

// Wait returns once the process is reaped; how it ended is ExitState's
// (go-plugin would log a Wait error as the plugin failing, and a stopped
// harness-llm has not failed).
func (r procRunner) Wait(ctx context.Context) error {
	_ = r.ProcessRunner.Wait(ctx)
	return nil
}

// closeStdin closes the process's stdin: it exits on EOF.
func (r procRunner) closeStdin() {
	if p := r.Process(); p != nil {
		p.CloseStdin()
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
