package pluginhost

import (
	"context"
	"os"
	"sync"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner is the go-plugin runner.Runner that starts plugin processes
// (goplugin.md recommendations 8-11): a [ProcessRunner], whose stdout and
// stderr go-plugin reads (handshake, logs), plus the plugin's private
// socket folder and the moment go-plugin has drained its output.
type procRunner struct {
	*ProcessRunner
	tmpDir string // the private socket folder go-plugin made

	drained  chan struct{} // closed when go-plugin has read stdout and stderr to EOF
	drainOne sync.Once
	closeOne sync.Once
}

var _ runner.Runner = (*procRunner)(nil)

func newProcRunner(name, path string) *procRunner {
	return &procRunner{ProcessRunner: NewProcessRunner(name, path), drained: make(chan struct{})}
}

// Wait is called by go-plugin once it has read the plugin's stdout and
// stderr to EOF; it returns when the process has been reaped.
func (r *procRunner) Wait(ctx context.Context) error {
	r.drainOne.Do(func() { close(r.drained) })
	err := r.ProcessRunner.Wait(ctx)
	r.closeReadEnds()
	return err
}

func (r *procRunner) closeReadEnds() {
	r.closeOne.Do(func() {
		if p := r.Process(); p != nil {
			closeAll(p.Stdout(), p.Stderr())
		}
	})
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
