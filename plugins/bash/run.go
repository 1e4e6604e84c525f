//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/harness-dev/harness/sandbox"
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
	// policy is the sandbox it runs in (Linux; Mode off: none).
	policy sandbox.Policy
}

// proc is one running command. On Linux its leader is an init (a re-exec
// of the plugin, init_linux.go) that runs `bash -c` in a PID namespace or
// as a subreaper, forwards signals to the whole command, reports how bash
// ended over a status pipe, and stops what bash left; elsewhere the leader
// is bash itself. The leader leads its own session and process group
// (Setsid), so the group id is its pid and no terminal controls it; stdin
// is /dev/null; stdout and stderr are one pipe, so their lines keep their
// order. A goroutine reads the pipe into the output; another learns how
// bash ended. Output is read from the pipe directly, never through
// exec.Cmd's copying, which would wait for EOF however long a grandchild
// holds it.
type proc struct {
	pgid     int
	pipe     *os.File // the read end
	leader   *leader
	exited   chan struct{}
	state    *exitState // set before exited is closed
	readDone chan struct{}
	groups   *groups
	sb       *launcher
}

// leader is the process the plugin started for a command.
type leader struct {
	pid        int
	status     *bufio.Reader // the init's status lines; nil without an init
	statusFile *os.File
	reaped     chan struct{}
	state      *os.ProcessState // set before reaped is closed
	proxy      *cmdProxy        // the command's network proxy socket; nil: none

	// placeholders are the protected names made for the command (read-only
	// in its namespace), given back by onReaped before reaped is closed.
	placeholders []string
	hookMu       sync.Mutex
	onReaped     func()
	wasReaped    bool
}

// whenReaped has f run once the leader is reaped, before reaped is
// closed (at once if it was already).
func (l *leader) whenReaped(f func()) {
	l.hookMu.Lock()
	if !l.wasReaped {
		l.onReaped = f
		l.hookMu.Unlock()
		return
	}
	l.hookMu.Unlock()
	f()
}

// settle waits, for a command that had placeholders, until its init is
// reaped — its namespace gone, the placeholders removed — for at most
// killGrace and a second (what the init takes to stop leftovers).
func (p *proc) settle() {
	if len(p.leader.placeholders) == 0 {
		return
	}
	t := time.NewTimer(killGrace + time.Second)
	defer t.Stop()
	select {
	case <-p.leader.reaped:
	case <-t.C:
	}
}

// startLeader starts cmd from a goroutine locked to its OS thread, which
// it keeps until the leader is reaped: Pdeathsig fires when the starting
// thread ends, not the plugin. The goroutine blocks in wait anyway.
func startLeader(cmd *exec.Cmd) (*leader, error) {
	l := &leader{reaped: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		l.pid = cmd.Process.Pid
		started <- nil
		_ = cmd.Wait() // the status is in ProcessState
		l.state = cmd.ProcessState
		l.hookMu.Lock()
		l.wasReaped = true
		f := l.onReaped
		l.hookMu.Unlock()
		if f != nil {
			f()
		}
		close(l.reaped)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return l, nil
}

// exitState is how bash ended: killed by sig, or exited with code.
type exitState struct {
	code int
	sig  syscall.Signal
}

// stateOf is how a process the plugin reaped ended.
func stateOf(ps *os.ProcessState) *exitState {
	if ps == nil { // reaped by someone else: only a sweep at exit does
		return &exitState{sig: syscall.SIGKILL}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &exitState{sig: ws.Signal()}
	}
	return &exitState{code: ps.ExitCode()}
}

// parseStatus reads an init's "exit N" or "signal N".
func parseStatus(line string) (*exitState, bool) {
	what, num, _ := strings.Cut(line, " ")
	n, err := strconv.Atoi(num)
	switch {
	case err != nil:
		return nil, false
	case what == "exit":
		return &exitState{code: n}, true
	case what == "signal":
		return &exitState{sig: syscall.Signal(n)}, true
	}
	return nil, false
}

// start spawns c, writing its output to out.
func start(c command, out *output, g *groups, sb *launcher) (*proc, error) {
	release := sb.hold()
	l, r, err := sb.spawn(c)
	if err != nil {
		release()
		return nil, err
	}
	p := &proc{pgid: l.pid, pipe: r, leader: l, exited: make(chan struct{}), readDone: make(chan struct{}), groups: g, sb: sb}
	added := g.add(p.pgid)
	release()
	go p.watch()
	if !added {
		_ = signalGroup(p.pgid, syscall.SIGKILL)
		<-l.reaped
		_ = r.Close()
		return nil, errors.New("the plugin is shutting down")
	}
	go p.read(out)
	return p, nil
}

// watch learns how bash ended — from the init's status line, else from
// the leader's own end — and closes exited.
func (p *proc) watch() {
	if p.leader.status != nil {
		line := readStatus(p.leader.status)
		_ = p.leader.statusFile.Close()
		if st, ok := parseStatus(line); ok {
			p.state = st
			close(p.exited)
			return
		}
	}
	<-p.leader.reaped
	p.state = stateOf(p.leader.state)
	close(p.exited)
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

// stop ends the command: SIGTERM (which an init forwards to every process
// of the command), then SIGKILL if anything of it is still alive after
// killGrace (an init's death takes its namespace or its subreaper's
// orphans with it). It returns once bash's end is known, or drainTimeout
// after the SIGKILL.
func (p *proc) stop() {
	if signalGroup(p.pgid, syscall.SIGTERM) == nil && p.gone(killGrace) {
		return
	}
	_ = signalGroup(p.pgid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(drainTimeout):
	}
	if p.leader.status != nil {
		go func() {
			<-p.leader.reaped
			p.sb.sweep(p.groups, false)
		}()
	}
}

// gone waits up to d for bash to end and nothing of the command to be
// left: for an init, its own end.
func (p *proc) gone(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	select {
	case <-p.exited:
	case <-deadline.C:
		return false
	}
	if p.leader.status != nil {
		select {
		case <-p.leader.reaped:
			return true
		case <-deadline.C:
			return false
		}
	}
	for groupAlive(p.pgid) {
		select {
		case <-deadline.C:
			return false
		case <-time.After(pollEvery):
		}
	}
	return true
}

// finish ends a command once bash exited or was stopped. What bash left
// running gets SIGTERM, and SIGKILL killGrace later, in the background:
// the result does not wait for it (an init does this itself; without
// one, the plugin does it to bash's group). The pipe is read until EOF,
// for at most drainTimeout more.
func (p *proc) finish() {
	switch {
	case p.leader.status != nil:
		go p.awaitInit()
	case signalGroup(p.pgid, syscall.SIGTERM) == nil:
		go p.killLeftovers()
	default:
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

// awaitInit waits for the init to end after bash — it stops the
// leftovers within killGrace — and SIGKILLs it if it does not, then
// sweeps whatever it may have orphaned.
func (p *proc) awaitInit() {
	select {
	case <-p.leader.reaped:
	case <-time.After(killGrace + time.Second):
		_ = signalGroup(p.pgid, syscall.SIGKILL)
		<-p.leader.reaped
	}
	p.groups.remove(p.pgid)
	p.sb.sweep(p.groups, false)
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

// exitState is how bash ended; nil while that is not known.
func (p *proc) exitState() *exitState {
	select {
	case <-p.exited:
		return p.state
	default:
		return nil
	}
}

// exitMarker describes how bash ended: "" for exit code 0, else
// "[exit code: N]" or "[killed by signal: NAME]".
func exitMarker(st *exitState) string {
	switch {
	case st == nil:
		return "[still running after SIGKILL]"
	case st.sig != 0:
		return "[killed by signal: " + signalName(st.sig) + "]"
	case st.code != 0:
		return "[exit code: " + strconv.Itoa(st.code) + "]"
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

// snapshot is the set of the groups' leaders.
func (g *groups) snapshot() map[int]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[int]bool, len(g.live))
	for pgid := range g.live {
		out[pgid] = true
	}
	return out
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

// readStatus reads one line of the status protocol; "" at EOF.
func readStatus(r *bufio.Reader) string {
	line, err := r.ReadString('\n')
	if err != nil {
		return ""
	}
	return line[:len(line)-1]
}
