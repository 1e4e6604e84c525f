package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/harness-dev/harness/sandbox"
)

// initArg is the hidden argument that makes the plugin's binary run as a
// command's init (argv: bash-init initArg mode ppid bash) instead of
// serving: main checks it before anything else.
const initArg = "--harness-bash-init-v2"

// The init's modes.
const (
	// modeNS: pid 1 of a fresh PID and mount namespace, with its own /proc.
	modeNS = "ns"
	// modeNSNet: modeNS in a network namespace of its own too (the
	// sandbox's network off): loopback only.
	modeNSNet = "ns+net"
	// modeReaper: no namespace; a child subreaper that kills every
	// descendant when bash ends, and everything when the plugin dies.
	modeReaper = "reaper"
)

// The status protocol: the init writes lines to fd 3 — "ready" once its
// namespace is set up (or "nsfail <why>" when it cannot be, or "error
// <why>"), then "ok" once bash runs (or "error <why>"), then "exit N" or
// "signal N" when bash ends.
const statusFD = 3

// The control pipe, fd 4: after "ready" the init reads its command from
// it — the sandbox policy's JSON (empty: none), a NUL, the working
// directory, a NUL, the command line — up to EOF. EOF
// with nothing read means the plugin no longer needs it: it exits 0.
// An init can so be started ahead of its command (proc_linux.go keeps one
// waiting), and a command does not wait for the init's own start.
const controlFD = 4

// isInit reports whether args are those of a command's init.
func isInit(args []string) bool { return len(args) == 5 && args[1] == initArg }

// runInit is a command's init: it sets up its namespace (modeNS) or
// becomes a subreaper (modeReaper), reads its command from the control
// pipe, starts `bash -c line` in its own session in the command's
// working directory, with the init's environment (already scrubbed), forwards
// SIGTERM, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2 (and SIGHUP while its parent
// lives) to every process of the command, reaps every orphan, reports how
// bash ended, then stops what is left: SIGTERM at once, SIGKILL killGrace
// later. It returns once nothing of the command is left.
func runInit(args []string) int {
	mode, bash := args[2], args[4]
	ppid, _ := strconv.Atoi(args[3])
	status := os.NewFile(statusFD, "status")
	syscall.CloseOnExec(statusFD)
	control := os.NewFile(controlFD, "control")
	syscall.CloseOnExec(controlFD)
	report := func(format string, a ...any) { _, _ = fmt.Fprintf(status, format+"\n", a...) }
	// Capabilities are a thread's: the ones dropped below are dropped on
	// the thread that then forks bash.
	runtime.LockOSThread()

	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP)
	k := killer{mode: mode}
	switch mode {
	case modeNS, modeNSNet:
		if err := setupNS(); err != nil {
			report("nsfail %v", err)
			return 1
		}
		if mode == modeNSNet {
			if err := sandbox.LoopbackUp(); err != nil {
				report("nsfail %v", err)
				return 1
			}
		}
	case modeReaper:
		if os.Getppid() != ppid { // the plugin died before we could notice
			return 1
		}
		if err := prctl(pr_SET_CHILD_SUBREAPER, 1); err != nil {
			report("error become a subreaper: %v", err)
			return 1
		}
	default:
		report("error unknown init mode %q", mode)
		return 1
	}
	report("ready")
	policy, dir, line, ok, err := readCommand(control)
	switch {
	case err != nil:
		report("error read the command: %v", err)
		return 1
	case !ok: // not needed after all
		return 0
	}
	env := os.Environ()
	if policy.Enabled() && policy.TempDir != "" {
		env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }), "TMPDIR="+policy.TempDir)
	}
	if policy.Proxy != "" {
		// The allow-list's only way out: 127.0.0.1:<port> here, forwarded
		// to the proxy's socket outside the namespace.
		if mode != modeNSNet {
			report("error a network allow-list needs the command's own network namespace")
			return 1
		}
		port, err := forwardProxy(policy.Proxy)
		if err != nil {
			report("error start the network proxy's forwarder: %v", err)
			return 1
		}
		env = proxyEnv(env, port)
	}
	if k.mode != modeReaper {
		// The sandbox's mounts need the namespace's CAP_SYS_ADMIN, which
		// goes right after.
		if err := sandbox.Mounts(policy); err != nil {
			report("error sandbox: %v", err)
			return 1
		}
		if err := dropCapabilities(); err != nil {
			report("error %v", err)
			return 1
		}
	}
	if err := os.Chdir(dir); err != nil {
		report("error %v", err)
		return 1
	}
	// This thread, which forks bash, and so bash and all it starts.
	if _, err := sandbox.Restrict(policy, sandbox.Namespaces{Mount: mode != modeReaper, Net: mode == modeNSNet}); err != nil {
		report("error sandbox: %v", err)
		return 1
	}
	bashPid, err := syscall.ForkExec(bash, []string{"bash", "-c", line}, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		report("error %v", err)
		return 1
	}
	report("ok")
	// The init lets go of the command's output: the pipe's reader sees EOF
	// once bash and what it left close it, without waiting for the init's
	// end (in a namespace, the kernel's teardown of it takes milliseconds).
	// The init writes nothing there; a crash of its own goes nowhere.
	releaseOutput()

	type reaped struct {
		pid  int
		ws   syscall.WaitStatus
		none bool
	}
	events := make(chan reaped, 16)
	go func() {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case err != nil:
				events <- reaped{none: true}
				return
			}
			events <- reaped{pid: pid, ws: ws}
		}
	}()
	var grace <-chan time.Time
	for {
		select {
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if sig == syscall.SIGHUP && mode == modeReaper && os.Getppid() != ppid {
				// The plugin died (Pdeathsig): nothing of the command may
				// outlive it.
				k.killAll(syscall.SIGKILL)
				grace = time.After(0)
				continue
			}
			k.killAll(sig)
		case ev := <-events:
			if ev.none {
				return 0
			}
			if ev.pid == bashPid {
				if ev.ws.Signaled() {
					report("signal %d", int(ev.ws.Signal()))
				} else {
					report("exit %d", ev.ws.ExitStatus())
				}
				_ = status.Close()
				k.killAll(syscall.SIGTERM)
				grace = time.After(killGrace)
			}
		case <-grace:
			k.killAll(syscall.SIGKILL)
			grace = time.After(pollEvery) // until the reaper finds none
		}
	}
}

// uncovering are the capabilities that would let a command see past its
// namespace: unmount its /proc or mount another, enter other namespaces
// (SYS_ADMIN), read memory through /dev/mem or /proc/kcore (SYS_RAWIO),
// load a module (SYS_MODULE), read other processes' memory from BPF or
// perf (BPF, PERFMON).
var uncovering = []uintptr{capSysAdmin, capSysRawIO, capSysModule, capPerfmon, capBPF}

// dropCapabilities leaves bash, on the calling thread, no capability that
// could uncover what its namespace hides. As a user other than root bash
// gets none at all: the ambient and inheritable sets that let the init
// mount go. As root (no user namespace) bash keeps root's other
// capabilities (installing packages, chown) but the uncovering ones leave
// its bounding set, so no exec can give them back; a user namespace it
// makes itself gets only locked copies of these mounts.
func dropCapabilities() error {
	if err := prctl(pr_CAP_AMBIENT, pr_CAP_AMBIENT_CLEAR_ALL); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	if err := clearInheritable(); err != nil {
		return fmt.Errorf("clear the inheritable capabilities: %w", err)
	}
	if os.Getuid() != 0 {
		return nil
	}
	for _, c := range uncovering {
		// EINVAL: a kernel older than the capability (BPF, PERFMON: 5.8).
		if err := prctl(pr_CAPBSET_DROP, c); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// clearInheritable empties the calling thread's inheritable capabilities
// (capget, capset: the syscall package has no wrapper).
func clearInheritable() error {
	hdr := struct {
		version uint32
		pid     int32
	}{version: linuxCapabilityVersion3}
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	if data[0].inheritable == 0 && data[1].inheritable == 0 {
		return nil
	}
	data[0].inheritable, data[1].inheritable = 0, 0
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	return nil
}

// releaseOutput points the init's stdout and stderr at /dev/null.
func releaseOutput() {
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	_ = syscall.Dup3(null, 1, 0)
	_ = syscall.Dup3(null, 2, 0)
	_ = syscall.Close(null)
}

// readCommand reads the command from the control pipe: the sandbox
// policy (Mode off when its JSON is empty), the working directory and the
// line; ok is false at EOF with nothing read.
func readCommand(control *os.File) (p sandbox.Policy, dir, line string, ok bool, err error) {
	b, err := io.ReadAll(control)
	_ = control.Close()
	if err != nil || len(b) == 0 {
		return p, "", "", false, err
	}
	return parseCommand(b)
}

// parseCommand splits a control message.
func parseCommand(b []byte) (p sandbox.Policy, dir, line string, ok bool, err error) {
	pj, rest, ok1 := strings.Cut(string(b), "\x00")
	dir, line, ok2 := strings.Cut(rest, "\x00")
	if !ok1 || !ok2 {
		return p, "", "", false, errors.New("no working directory")
	}
	p = sandbox.Policy{Mode: sandbox.Off, Network: sandbox.NetworkOn}
	if pj != "" {
		if p, err = sandbox.Decode([]byte(pj)); err != nil {
			return p, "", "", false, err
		}
	}
	return p, dir, line, true, nil
}

// setupNS makes the mount namespace's mounts private, so nothing mounted
// here propagates back, and mounts a proc of the new PID namespace on
// /proc.
func setupNS() error {
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// killer signals every process of a command but its init.
type killer struct{ mode string }

// killAll sends sig to every process of the command: in a namespace,
// kill(-1) reaches every process in it but the init; as a subreaper, every
// descendant (they cannot leave the subtree: orphans come back to us).
func (k killer) killAll(sig syscall.Signal) {
	if k.mode != modeReaper {
		_ = syscall.Kill(-1, sig)
		return
	}
	for _, pid := range descendants(os.Getpid(), nil) {
		_ = syscall.Kill(pid, sig)
	}
}

// procStat is one process of /proc.
type procStat struct {
	pid, ppid, pgrp int
	zombie          bool
}

// processes lists the processes /proc shows; zombies only when asked.
func processes(zombies bool) []procStat {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procStat
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid, pgrp int
		if _, err := fmt.Sscan(s[i+1:], &state, &ppid, &pgrp); err != nil || state == "Z" && !zombies {
			continue
		}
		pid, _ := strconv.Atoi(name)
		out = append(out, procStat{pid: pid, ppid: ppid, pgrp: pgrp, zombie: state == "Z"})
	}
	return out
}

// descendants lists the live processes below root, except the subtrees of
// the children in spare.
func descendants(root int, spare map[int]bool) []int {
	children := map[int][]int{}
	for _, p := range processes(false) {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if pid == root && spare[c] {
				continue
			}
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// prctl options the package uses.
const (
	pr_SET_DUMPABLE          = 4
	pr_SET_CHILD_SUBREAPER   = 36
	pr_CAPBSET_DROP          = 24
	pr_CAP_AMBIENT           = 47
	pr_CAP_AMBIENT_CLEAR_ALL = 4

	linuxCapabilityVersion3 = 0x20080522

	capSysModule = 16
	capSysRawIO  = 17
	capNetAdmin  = 12
	capSysAdmin  = 21
	capPerfmon   = 38
	capBPF       = 39
)

func prctl(option, arg uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, option, arg, 0); e != 0 {
		return e
	}
	return nil
}

// forwardProxy listens on 127.0.0.1 in the command's network namespace
// and forwards every connection to the proxy's Unix socket sock, from
// goroutines of the init (never the thread that forks bash: its
// Landlock and seccomp bind only it). It returns the port.
func forwardProxy(sock string) (int, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
					time.Sleep(pollEvery)
					continue
				}
				return
			}
			go func() {
				u, err := net.Dial("unix", sock)
				if err != nil {
					_ = c.Close()
					return
				}
				splice(c, u)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// splice copies both ways until both are done, half-closing each side
// as the other ends, then closes both.
func splice(a, b net.Conn) {
	done := make(chan struct{})
	half := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		done <- struct{}{}
	}
	go half(a, b)
	go half(b, a)
	<-done
	<-done
	_, _ = a.Close(), b.Close()
}

// proxyVars are the variables that name a proxy: the command's own are
// replaced by the allow-list's.
var proxyVars = []string{"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"}

// proxyEnv is env with every proxy variable, in both cases, naming the
// forwarder on 127.0.0.1:port (NO_PROXY: the namespace's own loopback).
func proxyEnv(env []string, port int) []string {
	env = slices.DeleteFunc(env, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(proxyVars, strings.ToLower(name))
	})
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for _, v := range []string{"http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, v+"="+url, strings.ToUpper(v)+"="+url)
	}
	return append(env, "no_proxy=localhost,127.0.0.1,::1", "NO_PROXY=localhost,127.0.0.1,::1")
}
