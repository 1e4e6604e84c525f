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

// proc is a stdio server's process, a [pluginhost.Process] started by
// pluginhost.StartSupervised: its own process group, Pdeathsig on Linux,
// its stdin and stdout the MCP pipe (the host's own stdin and stdout
// never reach it), its stderr read line by line into the host's log. On
// Linux it runs under host/keeper, as the plugins and harness-llm do: the
// keeper runs the server on those same pipes and ends as it does; PID is
// the server's.
type proc struct {
	*pluginhost.Process
	// stderrDone is closed once its stderr has been read to the end.
	stderrDone chan struct{}
}

// supervise is host/keeper's supervisor, the one confine.Supervise names
// (this package may not import engine).
func supervise(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.Wrap(cmd) }

// startProc starts argv in dir with env under sup (supervise, or a
// confining supervisor for a sandboxed server); every line the server writes to stderr goes to stderrLine. An
// error is exec's own, naming the binary.
func startProc(argv []string, dir string, env []string, sup pluginhost.Supervisor, stderrLine func(string)) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	pp, err := pluginhost.StartSupervised(cmd, sup)
	if err != nil {
		return nil, err
	}
	p := &proc{Process: pp, stderrDone: make(chan struct{})}
	go func() {
		defer close(p.stderrDone)
		readLines(pp.Stderr(), stderrLine)
	}()
	return p, nil
}

// stop closes the server's stdin (the MCP way to ask a stdio server to
// exit), gives it grace to exit, then kills its process group — its
// keeper then SIGKILLs everything else below it — so that nothing it
// started is left.
func (p *proc) stop(grace time.Duration) {
	p.CloseStdin()
	select {
	case <-p.Exited():
	case <-time.After(grace):
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
