package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// envNoNamespace, set to a non-empty value in the plugin's environment,
// turns the PID namespace off: commands run under the subreaper fallback.
// Tests use it to cover both paths.
const envNoNamespace = "HARNESS_BASH_NO_NAMESPACE"

// sandbox starts every command under an init, a re-exec of the plugin's
// own binary (/proc/self/exe: the binary that runs, even if its file was
// replaced since) — see init_linux.go. It prefers a PID and mount
// namespace; where the kernel refuses one it falls back, once and for
// good, to an init that is a child subreaper, and says so on stderr (the
// host's log).
type sandbox struct {
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
}

func newSandbox(environ []string) *sandbox {
	s := &sandbox{uid: os.Getuid(), gid: os.Getgid()}
	s.ns.Store(true)
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, envNoNamespace+"="); ok && v != "" {
			s.ns.Store(false)
			s.warn(errors.New(envNoNamespace + " is set"))
		}
	}
	return s
}

// harden is for the plugin's process (not a test's): no other process of
// the user may read its memory or /proc/<pid>/environ (PR_SET_DUMPABLE 0),
// and it becomes a child subreaper, so that a command's process orphaned
// by a killed init comes back to it to be killed (sweep).
func (s *sandbox) harden() {
	if prctl(pr_SET_DUMPABLE, 0) == nil {
		s.hard.Store(true)
	}
	if prctl(pr_SET_CHILD_SUBREAPER, 1) == nil {
		s.sweeps.Store(true)
	}
}

// warn says once, on stderr, that commands run without a namespace.
func (s *sandbox) warn(why error) {
	s.warnOnce.Do(func() {
		fmt.Fprintf(os.Stderr, "bash: commands run without their own PID namespace (%v); "+
			"falling back to a subreaper init: processes still die with the command and the plugin, "+
			"but a command can see other processes and read the /proc/<pid>/environ of this user's processes "+
			"that do not protect it\n", why)
	})
}

// hold keeps sweep away while a command starts; call the result once
// its leader is in groups.
func (s *sandbox) hold() func() {
	s.spawning.RLock()
	return s.spawning.RUnlock
}

// errNoNamespace marks a namespace the kernel refused.
type errNoNamespace struct{ err error }

func (e errNoNamespace) Error() string { return "create the namespace: " + e.err.Error() }

// spawn starts c's init with stdout and stderr on out, in a namespace
// unless the kernel refused one.
func (s *sandbox) spawn(c command, out *os.File) (*leader, error) {
	for {
		ns := s.ns.Load()
		l, err := s.try(c, out, ns)
		var refused errNoNamespace
		if ns && errors.As(err, &refused) {
			s.ns.Store(false)
			s.warn(refused.err)
			continue
		}
		return l, err
	}
}

func (s *sandbox) try(c command, out *os.File, ns bool) (*leader, error) {
	mode := modeReaper
	// The init catches SIGHUP as its parent's death, kills everything
	// and exits.
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGHUP}
	if ns {
		mode = modeNS
		// The kernel kills every process of the namespace when its init
		// dies.
		attr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
		if s.uid != 0 {
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: s.uid, HostID: s.uid, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: s.gid, HostID: s.gid, Size: 1}}
			// The init keeps CAP_SYS_ADMIN of its user namespace across
			// exec, to mount; it clears it before starting bash.
			attr.AmbientCaps = []uintptr{capSysAdmin}
		}
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	defer func() { _ = sw.Close() }()
	cmd := exec.Command("/proc/self/exe", initArg, mode, strconv.Itoa(os.Getpid()), c.bash, c.line)
	cmd.Args[0] = "bash-init"
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout, cmd.Stderr = out, out // stdin nil: /dev/null
	cmd.ExtraFiles = []*os.File{sw}   // fd 3: statusFD
	cmd.SysProcAttr = attr
	if attr.Cloneflags&syscall.CLONE_NEWUSER != 0 && s.hard.Load() {
		// Dumpable only until the init runs: no process that could read
		// the plugin's environ meanwhile is in the namespace.
		s.dumpMu.Lock()
		_ = prctl(pr_SET_DUMPABLE, 1)
		defer func() {
			_ = prctl(pr_SET_DUMPABLE, 0)
			s.dumpMu.Unlock()
		}()
	}
	l, err := startLeader(cmd)
	_ = sw.Close()
	if err != nil {
		_ = sr.Close()
		if ns && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
			errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EACCES)) {
			return nil, errNoNamespace{err}
		}
		return nil, err
	}
	l.status, l.statusFile = bufio.NewReader(sr), sr
	first := readStatus(l.status)
	if first == "ok" {
		return l, nil
	}
	<-l.reaped
	_ = sr.Close()
	switch {
	case strings.HasPrefix(first, "nsfail "):
		return nil, errNoNamespace{errors.New(first[len("nsfail "):])}
	case strings.HasPrefix(first, "error "):
		return nil, errors.New(first[len("error "):])
	}
	return nil, fmt.Errorf("the command's init ended before bash started (%v)", l.state)
}

// sweep kills every descendant of the plugin that is not under a live
// command's init — processes orphaned when an init was SIGKILLed — and
// reaps them; with all (the plugin's exit), every descendant. Only in a
// hardened plugin: a test process has children of its own.
func (s *sandbox) sweep(g *groups, all bool) {
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
