package mcpclient

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Supervision: a server is started in the background (firstStart); one
// that fails to start or dies later (lost) keeps its last tools and is
// started again by the next listing or call (kickLocked) once its pause
// is over — Options.Backoff, doubled per failure up to MaxBackoff — as
// long as Options.RestartWindow holds fewer than RestartBudget restarts;
// the next failure leaves it down for the session. Every change of state
// goes to Options.OnStatus; a failure is marked a notice once.

// firstStart starts the server in the background.
func (sv *server) firstStart() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.first = make(chan struct{})
	sv.state = StatusStarting
	sv.beginLocked()
	sv.notify(Status{State: StatusStarting})
}

// waitFirst waits until the first start has ended, or ctx is done.
func (sv *server) waitFirst(ctx context.Context) error {
	select {
	case <-sv.first:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// kickLocked starts the server again when it is not up, no start is in
// flight, its pause is over and it is not down; when the budget is spent
// it marks it down instead. It returns the start in flight, if any.
func (sv *server) kickLocked(now time.Time) chan struct{} {
	if sv.starting != nil || sv.cs != nil || sv.gaveUp || sv.closed || now.Before(sv.nextTry) {
		return sv.starting
	}
	recent := sv.restarts[:0]
	for _, t := range sv.restarts {
		if now.Sub(t) < sv.opts.RestartWindow {
			recent = append(recent, t)
		}
	}
	sv.restarts = recent
	if len(recent) >= sv.opts.RestartBudget {
		sv.gaveUp, sv.state = true, StatusFailed
		sv.warnLine(sv.unavailable())
		sv.notify(Status{State: StatusFailed, Err: sv.unavailable(), Down: true, Notice: true, Stderr: sv.stderrTail()})
		return nil
	}
	sv.restarts = append(sv.restarts, now)
	sv.state = StatusRestarting
	sv.log.Info("MCP server restarting", "restart", len(sv.restarts), "of", sv.opts.RestartBudget)
	sv.notify(Status{State: StatusRestarting, Err: sv.why})
	sv.beginLocked()
	return sv.starting
}

// beginLocked starts a connection in the background.
func (sv *server) beginLocked() {
	ctx, abort := context.WithCancel(context.Background())
	done := make(chan struct{})
	sv.starting, sv.abort = done, abort
	go func() {
		c, err := sv.connect(ctx)
		sv.install(c, err)
		abort()
		close(done)
	}()
}

// install ends a start: the connection c is the server's from now on, or
// err says why there is none.
func (sv *server) install(c *conn, err error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.starting, sv.abort = nil, nil
	if sv.first != nil {
		select {
		case <-sv.first:
		default:
			defer close(sv.first)
		}
	}
	if sv.closed {
		if c != nil {
			_ = c.cs.Close()
			c.stop()
			if c.proc != nil {
				c.proc.stop(0) // gone when Close returns
			}
		}
		return
	}
	if err != nil {
		sv.failLocked(err.Error())
		return
	}
	sv.cs, sv.proc, sv.prov, sv.tools, sv.stopConn = c.cs, c.proc, c.prov, c.tools, c.stop
	sv.state, sv.why, sv.upSince = StatusUp, "", time.Now()
	sv.log.Info("MCP server connected", "transport", sv.cfg.transport(), "where", sv.cfg.where(),
		"server", c.prov.ServerName, "version", c.prov.ServerVersion, "tools", len(c.tools), "sandbox", sv.cfg.Info().Sandbox)
	st := Status{State: StatusUp, Tools: len(c.tools)}
	if sv.reported {
		st.Notice, sv.reported = true, false // it is back: say so
	}
	sv.notify(st)
	go sv.watch(c.cs, c.proc)
}

// failLocked records a failure: why is one line; the next start waits
// out the pause. A failure is a notice unless the one before it, with
// no start that worked in between, was.
func (sv *server) failLocked(why string) {
	sv.fails++
	pause := sv.opts.Backoff
	for i := 1; i < sv.fails && pause < sv.opts.MaxBackoff; i++ {
		pause *= 2
	}
	pause = min(pause, sv.opts.MaxBackoff)
	sv.state, sv.why, sv.nextTry = StatusFailed, why, time.Now().Add(pause)
	sv.warnLine(why)
	line, _, _ := strings.Cut(why, "; its last stderr: ") // Stderr has them
	st := Status{State: StatusFailed, Err: line, Stderr: sv.stderrTail()}
	if !sv.reported {
		st.Notice, sv.reported = true, true
	}
	sv.notify(st)
}

// watch waits for the connection cs (and the stdio server's process p)
// to end, and reports it lost unless the host ended it.
func (sv *server) watch(cs *mcp.ClientSession, p *proc) {
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	var exited <-chan struct{}
	if p != nil {
		exited = p.Exited()
	}
	why := "its connection closed"
	select {
	case err := <-done:
		if err != nil {
			why += ": " + err.Error()
		}
	case <-exited:
	}
	if p != nil {
		select {
		case <-p.Exited():
			why = "it exited (" + p.State() + ")"
		case <-time.After(500 * time.Millisecond):
		}
	}
	sv.lost(cs, why)
}

// lost drops the connection cs, found dead (how says why), so that the
// next listing or call starts the server again; nothing when cs is no
// longer the server's (closed, or already lost).
func (sv *server) lost(cs *mcp.ClientSession, how string) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.cs != cs || sv.closed {
		return
	}
	if p := sv.proc; p != nil {
		// a process that died says how (a call may see it first)
		select {
		case <-p.Exited():
			how = "it exited (" + p.State() + ")"
		case <-time.After(300 * time.Millisecond):
		}
	}
	_ = cs.Close()
	sv.stopConn()
	if sv.proc != nil {
		sv.proc.stop(0) // the stderr it wrote last is then in the tail
	}
	sv.cs, sv.proc = nil, nil
	if time.Since(sv.upSince) > sv.opts.RestartWindow {
		sv.fails = 0 // it ran well for long: start over with a short pause
	}
	sv.reported = false // a new failure
	sv.failLocked(fmt.Sprintf("MCP server %s (from %s) stopped: %s; it is started again on its next use", sv.cfg.Name, sourceOf(sv.cfg), sv.redact(how)))
}

// unavailable is the one line of a server down for the session: the
// description its tools are listed with, and what a call of one gets.
func (sv *server) unavailable() string {
	why := strings.TrimPrefix(sv.why, "MCP server "+sv.cfg.Name+" ")
	why, _, _ = strings.Cut(why, "; it is started again")
	return fmt.Sprintf("Unavailable: MCP server %s is down: %s (after %d restarts within %s it is not started again in this session: fix it and start a new session)",
		sv.cfg.Name, why, sv.opts.RestartBudget, sv.opts.RestartWindow)
}

// warnLine logs a failure: a warning, or at info level when OnStatus
// is told of it (the front end shows it: once is enough).
func (sv *server) warnLine(msg string) {
	if sv.statuses != nil {
		sv.log.Info(msg)
		return
	}
	sv.log.Warn(msg)
}

// stderrTail is the server's last stderr lines, redacted.
func (sv *server) stderrTail() []string { return sv.stderr.Lines() }

// notify queues st, the server's name and source filled in, for
// OnStatus (statusQueue: in order, never under mu).
func (sv *server) notify(st Status) {
	st.Server, st.Source = sv.cfg.Name, sourceOf(sv.cfg)
	sv.statuses.put(st)
}
