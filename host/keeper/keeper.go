package keeper

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// arg is the hidden first argument of a keeper: argv is
// [name, arg, host pid, server path, server argv...].
const arg = "--harness-mcp-keeper-v1"

// Grace is how long the keeper lets what the server left behind handle
// SIGTERM before it SIGKILLs it.
const Grace = time.Second

// reportFD is the keeper's fd 3: it writes "ok PID" once the server runs,
// or "error WHY", then closes it.
const reportFD = 3

// hooked is set once Main has run in this binary: it can act as a keeper.
var hooked atomic.Bool

// Main runs the keeper when args (os.Args) are a keeper's, and then
// returns its exit status and true; the caller exits with it. Otherwise
// it returns false at once, and from then on [Wrap] may run this binary as
// a keeper. main calls it first, before anything else (and so does
// TestMain in a test binary that starts MCP servers).
func Main(args []string) (code int, ok bool) {
	if len(args) >= 5 && args[1] == arg {
		return run(args), true
	}
	hooked.Store(true)
	return 0, false
}

// Kept is a server's command prepared to run under a keeper.
type Kept struct {
	// Cmd is what to start in place of the server's command: the keeper,
	// or the server's command itself where no keeper runs.
	Cmd *exec.Cmd

	report, reportW *os.File // the keeper's report pipe; nil without a keeper
}

// Wrap prepares cmd — its Path, Args, Env and Dir; its other fields
// must be unset — to run under a keeper. Where no keeper can run (not
// Linux, Main not called, or cmd already failed: exec.Command found no
// such binary) Kept.Cmd is cmd itself, so that starting it fails or runs
// as it always did. After Kept.Cmd has started, call [Kept.Started]; if it
// failed to start, [Kept.Close].
func Wrap(cmd *exec.Cmd) (*Kept, error) {
	if !supported || !hooked.Load() || cmd.Err != nil {
		return &Kept{Cmd: cmd}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("make the keeper's pipe: %w", err)
	}
	name := "harness"
	if len(os.Args) > 0 && os.Args[0] != "" {
		name = os.Args[0]
	}
	k := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       append([]string{name, arg, strconv.Itoa(os.Getpid()), cmd.Path}, cmd.Args...),
		Env:        cmd.Env,
		Dir:        cmd.Dir,
		ExtraFiles: []*os.File{w}, // reportFD
		// SIGHUP, not StartProcess's SIGKILL, when the host dies: the
		// keeper kills what is below it first. (Its own prctl could not
		// promise that: it holds for the thread it runs on, and the
		// kernel also sends the leader thread's signal.)
		SysProcAttr: hangupOnHostDeath(),
	}
	return &Kept{Cmd: k, report: r, reportW: w}, nil
}

// Started waits until the keeper has started the server and returns the
// server's pid, or exec's error for it. Without a keeper it returns the
// started command's pid. It releases what Wrap made; call it once.
func (k *Kept) Started() (pid int, err error) {
	if k.report == nil {
		return k.Cmd.Process.Pid, nil
	}
	_ = k.reportW.Close() // only the keeper writes now: EOF when it ends
	defer k.report.Close()
	b, err := io.ReadAll(io.LimitReader(k.report, 4096))
	if err != nil {
		return 0, fmt.Errorf("read the MCP keeper's report: %w", err)
	}
	line := strings.TrimSpace(string(b))
	switch {
	case strings.HasPrefix(line, "ok "):
		if pid, err := strconv.Atoi(line[3:]); err == nil {
			return pid, nil
		}
	case strings.HasPrefix(line, "error "):
		return 0, errors.New(line[6:])
	case line == "":
		return 0, errors.New("the MCP keeper ended before it started the server")
	}
	return 0, fmt.Errorf("the MCP keeper said %q", line)
}

// Close releases what Wrap made, when Kept.Cmd failed to start.
func (k *Kept) Close() {
	if k.report != nil {
		_ = k.report.Close()
		_ = k.reportW.Close()
	}
}

// Stop asks the keeper whose pid is pid to SIGKILL the server and
// everything below it at once, and then to exit as the server did. It is
// for a server that would not stop when its stdin closed; the caller
// still kills the keeper's process group when it does not exit.
func Stop(pid int) error { return stop(pid) }
