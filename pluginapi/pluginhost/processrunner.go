package pluginhost

import (
	"context"
	"io"
	"os/exec"
	"strconv"
	"sync"

	"github.com/hashicorp/go-plugin/runner"
)

// ProcessRunner is a go-plugin runner.Runner (for
// plugin.ClientConfig.RunnerFunc) that starts a binary as a [Process], so a
// go-plugin process gets Process's whole contract: stdin only the host
// holds, its own process group, Pdeathsig on Linux, reaped at once — and,
// given a [Supervisor], runs it under that supervisor ([StartSupervised]).
// Launch starts tool plugins through one; host/llm/llmproc starts
// harness-llm through one. Kill may come before, during or after Start.
type ProcessRunner struct {
	name string
	path string

	mu     sync.Mutex
	env    []string
	sup    Supervisor
	proc   *Process // nil until Start
	killed bool

	exited chan struct{} // closed once the process is reaped
}

var _ runner.Runner = (*ProcessRunner)(nil)

// NewProcessRunner returns a runner that starts the binary at path with no
// arguments; name is what go-plugin names its logger after.
func NewProcessRunner(name, path string) *ProcessRunner {
	return &ProcessRunner{name: name, path: path, exited: make(chan struct{})}
}

// SetEnv sets the environment Start gives the process (nil means an empty
// one, never the host's). Call it before Start, typically from RunnerFunc.
func (r *ProcessRunner) SetEnv(env []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.env = env
}

// SetSupervisor has Start run the process under the supervisor sup makes
// (nil: none). Call it before Start.
func (r *ProcessRunner) SetSupervisor(sup Supervisor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sup = sup
}

// Start starts the process (under its supervisor, if it has one).
func (r *ProcessRunner) Start(context.Context) error {
	r.mu.Lock()
	cmd := exec.Command(r.path)
	cmd.Env = r.env
	sup := r.sup
	r.mu.Unlock()
	p, err := StartSupervised(cmd, sup)
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

// Process is the started process, or nil before Start.
func (r *ProcessRunner) Process() *Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proc
}

// Exited is closed once the process has exited and been reaped.
func (r *ProcessRunner) Exited() <-chan struct{} { return r.exited }

// ExitState says how the process ended ("signal: killed"), or "" while it
// runs or before Start.
func (r *ProcessRunner) ExitState() string {
	if p := r.Process(); p != nil {
		return p.State()
	}
	return ""
}

// Wait returns the process's exec.Cmd.Wait result once it is reaped.
func (r *ProcessRunner) Wait(ctx context.Context) error {
	p := r.Process()
	if p == nil {
		return nil
	}
	return p.Wait(context.WithoutCancel(ctx))
}

// Kill SIGKILLs the process group and closes stdin (under a supervisor,
// the supervisor then kills what is left below it: see
// [Process.KillGroup]). It may be called any number of times, before or
// after Start.
func (r *ProcessRunner) Kill(context.Context) error {
	r.mu.Lock()
	r.killed = true
	p := r.proc
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.KillGroup()
}

// PID is the process id, or 0 before Start; under a supervisor, the
// supervised process's, not the supervisor's.
func (r *ProcessRunner) PID() int {
	if p := r.Process(); p != nil {
		return p.PID()
	}
	return 0
}

// Stdout is the read end of the process's stdout (go-plugin reads it).
func (r *ProcessRunner) Stdout() io.ReadCloser { return r.Process().Stdout() }

// Stderr is the read end of the process's stderr (go-plugin reads it).
func (r *ProcessRunner) Stderr() io.ReadCloser { return r.Process().Stderr() }

// Name is the name given to NewProcessRunner: go-plugin relays the
// process's stderr into Logger.Named(Name).
func (r *ProcessRunner) Name() string { return r.name }

// ID is the process id as a string, or "" before Start.
func (r *ProcessRunner) ID() string {
	if pid := r.PID(); pid != 0 {
		return strconv.Itoa(pid)
	}
	return ""
}

// Diagnose adds nothing.
func (r *ProcessRunner) Diagnose(context.Context) string { return "" }

// PluginToHost keeps addresses as they are: host and process share a machine.
func (r *ProcessRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

// HostToPlugin keeps addresses as they are: host and process share a machine.
func (r *ProcessRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}
