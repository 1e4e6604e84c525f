package mcpclient

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// proc is a stdio server's process: its own process group, its stdin and
// stdout the MCP pipe (the host's own stdin and stdout never reach it), its
// stderr read line by line into the host's log.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end, held by the host
	stdout *os.File // read end
	exited chan struct{}
	// stderrDone is closed once its stderr has been read to the end.
	stderrDone chan struct{}
	state      string // "exit status 1", "signal: killed"; set before exited closes
}

// startProc starts argv in dir with env; every line the process writes to
// stderr goes to stderrLine.
func startProc(argv []string, dir string, env []string, stderrLine func(string)) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean the host's whole environment
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = procAttr()
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{}), stderrDone: make(chan struct{})}
	err = startLocked(cmd, func(err error) {
		if cmd.ProcessState != nil {
			p.state = cmd.ProcessState.String()
		} else if err != nil {
			p.state = err.Error()
		}
		close(p.exited)
	})
	closeAll(inR, outW, errW) // the child's ends
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	go func() {
		defer close(p.stderrDone)
		readLines(errR, stderrLine)
	}()
	return p, nil
}

// startLocked starts cmd on a goroutine locked to its OS thread and keeps
// that thread until the process exits (Pdeathsig fires when the thread
// that started the process ends, not the host), then calls onExit with
// Wait's result.
func startLocked(cmd *exec.Cmd, onExit func(error)) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		onExit(cmd.Wait())
	}()
	return <-started
}

// pid is the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// stop closes the server's stdin (the MCP way to ask a stdio server to
// exit), gives it grace to exit, then kills its process group, so that
// nothing it started is left.
func (p *proc) stop(grace time.Duration) {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(grace):
	}
	_ = killGroup(p.pid())
	<-p.exited
	_ = p.stdout.Close()
	// its last stderr lines, for the message about it (a process it left
	// in another group may hold the pipe: wait only a little)
	select {
	case <-p.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
}

// readLines calls line for every line of r (long lines cut) until r ends,
// then closes r.
func readLines(r io.ReadCloser, line func(string)) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); l != "" {
			line(l)
		}
	}
	// a line over 64 KiB ends the scan; drain the rest so the server never blocks on stderr
	_, _ = io.Copy(io.Discard, r)
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// tail keeps the last n lines written to it.
type tail struct {
	mu    sync.Mutex
	n     int
	lines []string
}

func (t *tail) add(l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, l)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
