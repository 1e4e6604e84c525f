package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// Process is a child process the host owns and that must never outlive it:
// a tool plugin (Launch starts them through it), the harness-llm provider
// process (host/llm/llmproc) or an MCP stdio server (host/mcpclient).
// [StartProcess] starts one; the contract is:
//
//   - its stdin, stdout and stderr are pipes: the host holds the write end
//     of stdin (the host's own stdin never reaches the child, and EOF tells
//     it the host died) and the read ends of stdout and stderr;
//   - it leads its own session and process group, so [Process.KillGroup]
//     reaches everything it started, and it has no controlling terminal
//     (it cannot write to the user's terminal past host/termsafe);
//   - on Linux the kernel SIGKILLs it when the host dies, even by SIGKILL
//     (Pdeathsig): it is started from a goroutine locked to its OS thread,
//     and that thread is kept until the child exits, because Pdeathsig
//     fires when the starting thread ends, not the host;
//   - it is reaped as soon as it exits, whoever still holds its pipes, so
//     [Process.Exited] is exact;
//   - started by [StartSupervised], it runs under a supervisor (the host's
//     is host/keeper): the supervisor is the child above, on the same
//     pipes, and ends as the supervised process does once nothing it left
//     is running; PID is the supervised process's.
//
// Its methods may be called from any goroutine.
type Process struct {
	pid    int        // the process the command names (the supervised one, under a supervisor)
	leader int        // the direct child, which leads its process group
	sup    Supervised // nil unless started under a supervisor (StartSupervised)
	stdout *os.File
	stderr *os.File

	mu    sync.Mutex
	stdin *os.File // nil once closed

	fallback sync.Once // KillGroup's last resort on the supervisor, armed once

	exited  chan struct{} // closed once the process is reaped
	waitErr error         // set before exited closes
	state   string        // "exit status 3", "signal: killed"; set before exited closes
}

// StartProcess starts cmd as a [Process]. cmd's Stdin, Stdout, Stderr and
// SysProcAttr must be unset: StartProcess sets them — except, on Linux, a
// SysProcAttr holding only Pdeathsig, the signal the child gets when the
// host dies instead of SIGKILL (for a child that must clean up after
// itself, such as host/keeper's: a Pdeathsig it set itself with prctl
// would hold only for the thread it ran on). A nil cmd.Env is
// replaced by an empty one (nil would mean the host's whole environment).
// A failure to start is exec's own error, which names the binary. Whoever
// calls it reads the child's stdout and stderr to EOF, or closes
// them, lest the child block writing.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("start process: cmd's stdio must be unset")
	}
	attr, err := procAttrWith(cmd.SysProcAttr)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("make pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("make pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("make pipe: %w", err)
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = attr
	p := &Process{stdin: inW, stdout: outR, stderr: errR, exited: make(chan struct{})}

	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // Pdeathsig fires when this thread ends
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		p.waitErr = err
		if cmd.ProcessState != nil {
			p.state = cmd.ProcessState.String()
		} else if err != nil {
			p.state = err.Error()
		}
		close(p.exited)
	}()
	err = <-started
	closeAll(inR, outW, errW) // the child's ends
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err // exec's own error names the binary: "fork/exec /x: no such file or directory"
	}
	p.pid, p.leader = cmd.Process.Pid, cmd.Process.Pid
	return p, nil
}

// PID is the child's process id (and its process group's). Under a
// supervisor ([StartSupervised]) it is the supervised process's, not the
// supervisor's.
func (p *Process) PID() int { return p.pid }

// SupervisorPID is the supervisor's process id, or 0 when the process
// runs under none.
func (p *Process) SupervisorPID() int {
	if p.sup == nil {
		return 0
	}
	return p.leader
}

// Stdin is the write end of the child's stdin, or nil once [Process.CloseStdin]
// has closed it.
func (p *Process) Stdin() *os.File {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdin
}

// CloseStdin closes the child's stdin: a well-behaved child exits on EOF.
// It may be called any number of times.
func (p *Process) CloseStdin() {
	p.mu.Lock()
	stdin := p.stdin
	p.stdin = nil
	p.mu.Unlock()
	if stdin != nil {
		_ = stdin.Close()
	}
}

// Stdout is the read end of the child's stdout.
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr is the read end of the child's stderr.
func (p *Process) Stderr() *os.File { return p.stderr }

// Exited is closed once the child has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait returns exec.Cmd.Wait's result once the child has been reaped, or
// ctx's error if ctx ends first.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.exited:
		return p.waitErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// State says how the child ended ("exit status 3", "signal: killed"); it
// is empty while the child runs.
func (p *Process) State() string {
	select {
	case <-p.exited:
		return p.state
	default:
		return ""
	}
}

// KillGroup SIGKILLs the child's process group — the child and everything
// it started that stayed in its group — and closes its stdin (where there
// are no process groups, it kills the child alone). Under a supervisor it
// SIGKILLs the supervised process's group and has the supervisor SIGKILL
// everything else below it (setsid'd, double-forked) and exit; should the
// supervisor still be there supervisorGrace later, its own group is
// SIGKILLed. It returns at once; Exited tells when all is gone. It may be
// called any number of times, also after the child has exited.
func (p *Process) KillGroup() error {
	p.CloseStdin()
	if p.sup == nil {
		if err := killGroup(p.pid); err != nil {
			return fmt.Errorf("kill process group %d: %w", p.pid, err)
		}
		return nil
	}
	select {
	case <-p.exited: // a supervisor exits once nothing is left below it
		return nil
	default:
	}
	var errs []error
	if err := killGroup(p.pid); err != nil {
		errs = append(errs, fmt.Errorf("kill process group %d: %w", p.pid, err))
	}
	if err := p.sup.Stop(); err != nil {
		errs = append(errs, err)
	}
	p.fallback.Do(func() {
		go func() {
			select {
			case <-p.exited:
			case <-time.After(supervisorGrace):
				_ = killGroup(p.leader)
			}
		}()
	})
	return errors.Join(errs...)
}
