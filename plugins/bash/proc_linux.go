package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/harness-dev/harness/sandbox"
)

// envNoNamespace, set to a non-empty value in the plugin's environment,
// turns the PID namespace off: commands run under the subreaper fallback.
// Tests use it to cover both paths.
const envNoNamespace = "HARNESS_BASH_NO_NAMESPACE"

// launcher starts every command under an init, a re-exec of the plugin's
// own binary (/proc/self/exe: the binary that runs, even if its file was
// replaced since) — see init_linux.go. It prefers a PID and mount
// namespace; where the kernel refuses one it falls back, once and for
// good, to an init that is a child subreaper, and says so on stderr (the
// host's log).
type launcher struct {
	ns       atomic.Bool // namespaces are in use
	uid, gid int
	warnOnce sync.Once

	// spawning is held (shared) from a command's start until its leader
	// is in groups, and exclusively by sweep: sweep never mistakes a
	// command starting for an orphan.
	spawning sync.RWMutex
	// sweeps is set by harden: the plugin is a subreaper whose only
	// children are commands' inits, so that any other descendant is an
	// orphan to kill.
	sweeps atomic.Bool
	// dumpMu serializes the starts that need the plugin dumpable: Go
	// writes a new user namespace's uid_map into /proc/<child>, which a
	// non-dumpable parent's child does not let a non-root user open.
	dumpMu sync.Mutex
	hard   atomic.Bool // harden set PR_SET_DUMPABLE 0

	// warmMu guards the init waiting for the next command in a
	// namespace (warm), the start of one (filling, closed when it ends)
	// and closed (the plugin exits: no more).
	warmMu  sync.Mutex
	warm    *waitingInit
	filling chan struct{}
	closed  bool

	// cgroups: commands are sandboxed, each init gets a pids cgroup.
	// cgOnce finds cgParent, where they are made ("": none); cgSeq
	// numbers them.
	cgroups bool
	// proxies serve the network allow-list; nil without one.
	proxies  *proxies
	cgOnce   sync.Once
	cgParent string
	cgSeq    atomic.Int64

	// phDir is the private folder recording the placeholders made for
	// commands in a namespace (ph, made once: see placeholderTable).
	phDir  string
	phOnce sync.Once
	ph     *sandbox.Placeholders
}

// keepPlaceholders records the placeholders of missing protected names
// in dir, the plugin's private folder.
func (s *launcher) keepPlaceholders(dir string) { s.phDir = dir }

// awaitPlaceholders waits, at the plugin's exit once every command is
// killed, up to d for their inits to be reaped and their placeholders
// removed (what is left is swept by the next plugin's first command).
func (s *launcher) awaitPlaceholders(d time.Duration) {
	s.phOnce.Do(func() {}) // none made: none to wait for
	if s.ph == nil {
		return
	}
	for deadline := time.Now().Add(d); len(s.ph.Live()) > 0 && time.Now().Before(deadline); {
		time.Sleep(pollEvery)
	}
}

// placeholderTable is the launcher's table of placeholders, recorded in
// phDir when that is a private folder of this user (else not recorded).
func (s *launcher) placeholderTable() *sandbox.Placeholders {
	s.phOnce.Do(func() {
		dir := s.phDir
		if dir != "" && ensurePrivate(dir) != nil {
			dir = ""
		}
		s.ph = sandbox.NewPlaceholders(dir)
	})
	return s.ph
}

func newLauncher(environ []string) *launcher {
	s := &launcher{uid: os.Getuid(), gid: os.Getgid()}
	s.ns.Store(true)
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, envNoNamespace+"="); ok && v != "" {
			s.ns.Store(false)
			s.warn(errors.New(envNoNamespace + " is set"))
		}
	}
	return s
}

// sandboxed says whether commands run sandboxed: then each init gets a
// pids cgroup.
func (s *launcher) sandboxed(on bool) { s.cgroups = on }

// serveNetwork has the commands of an allow-list reach it through x
// (nil: no allow-list).
func (s *launcher) serveNetwork(x *proxies) { s.proxies = x }

// harden is for the plugin's process (not a test's): no other process of
// the user may read its memory or /proc/<pid>/environ (PR_SET_DUMPABLE 0),
// and it becomes a child subreaper, so that a command's process orphaned
// by a killed init comes back to it to be killed (sweep).
func (s *launcher) harden() {
	if prctl(pr_SET_DUMPABLE, 0) == nil {
		s.hard.Store(true)
	}
	if prctl(pr_SET_CHILD_SUBREAPER, 1) == nil {
		s.sweeps.Store(true)
	}
}

// warn says once, on stderr, that commands run without a namespace.
func (s *launcher) warn(why error) {
	s.warnOnce.Do(func() {
		fmt.Fprintf(os.Stderr, "bash: commands run without their own PID namespace (%v); "+
			"falling back to a subreaper init: processes still die with the command and the plugin, "+
			"but a command can see other processes and read the /proc/<pid>/environ of this user's processes "+
			"that do not protect it; its sandbox keeps Landlock's and seccomp's refusals (writes outside the roots, "+
			"the network) but neither the read-only protected paths inside the roots nor the hidden credential stores\n", why)
	})
}

// hold keeps sweep away while a command starts; call the result once
// its leader is in groups.
func (s *launcher) hold() func() {
	s.spawning.RLock()
	return s.spawning.RUnlock
}

// errNoNamespace marks a namespace the kernel refused.
type errNoNamespace struct{ err error }

func (e errNoNamespace) Error() string { return "create the namespace: " + e.err.Error() }

// spawn starts c under an init, in a namespace unless the kernel refused
// one, and returns the init and the read end of the command's output
// (stdout and stderr). In a namespace it takes the init waiting for a
// command when there is one (see waitingInit), and has the next one
// started.
func (s *launcher) spawn(c command) (*leader, *os.File, error) {
	for {
		ns := s.ns.Load()
		var w *waitingInit
		if ns {
			w = s.take(c)
		}
		var err error
		if w == nil {
			w, err = s.startInit(c.bash, c.env, ns, ns && netOff(c.policy))
		}
		var l *leader
		var out *os.File
		var cp *cmdProxy
		if err == nil && w.net && c.policy.Network.IsAllowList() && s.proxies != nil {
			if cp, err = s.proxies.open(); err == nil {
				c.policy.Proxy = cp.path
			} else {
				w.discard()
			}
		}
		var covered []string
		release := func() {}
		if err == nil && ns && c.policy.Enabled() {
			// Made before the init mounts (on its command), so bound
			// read-only; given back once it is reaped.
			covered, release = s.placeholderTable().Make(c.policy)
			w.l.placeholders = covered
			w.l.whenReaped(release)
		}
		if err == nil {
			l, out, err = w.run(c)
		}
		if err != nil {
			release()
		}
		if cp != nil {
			if err != nil {
				cp.close()
				c.policy.Proxy = "" // a retry in the fallback has none
			} else {
				l.proxy = cp
				go func() {
					<-l.reaped
					cp.close()
				}()
			}
		}
		var refused errNoNamespace
		if ns && errors.As(err, &refused) {
			s.ns.Store(false)
			s.warn(refused.err)
			continue
		}
		if ns && err == nil {
			s.refill(c.bash, c.env, netOff(c.policy))
		}
		return l, out, err
	}
}

// waitingInit is an init that has set up its namespace ("ready") and
// waits for its command on its control pipe. Its output pipe is made
// before it starts, so its read end travels with it.
type waitingInit struct {
	l       *leader
	out     *os.File // the read end of its stdout and stderr
	control *os.File // the write end of its control pipe
	bash    string
	env     []string
	net     bool                // in a network namespace of its own
	cg      *sandbox.PidsCgroup // its pids cgroup; nil: none
	cgReady chan struct{}       // closed once cg is set
}

// netOff reports whether a command of policy p runs in a network
// namespace of its own (when namespaces are in use): the network off, or
// an allow-list whose proxy is the only way out.
func netOff(p sandbox.Policy) bool { return p.Enabled() && p.Network != sandbox.NetworkOn }

// run gives w its command and waits until bash runs. A sandboxed
// command's limit is set on the init's pids cgroup first.
func (w *waitingInit) run(c command) (*leader, *os.File, error) {
	var pj []byte
	if c.policy.Enabled() {
		var err error
		if pj, err = c.policy.Encode(); err != nil {
			w.discard()
			return nil, nil, fmt.Errorf("sandbox policy: %w", err)
		}
		<-w.cgReady
		if w.cg != nil {
			if err := w.cg.SetLimit(c.policy.Pids()); err != nil {
				w.discard()
				return nil, nil, err
			}
		}
	}
	msg := append(pj, 0)
	msg = append(msg, c.dir+"\x00"+c.line...)
	_, _ = w.control.Write(msg) // EPIPE: the init died, its status says how
	_ = w.control.Close()
	first := readStatus(w.l.status)
	if first == "ok" {
		return w.l, w.out, nil
	}
	return nil, nil, w.failed(first)
}

// removeCgroup removes an init's pids cgroup once its last process is
// gone (its processes die with the init, but the kernel may take a
// moment to free them), trying for up to 10 s.
func removeCgroup(cg *sandbox.PidsCgroup) {
	for range 100 {
		if cg.Remove() == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// joinCgroup puts the init pid, just started, in a pids cgroup of its own
// (no limit until its command's policy sets one), removed once it is
// reaped; nil when commands are not sandboxed or no writable pids cgroup
// was found (then RLIMIT_NPROC is the limit). Moving a process into a
// cgroup v1 takes milliseconds (an RCU grace period): the init waiting
// for the next command pays it before it is needed.
func (s *launcher) joinCgroup(pid int, reaped <-chan struct{}) *sandbox.PidsCgroup {
	if !s.cgroups {
		return nil
	}
	s.cgOnce.Do(func() {
		if sandbox.LandlockABI() == 0 {
			fmt.Fprintf(os.Stderr, "bash: this kernel has no Landlock: the sandbox cannot refuse commands' writes outside their roots\n")
		}
		parent, err := sandbox.PidsCgroupParent()
		if err != nil {
			why := "RLIMIT_NPROC"
			if s.uid == 0 {
				why = "none: RLIMIT_NPROC does not bind root"
			}
			fmt.Fprintf(os.Stderr, "bash: no pids cgroup for commands (%v); their pids limit is %s\n", err, why)
			return
		}
		s.cgParent = parent
	})
	if s.cgParent == "" {
		return nil
	}
	// Unique across the plugins of one process (tests serve several).
	name := fmt.Sprintf("harness-bash-%d-%p-%d", os.Getpid(), s, s.cgSeq.Add(1))
	cg, err := sandbox.NewPidsCgroup(s.cgParent, name)
	if err != nil {
		return nil
	}
	if err := cg.Add(pid); err != nil {
		_ = cg.Remove()
		return nil
	}
	go func() {
		<-reaped
		removeCgroup(cg)
	}()
	return cg
}

// failed closes what w holds once it ended and turns the status line it
// ended on into an error.
func (w *waitingInit) failed(line string) error {
	<-w.l.reaped
	_ = w.l.statusFile.Close()
	_ = w.out.Close()
	switch {
	case strings.HasPrefix(line, "nsfail "):
		return errNoNamespace{errors.New(line[len("nsfail "):])}
	case strings.HasPrefix(line, "error "):
		return errors.New(line[len("error "):])
	}
	return fmt.Errorf("the command's init ended before bash started (%v)", w.l.state)
}

// discard ends an init no command will use: EOF on its control pipe ends
// it, SIGKILL in case it is not yet reading.
func (w *waitingInit) discard() {
	_ = w.control.Close()
	_ = syscall.Kill(w.l.pid, syscall.SIGKILL)
	go func() { _ = w.failed("") }()
}

// take returns the waiting init for c, waiting for the one being started
// if there is one (it is nearer than a new start), or nil.
func (s *launcher) take(c command) *waitingInit {
	s.warmMu.Lock()
	if s.warm == nil && s.filling != nil {
		filled := s.filling
		s.warmMu.Unlock()
		<-filled
		s.warmMu.Lock()
	}
	w := s.warm
	s.warm = nil
	s.warmMu.Unlock()
	if w != nil && (w.bash != c.bash || !slices.Equal(w.env, c.env) || w.net != netOff(c.policy)) {
		w.discard()
		return nil
	}
	return w
}

// refill starts, in the background, the init the next command in a
// namespace will take, unless one waits or is starting, or the plugin
// is exiting.
func (s *launcher) refill(bash string, env []string, net bool) {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	if s.closed || s.warm != nil || s.filling != nil {
		return
	}
	filled := make(chan struct{})
	s.filling = filled
	go func() {
		// On an error the next command starts its own init and meets it.
		w, err := s.startInit(bash, env, true, net)
		s.warmMu.Lock()
		keep := err == nil && !s.closed && s.ns.Load()
		if keep {
			s.warm = w
		}
		s.filling = nil
		s.warmMu.Unlock()
		close(filled)
		if err == nil && !keep {
			w.discard()
		}
	}()
}

// close ends the waiting init and starts no other: the plugin exits.
func (s *launcher) close() {
	s.warmMu.Lock()
	s.closed = true
	w := s.warm
	s.warm = nil
	s.warmMu.Unlock()
	if w != nil {
		w.discard()
	}
}

// startInit starts an init (in a namespace when ns; a network namespace
// too when net) and waits until it is ready for its command.
func (s *launcher) startInit(bash string, env []string, ns, net bool) (*waitingInit, error) {
	mode := modeReaper
	// The init catches SIGHUP as its parent's death, kills everything
	// and exits.
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGHUP}
	if ns {
		mode = modeNS
		// The kernel kills every process of the namespace when its init
		// dies.
		attr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
		if net {
			mode = modeNSNet
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		if s.uid != 0 {
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: s.uid, HostID: s.uid, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: s.gid, HostID: s.gid, Size: 1}}
			// The init keeps CAP_SYS_ADMIN of its user namespace across
			// exec, to mount; it clears it before starting bash.
			attr.AmbientCaps = []uintptr{capSysAdmin}
			if net {
				attr.AmbientCaps = append(attr.AmbientCaps, capNetAdmin) // to bring lo up
			}
		}
	}
	pipes, err := newPipes(3)
	if err != nil {
		return nil, err
	}
	out, status, control := pipes[0], pipes[1], pipes[2]
	cmd := exec.Command("/proc/self/exe", initArg, mode, strconv.Itoa(os.Getpid()), bash)
	cmd.Args[0] = "bash-init"
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out.w, out.w            // stdin nil: /dev/null
	cmd.ExtraFiles = []*os.File{status.w, control.r} // fd 3: statusFD, fd 4: controlFD
	cmd.SysProcAttr = attr
	l, err := s.startLocked(cmd, attr)
	for _, f := range []*os.File{out.w, status.w, control.r} { // the init has its copies
		_ = f.Close()
	}
	if err != nil {
		for _, f := range []*os.File{out.r, status.r, control.w} {
			_ = f.Close()
		}
		if ns && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
			errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EACCES)) {
			return nil, errNoNamespace{err}
		}
		return nil, err
	}
	l.status, l.statusFile = bufio.NewReader(status.r), status.r
	w := &waitingInit{l: l, out: out.r, control: control.w, bash: bash, env: env, net: net}
	// The move into the cgroup overlaps the init's start; its command
	// waits for it (run).
	w.cgReady = make(chan struct{})
	go func() {
		w.cg = s.joinCgroup(l.pid, l.reaped)
		close(w.cgReady)
	}()
	if first := readStatus(l.status); first != "ready" {
		_ = w.control.Close()
		return nil, w.failed(first)
	}
	return w, nil
}

// startLocked starts cmd, with the plugin dumpable for the instant it
// takes when a user namespace's uid_map must be written: Go writes it
// into /proc/<child>, which a non-dumpable parent's child does not let a
// non-root user open. No process that could read the plugin's environ
// meanwhile is in the namespace.
func (s *launcher) startLocked(cmd *exec.Cmd, attr *syscall.SysProcAttr) (*leader, error) {
	if attr.Cloneflags&syscall.CLONE_NEWUSER != 0 && s.hard.Load() {
		s.dumpMu.Lock()
		_ = prctl(pr_SET_DUMPABLE, 1)
		defer func() {
			_ = prctl(pr_SET_DUMPABLE, 0)
			s.dumpMu.Unlock()
		}()
	}
	return startLeader(cmd)
}

// pipe is the two ends of an os.Pipe.
type pipe struct{ r, w *os.File }

// newPipes makes n pipes, or none.
func newPipes(n int) ([]pipe, error) {
	ps := make([]pipe, 0, n)
	for range n {
		r, w, err := os.Pipe()
		if err != nil {
			for _, p := range ps {
				_, _ = p.r.Close(), p.w.Close()
			}
			return nil, fmt.Errorf("create pipe: %w", err)
		}
		ps = append(ps, pipe{r, w})
	}
	return ps, nil
}

// sweep kills every descendant of the plugin that is not under a live
// command's init — processes orphaned when an init was SIGKILLed — and
// reaps them; with all (the plugin's exit), every descendant. Only in a
// hardened plugin: a test process has children of its own.
func (s *launcher) sweep(g *groups, all bool) {
	if !s.sweeps.Load() || !all && s.ns.Load() { // nothing comes back from a namespace
		return
	}
	s.spawning.Lock()
	defer s.spawning.Unlock()
	leaders := g.snapshot()
	spare := leaders
	if all {
		spare = nil
	}
	self := os.Getpid()
	for range 20 {
		pids := descendants(self, spare)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, p := range processes(true) {
			if p.ppid == self && p.zombie && !leaders[p.pid] {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
			}
		}
		if len(pids) == 0 {
			return
		}
	}
}

// groupAlive reports whether a live process is left in the group pgid.
// Zombies do not count: reaping orphans is init's job, and a slow init
// would otherwise keep a dead group "alive".
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	for _, p := range processes(false) {
		if p.pgrp == pgid {
			return true
		}
	}
	return false
}
