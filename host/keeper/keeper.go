package keeper

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/harness-dev/harness/sandbox"
)

// arg is the hidden first argument of a keeper: argv is [name, arg,
// request as JSON, path, argv...].
const arg = "--harness-keeper-v1"

// Request is what the host asks of a keeper: what to run and for whom.
// It travels in the keeper's argv — the binary and its argv as they are
// (any bytes), the rest as JSON — and holds nothing secret: the
// environment, which may, is the keeper's own. A capability
// profile for the process (what it may read, write, reach) belongs here
// too when there is one: the keeper applies it before it execs the
// process.
type Request struct {
	// HostPID is the host's pid: the keeper starts nothing once its
	// parent is another process (the host died before it was told).
	HostPID int `json:"hostPid"`
	// Confine, when set, is the profile the keeper confines the process
	// to before it execs it (sandbox.ConfineThread on the thread that
	// forks it): the plugin's socket folder ($PLUGIN_UNIX_SOCKET_DIR) is
	// added to its writable paths, and with Temp a private temp folder,
	// its TMPDIR, removed once the process is gone.
	Confine *sandbox.Profile `json:"confine,omitempty"`
	// Temp asks for the private temp folder (with Confine).
	Temp bool `json:"temp,omitempty"`
	// Path is the binary to run, Args its argv (Args[0] its name); they
	// follow the JSON in argv.
	Path string   `json:"-"`
	Args []string `json:"-"`
}

// Grace is how long the keeper lets what the process left behind handle
// SIGTERM before it SIGKILLs it.
const Grace = time.Second

// reportFD is the keeper's fd 3: it writes "ok PID" once the process
// runs, or "error WHY", then closes it.
const reportFD = 3

// hooked is set once Main has run in this binary: it can act as a keeper.
var hooked atomic.Bool

// Main runs the keeper when args (os.Args) are a keeper's, and then
// returns its exit status and true; the caller exits with it. Otherwise
// it returns false at once, and from then on [Wrap] may run this binary as
// a keeper. main calls it first, before anything else (and so does
// TestMain in a test binary that starts kept processes).
func Main(args []string) (code int, ok bool) {
	if len(args) >= 2 && args[1] == arg {
		req, err := parseRequest(args[2:])
		if err != nil {
			return 2, true
		}
		return run(req), true
	}
	hooked.Store(true)
	return 0, false
}

// parseRequest reads the keeper's arguments after arg: a Request as JSON,
// then the binary and its argv.
func parseRequest(rest []string) (Request, error) {
	var req Request
	if len(rest) < 3 {
		return req, fmt.Errorf("want a request, a binary and its argv, have %d arguments", len(rest))
	}
	if err := json.Unmarshal([]byte(rest[0]), &req); err != nil {
		return req, fmt.Errorf("decode the request: %w", err)
	}
	req.Path, req.Args = rest[1], rest[2:]
	if req.Path == "" {
		return req, errors.New("the request names no binary")
	}
	if req.Confine != nil {
		if err := req.Confine.Validate(); err != nil {
			return req, fmt.Errorf("the request's profile: %w", err)
		}
	}
	return req, nil
}

// Kept is a command prepared to run under a keeper. It is what the host's
// launcher (pluginhost.StartSupervised) calls a Supervised.
type Kept struct {
	// Cmd is what to start in place of the command: the keeper, or the
	// command itself where no keeper runs.
	Cmd *exec.Cmd

	report, reportW *os.File // the keeper's report pipe; nil without a keeper
}

// Wrap prepares cmd — its Path, Args, Env and Dir; its other fields
// must be unset — to run under a keeper. Where no keeper can run (not
// Linux, Main not called, or cmd already failed: exec.Command found no
// such binary) Kept.Cmd is cmd itself, so that starting it fails or runs
// as it always did. After Kept.Cmd has started, call [Kept.Started]; if it
// failed to start, [Kept.Close].
func Wrap(cmd *exec.Cmd) (*Kept, error) { return wrap(cmd, Request{}) }

// ErrCannotConfine is WrapConfined's error where no keeper can run: the
// process would run unconfined.
var ErrCannotConfine = errors.New("plugins are confined only on Linux by harness's keeper, which cannot run here")

// CanConfine reports whether [WrapConfined] can run a process under a
// keeper here: Linux, in a binary whose main called [Main].
func CanConfine() bool { return supported && hooked.Load() }

// WrapConfined is [Wrap] with the process confined to profile (its
// Program set to cmd.Path), and a private temp folder when temp. Where no
// keeper can run it fails with ErrCannotConfine rather than run the
// process unconfined.
func WrapConfined(cmd *exec.Cmd, profile sandbox.Profile, temp bool) (*Kept, error) {
	if !supported || !hooked.Load() {
		return nil, ErrCannotConfine
	}
	profile.Program = cmd.Path
	if err := profile.Validate(); err != nil {
		return nil, fmt.Errorf("confine %s: %w", cmd.Path, err)
	}
	return wrap(cmd, Request{Confine: &profile, Temp: temp})
}

func wrap(cmd *exec.Cmd, rq Request) (*Kept, error) {
	if !supported || !hooked.Load() || cmd.Err != nil {
		return &Kept{Cmd: cmd}, nil
	}
	rq.HostPID, rq.Path, rq.Args = os.Getpid(), cmd.Path, cmd.Args
	req, err := json.Marshal(rq)
	if err != nil {
		return nil, fmt.Errorf("encode the keeper's request: %w", err)
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
		Args:       append([]string{name, arg, string(req), cmd.Path}, cmd.Args...),
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

// Command is Kept.Cmd: what to start.
func (k *Kept) Command() *exec.Cmd { return k.Cmd }

// Started waits until the keeper has started the process and returns the
// process's pid, or exec's error for it. Without a keeper it returns the
// started command's pid. It releases what Wrap made; call it once.
func (k *Kept) Started() (pid int, err error) {
	if k.report == nil {
		return k.Cmd.Process.Pid, nil
	}
	_ = k.reportW.Close() // only the keeper writes now: EOF when it ends
	defer k.report.Close()
	b, err := io.ReadAll(io.LimitReader(k.report, 4096))
	if err != nil {
		return 0, fmt.Errorf("read the keeper's report: %w", err)
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
		return 0, fmt.Errorf("the keeper ended before it started %s", k.Cmd.Args[0])
	}
	return 0, fmt.Errorf("the keeper said %q", line)
}

// Close releases what Wrap made, when Kept.Cmd failed to start.
func (k *Kept) Close() {
	if k.report != nil {
		_ = k.report.Close()
		_ = k.reportW.Close()
	}
}

// Stop asks the started keeper to SIGKILL the process and everything
// below it at once, and then to exit as the process did; it returns at
// once. It does nothing without a keeper, or once the keeper has been
// reaped (the signal goes through its os.Process, never to a pid reused
// since).
func (k *Kept) Stop() error {
	if k.report == nil || k.Cmd.Process == nil {
		return nil
	}
	if err := k.Cmd.Process.Signal(stopSignal); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop the keeper %d: %w", k.Cmd.Process.Pid, err)
	}
	return nil
}

// Stop asks the keeper whose pid is pid to SIGKILL the process and
// everything below it at once, and then to exit as the process did. It is
// for a keeper started without a [Kept] at hand; prefer [Kept.Stop].
func Stop(pid int) error { return stop(pid) }
