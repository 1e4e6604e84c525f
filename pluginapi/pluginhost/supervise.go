package pluginhost

import (
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// Supervisor runs a child process under a supervisor process that
// outlives nothing: one that kills what the child left when the child
// ends, and everything below it when the host dies. The host's is
// host/keeper's (a child subreaper); this module cannot import it, so the
// host hands it to [LaunchConfig], [ProcessRunner] or [StartSupervised].
//
// It is given the child's command — Path, Args, Env and Dir set, nothing
// else — and returns what to start in its place. It must not start
// anything.
type Supervisor func(cmd *exec.Cmd) (Supervised, error)

// Supervised is a command prepared by a [Supervisor].
type Supervised interface {
	// Command is what to start in place of the command given to the
	// Supervisor: the supervisor's, or that command itself where no
	// supervisor runs. StartProcess's rules apply to it.
	Command() *exec.Cmd
	// Started is called once, after Command has started: it returns the
	// pid of the supervised process (the supervisor's child, leading a
	// process group of its own; Command's own pid where no supervisor
	// runs), or why that process could not be started.
	Started() (pid int, err error)
	// Close releases what the Supervisor made, when Command failed to
	// start.
	Close()
	// Stop asks the supervisor to SIGKILL everything below it at once,
	// and then to exit as the supervised process did. It returns at once
	// and does nothing once the supervisor is gone.
	Stop() error
}

// supervisorGrace is how long KillGroup lets a supervisor kill what is
// below it and exit before it SIGKILLs the supervisor's own group.
const supervisorGrace = 5 * time.Second

// StartSupervised starts cmd as [StartProcess] does, under the supervisor
// sup makes (sup nil: directly, as StartProcess). The Process's PID is
// then the supervised process's — the one cmd names, the one provenance
// records — and [Process.KillGroup] SIGKILLs that process's group and has
// the supervisor kill everything else below it. The Process's stdio,
// Exited, Wait and State are the supervisor's, which shares the
// supervised process's pipes and ends as it does.
func StartSupervised(cmd *exec.Cmd, sup Supervisor) (*Process, error) {
	if sup == nil {
		return StartProcess(cmd)
	}
	s, err := sup(cmd)
	if err != nil {
		return nil, fmt.Errorf("supervise %s: %w", cmd.Path, err)
	}
	if s == nil {
		return nil, errors.New("supervise " + cmd.Path + ": the supervisor gave no command")
	}
	p, err := StartProcess(s.Command())
	if err != nil {
		s.Close()
		return nil, err
	}
	pid, err := s.Started()
	if err != nil {
		_ = p.KillGroup()
		<-p.exited
		closeAll(p.stdout, p.stderr)
		return nil, err
	}
	if pid != p.pid {
		p.pid, p.sup = pid, s
	}
	return p, nil
}
