package llmproc

import (
	"context"
	"strings"

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

// tailString is a crash message's view of the stderr tail: its non-blank
// lines, trimmed, joined by " | ".
func tailString(t *pluginhost.LineTail) string {
	var lines []string
	for _, l := range t.Lines() {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " | ")
}
