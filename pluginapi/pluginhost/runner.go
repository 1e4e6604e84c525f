package pluginhost

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner is the go-plugin runner.Runner that starts plugin processes
// (goplugin.md recommendations 8-11):
//
//   - stdin is a pipe whose write end only the host holds: the host's own
//     stdin (ACP's) never reaches a plugin, and EOF tells the plugin that
//     the host died;
//   - stdout and stderr are pipes read by go-plugin (handshake, logs);
//   - the process leads its own process group, so Kill reaches everything
//     it started;
//   - on Linux, Pdeathsig SIGKILLs it if the host dies: the process is
//     started from a goroutine locked to its OS thread, which stays locked
//     until the process exits (Pdeathsig fires when the starting thread
//     ends, not the process);
//   - the process is reaped as soon as it exits, independently of whoever
//     still holds its pipes, so exited is exact.
type procRunner struct {
	name string
	path string
	env  []string

	mu      sync.Mutex
	pid     int
	killed  bool
	stdin   *os.File // write end, held by the host
	stdout  *os.File // read ends, read by go-plugin
	stderr  *os.File
	tmpDir  string // the private socket folder go-plugin made
	started bool

	exited   chan struct{} // closed once the process is reaped
	waitErr  error
	state    string        // "exit status 3", "signal: killed"
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
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean the host's whole environment
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = procAttr()

	err = startLocked(cmd, r.reaped)
	closeAll(inR, outW, errW) // the child's ends
	if err != nil {
		closeAll(inW, outR, errR)
		return err
	}
	r.mu.Lock()
	r.pid = cmd.Process.Pid
	r.stdin, r.stdout, r.stderr = inW, outR, errR
	r.started = true
	killed := r.killed
	r.mu.Unlock()
	if killed { // Kill raced with Start
		_ = killGroup(r.pid)
	}
	return nil
}

// startLocked starts cmd on a goroutine locked to its OS thread and keeps
// that thread until the process exits, then calls onExit with Wait's
// result.
func startLocked(cmd *exec.Cmd, onExit func(*exec.Cmd, error)) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		onExit(cmd, err)
	}()
	return <-started
}

func (r *procRunner) reaped(cmd *exec.Cmd, err error) {
	r.mu.Lock()
	r.waitErr = err
	if cmd.ProcessState != nil {
		r.state = cmd.ProcessState.String()
	} else if err != nil {
		r.state = err.Error()
	}
	r.mu.Unlock()
	close(r.exited)
}

// Wait is called by go-plugin once it has read the plugin's stdout and
// stderr to EOF; it returns when the process has been reaped.
func (r *procRunner) Wait(context.Context) error {
	r.drainOne.Do(func() { close(r.drained) })
	<-r.exited
	r.closeReadEnds()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waitErr
}

// Kill SIGKILLs the plugin's process group and closes its stdin. It may be
// called any number of times, before or after Start.
func (r *procRunner) Kill(context.Context) error {
	r.mu.Lock()
	r.killed = true
	pid, started := r.pid, r.started
	stdin := r.stdin
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

func (r *procRunner) closeReadEnds() {
	r.closeOne.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		closeAll(r.stdout, r.stderr)
	})
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

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }

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
