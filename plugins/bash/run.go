//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// How a command's process group is ended.
const (
	// killGrace is the time between SIGTERM and SIGKILL.
	killGrace = 2 * time.Second
	// drainTimeout bounds the reading of the output pipe once the command
	// ended or was killed: a process outside the group (a daemon that
	// called setsid) may hold the pipe open for ever.
	drainTimeout = 500 * time.Millisecond
	// exitGrace is what the plugin's exit grants the process groups
	// between SIGTERM and SIGKILL.
	exitGrace = 300 * time.Millisecond
	// pollEvery is how often a dying group is checked.
	pollEvery = 20 * time.Millisecond
)

// command is what to run and how.
type command struct {
	bash string   // the path of bash
	line string   // the command line, for bash -c
	dir  string   // the working directory, which exists
	env  []string // the environment, already filtered
}

// proc is one running `bash -c`: it leads its own session and process
// group (Setsid), so the group id is its pid and no terminal controls it;
// stdin is /dev/null; stdout and stderr are one pipe, so their lines keep
// their order. A goroutine reads the pipe into the output; another waits
// for bash. Output is read from the pipe directly, never through exec.Cmd's
// copying, which would wait for EOF however long a grandchild holds it.
type proc struct {
	pgid     int
	pipe     *os.File // the read end
	exited   chan struct{}
	state    *os.ProcessState // set before exited is closed
	readDone chan struct{}
	groups   *groups
}

// start spawns c, writing its output to out.
func start(c command, out *output, g *groups) (*proc, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	cmd := exec.Command(c.bash, "-c", c.line)
	cmd.Args[0] = "bash" // its messages say "bash: …", not the path
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout, cmd.Stderr = w, w // stdin nil: /dev/null
	cmd.SysProcAttr = sysProcAttr()
	p := &proc{pipe: r, exited: make(chan struct{}), readDone: make(chan struct{}), groups: g}

	// Start from a goroutine locked to its OS thread and keep that thread
	// until bash is reaped: Pdeathsig fires when the starting thread ends,
	// not the plugin. The goroutine blocks in wait anyway.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pgid = cmd.Process.Pid
		started <- nil
		_ = cmd.Wait() // the status is in ProcessState
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	err = <-started
	_ = w.Close() // bash has its copy
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	if !g.add(p.pgid) {
		_ = signalGroup(p.pgid, syscall.SIGKILL)
		<-p.exited
		_ = r.Close()
		return nil, errors.New("the plugin is shutting down")
	}
	go p.read(out)
	return p, nil
}

// read copies the pipe into out until EOF or the read deadline that
// finish sets.
func (p *proc) read(out *output) {
	defer close(p.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, err := p.pipe.Read(buf)
		if n > 0 {
			_, _ = out.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// stop ends the process group: SIGTERM, then SIGKILL if bash or anything
// else of the group is still alive after killGrace. It returns once bash
// is reaped, or drainTimeout after the SIGKILL.
func (p *proc) stop() {
	if signalGroup(p.pgid, syscall.SIGTERM) == nil && p.gone(killGrace) {
		return
	}
	_ = signalGroup(p.pgid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(drainTimeout):
	}
}

// gone waits up to d for bash to be reaped and the group to be empty.
func (p *proc) gone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	select {
	case <-p.exited:
	case <-time.After(d):
		return false
	}
	for groupAlive(p.pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

// finish ends a command once bash exited or was stopped. What bash left
// running in its group (`cmd &`) gets SIGTERM, and SIGKILL killGrace
// later, in the background: the result does not wait for it. The pipe is
// read until EOF, for at most drainTimeout more.
func (p *proc) finish() {
	if signalGroup(p.pgid, syscall.SIGTERM) == nil {
		go p.killLeftovers()
	} else {
		p.groups.remove(p.pgid)
	}
	drain := time.NewTimer(drainTimeout)
	select {
	case <-p.readDone:
	case <-drain.C:
		_ = p.pipe.SetReadDeadline(time.Now())
		<-p.readDone
	}
	drain.Stop()
	_ = p.pipe.Close()
}

// killLeftovers SIGKILLs the group if it outlives killGrace after the
// SIGTERM of finish.
func (p *proc) killLeftovers() {
	defer p.groups.remove(p.pgid)
	deadline := time.Now().Add(killGrace)
	for groupAlive(p.pgid) {
		if time.Now().After(deadline) {
			_ = signalGroup(p.pgid, syscall.SIGKILL)
			return
		}
		time.Sleep(5 * pollEvery)
	}
}

// signalGroup sends sig to every process of the group pgid; ESRCH means
// none is left.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return syscall.ESRCH
	}
	return syscall.Kill(-pgid, sig)
}

// exitState is how bash ended; nil while it has not been reaped.
func (p *proc) exitState() *os.ProcessState {
	select {
	case <-p.exited:
		return p.state
	default:
		return nil
	}
}

// exitMarker describes how bash ended: "" for exit code 0, else
// "[exit code: N]" or "[killed by signal: NAME]".
func exitMarker(st *os.ProcessState) string {
	if st == nil {
		return "[still running after SIGKILL]"
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled():
		return "[killed by signal: " + signalName(ws.Signal()) + "]"
	case st.ExitCode() != 0:
		return "[exit code: " + strconv.Itoa(st.ExitCode()) + "]"
	}
	return ""
}

// signalName names a signal as kill -l does: SIGTERM, SIGKILL, ….
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	case syscall.SIGSYS:
		return "SIGSYS"
	}
	return "signal " + strconv.Itoa(int(s))
}

// groups is the set of process groups the plugin started that may still
// have processes, so that its exit can kill them all.
type groups struct {
	mu     sync.Mutex
	live   map[int]struct{}
	closed bool
}

func newGroups() *groups { return &groups{live: map[int]struct{}{}} }

// add records the group pgid; false once the plugin is exiting.
func (g *groups) add(pgid int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.live[pgid] = struct{}{}
	return true
}

func (g *groups) remove(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.live, pgid)
}

// killAll ends every group the plugin started, for its exit: SIGTERM,
// then SIGKILL after at most exitGrace. No group can be added afterwards.
func (g *groups) killAll() {
	g.mu.Lock()
	g.closed = true
	pgids := make([]int, 0, len(g.live))
	for pgid := range g.live {
		pgids = append(pgids, pgid)
	}
	g.mu.Unlock()
	for _, pgid := range pgids {
		_ = signalGroup(pgid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(exitGrace)
	for _, pgid := range pgids {
		for groupAlive(pgid) && time.Now().Before(deadline) {
			time.Sleep(pollEvery)
		}
		_ = signalGroup(pgid, syscall.SIGKILL)
	}
}
