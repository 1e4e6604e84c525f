package pluginhost

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner is the go-plugin runner.Runner that starts plugin processes
// (goplugin.md recommendations 8-11) as [Process]es: stdin a pipe whose
// write end only the host holds, stdout and stderr pipes read by go-plugin
// (handshake, logs), its own process group, Pdeathsig on Linux, and reaped
// as soon as it exits, so exited is exact.
type procRunner struct {
	name string
	path string
	env  []string

	mu     sync.Mutex
	proc   *Process // nil until Start
	killed bool
	tmpDir string // the private socket folder go-plugin made

	exited   chan struct{} // closed once the process is reaped
	drained  chan struct{} // closed when go-plugin has read stdout and stderr to EOF
	drainOne sync.Once
	closeOne sync.Once
}

var _ runner.Runner = (*procRunner)(nil)

func newProcRunner(name, path string) *procRunner {
	return &procRunner{
		name:    name,
		path:    path,
		exited:  make(chan struct{}),
		drained: make(chan struct{}),
	}
}

func (r *procRunner) Start(context.Context) error {
	cmd := exec.Command(r.path)
	cmd.Env = r.env
	p, err := StartProcess(cmd)
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
	if killed { // Kill raced with Start
		_ = p.KillGroup()
	}
	return nil
}

func (r *procRunner) process() *Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proc
}

// Wait is called by go-plugin once it has read the plugin's stdout and
// stderr to EOF; it returns when the process has been reaped.
func (r *procRunner) Wait(ctx context.Context) error {
	r.drainOne.Do(func() { close(r.drained) })
	p := r.process()
	if p == nil {
		return nil
	}
	err := p.Wait(context.WithoutCancel(ctx))
	r.closeReadEnds()
	return err
}

// Kill SIGKILLs the plugin's process group and closes its stdin. It may be
// called any number of times, before or after Start.
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

func (r *procRunner) closeReadEnds() {
	r.closeOne.Do(func() {
		if p := r.process(); p != nil {
			closeAll(p.Stdout(), p.Stderr())
		}
	})
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

func (r *procRunner) Stdout() io.ReadCloser { return r.process().Stdout() }
func (r *procRunner) Stderr() io.ReadCloser { return r.process().Stderr() }

// Name is the plugin's name: go-plugin relays its stderr into
// Logger.Named(Name).
func (r *procRunner) Name() string { return r.name }

func (r *procRunner) ID() string {
	if pid := r.PID(); pid != 0 {
		return strconv.Itoa(pid)
	}
	return ""
}

// Diagnose adds nothing: Launch turns go-plugin's start errors into
// StartErrors of its own.
func (r *procRunner) Diagnose(context.Context) string { return "" }

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
