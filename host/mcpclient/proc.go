package mcpclient

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// proc is a stdio server's process, a [pluginhost.Process]: its own
// process group, Pdeathsig on Linux, its stdin and stdout the MCP pipe (the
// host's own stdin and stdout never reach it), its stderr read line by line
// into the host's log. On Linux the process is the server's keeper
// (host/keeper), which runs the server on those same pipes and ends as it
// does.
type proc struct {
	*pluginhost.Process
	// serverPID is the server's pid (the keeper's child, or the process
	// itself where no keeper runs).
	serverPID int
	// kept: the process is a keeper.
	kept bool
	// stderrDone is closed once its stderr has been read to the end.
	stderrDone chan struct{}
}

// startProc starts argv in dir with env (under a keeper where there is
// one); every line the server writes to stderr goes to stderrLine. An
// error is exec's own, naming the binary.
func startProc(argv []string, dir string, env []string, stderrLine func(string)) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	k, err := keeper.Wrap(cmd)
	if err != nil {
		return nil, err
	}
	pp, err := pluginhost.StartProcess(k.Cmd)
	if err != nil {
		k.Close()
		return nil, err
	}
	serverPID, err := k.Started()
	if err != nil {
		_ = pp.KillGroup()
		<-pp.Exited()
		return nil, err
	}
	p := &proc{Process: pp, serverPID: serverPID, kept: k.Cmd != cmd, stderrDone: make(chan struct{})}
	go func() {
		defer close(p.stderrDone)
		readLines(pp.Stderr(), stderrLine)
	}()
	return p, nil
}

// stop closes the server's stdin (the MCP way to ask a stdio server to
// exit), gives it grace to exit, then has its keeper SIGKILL everything
// below it and kills its process group, so that nothing it started is
// left.
func (p *proc) stop(grace time.Duration) {
	p.CloseStdin()
	select {
	case <-p.Exited():
	case <-time.After(grace):
	}
	select {
	case <-p.Exited():
	default:
		if p.kept {
			_ = keeper.Stop(p.PID())
			select {
			case <-p.Exited():
			case <-time.After(2 * time.Second): // the group's SIGKILL below ends it
			}
		}
	}
	_ = p.KillGroup()
	<-p.Exited()
	_ = p.Stdout().Close()
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
