package keeper

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/harness-dev/harness/sandbox"
)

// supported: Linux has child subreapers and parent-death signals.
const supported = true

// stopSignal asks a keeper to SIGKILL everything below it at once: the
// signal it gets when the host dies.
const stopSignal = syscall.SIGHUP

// hangupOnHostDeath has the kernel send the keeper SIGHUP when the host
// dies (pluginhost.StartProcess takes a SysProcAttr holding only this).
func hangupOnHostDeath() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGHUP}
}

// pollEvery is how often the keeper SIGKILLs again what is left while it
// waits for the last descendant to be gone (a process may fork while it
// is being killed).
const pollEvery = 20 * time.Millisecond

// prctl options (<linux/prctl.h>).
const (
	prSetPdeathsig      = 1
	prSetDumpable       = 4
	prSetChildSubreaper = 36
)

func prctl(option, arg uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, option, arg, 0); e != 0 {
		return e
	}
	return nil
}

// run is the keeper of req's process. See the package doc.
func run(req Request) int {
	path, argv := req.Path, req.Args
	report := os.NewFile(reportFD, "report")
	syscall.CloseOnExec(reportFD)
	fail := func(format string, a ...any) int {
		if report != nil {
			_, _ = fmt.Fprintf(report, "error "+format+"\n", a...)
		}
		return 1
	}
	// The kept process's Pdeathsig follows the thread that forks it, and raise
	// signals this thread: it is this goroutine's until the keeper exits.
	runtime.LockOSThread()
	// Its environment is the process's, secrets included.
	_ = prctl(prSetDumpable, 0)

	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := prctl(prSetChildSubreaper, 1); err != nil {
		return fail("keeper: become a child subreaper: %v", err)
	}
	// SIGHUP is the leader thread's parent-death signal already (Wrap);
	// this thread's too, so that no thread of the keeper has SIGKILL.
	if err := prctl(prSetPdeathsig, uintptr(syscall.SIGHUP)); err != nil {
		return fail("keeper: set the parent-death signal: %v", err)
	}
	if os.Getppid() != req.HostPID { // the host died before the signal was set
		return fail("keeper: the host is gone")
	}
	env := os.Environ()
	cleanup := func() {}
	if req.Confine != nil {
		// On this thread, which forks the process and then only keeps it:
		// the rest of the keeper (its other threads) stays as it was.
		p := *req.Confine
		if dir := os.Getenv("PLUGIN_UNIX_SOCKET_DIR"); filepath.IsAbs(dir) {
			p.Write = append(p.Write, filepath.Clean(dir))
		}
		if req.Temp {
			tmp, err := os.MkdirTemp("", "harness-plugin-")
			if err != nil {
				return fail("keeper: make the plugin's temp folder: %v", err)
			}
			// From another thread: this one may not remove it from its
			// parent once confined. Before exitAs, which may not return.
			cleanup = func() {
				done := make(chan struct{})
				go func() { _ = os.RemoveAll(tmp); close(done) }()
				<-done
			}
			defer cleanup()
			p.Write = append(p.Write, tmp)
			env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }), "TMPDIR="+tmp)
		}
		// Root only: a thread of this multithreaded process cannot make a
		// user namespace. Elsewhere the sockets stay reachable by path
		// (the README says so).
		if os.Getuid() == 0 {
			if err := sandbox.HideThread(p); err != nil {
				return fail("keeper: hide the sockets and credential stores from %s: %v", path, err)
			}
		}
		if _, err := sandbox.ConfineThread(p); err != nil {
			return fail("keeper: confine %s: %v", path, err)
		}
	}
	kept, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		// Its own process group: the host SIGKILLs that group to stop
		// it, and the keeper, outside it, then kills what it left.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail("fork/exec %s: %v", path, err) // exec.Cmd's words
	}
	_, _ = fmt.Fprintf(report, "ok %d\n", kept)
	_ = report.Close()
	releaseStdio()

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
			case err != nil: // ECHILD: nothing is left below the keeper
				events <- reaped{none: true}
				return
			}
			events <- reaped{pid: pid, ws: ws}
		}
	}()
	var (
		status  syscall.WaitStatus
		running = true
		grace   <-chan time.Time
	)
	for {
		select {
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if sig == syscall.SIGHUP { // the host died, or Stop
				killAll(syscall.SIGKILL)
				grace = time.After(pollEvery)
				continue
			}
			if running {
				_ = syscall.Kill(kept, sig)
			}
		case ev := <-events:
			if ev.none {
				cleanup()
				return exitAs(status)
			}
			if ev.pid == kept {
				status, running = ev.ws, false
				killAll(syscall.SIGTERM)
				if grace == nil {
					grace = time.After(Grace)
				}
			}
		case <-grace:
			killAll(syscall.SIGKILL)
			grace = time.After(pollEvery) // until the reaper finds none
		}
	}
}

// releaseStdio points the keeper's stdin, stdout and stderr at /dev/null:
// the process's pipes are the host's and the process's alone.
func releaseStdio() {
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	for fd := 0; fd <= 2; fd++ {
		_ = syscall.Dup3(null, fd, 0)
	}
	_ = syscall.Close(null)
}

// exitAs ends the keeper as the kept process ended: killed by the same signal,
// or with the same exit status (returned).
func exitAs(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	// The default action, not Go's handler (which would print a stack for
	// some); the keeper is not dumpable, so no core is written.
	var act [8]uint64 // struct sigaction, all zero: SIG_DFL
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	_ = syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
	return 128 + int(sig) // a signal whose default is not to terminate
}

// killAll sends sig to every live descendant of the keeper. None can leave
// the subtree: orphans come back to the keeper, a subreaper.
func killAll(sig syscall.Signal) {
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// descendants lists the live (not zombie) processes below root, from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscan(s[i+1:], &state, &ppid); err != nil || state == "Z" {
			continue
		}
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func stop(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("stop the keeper %d: %w", pid, err)
	}
	return nil
}
