package mcpclient

import (
	"strings"
	"sync"
)

// Status is a change of one server's state, told to Options.OnStatus,
// or a configuration refused (StatusInvalid; Server "" for a file that
// does not parse). Nothing in it holds an env or header value or a URL's
// credentials: Err and Stderr are redacted.
type Status struct {
	// Server names the server; Source is where it was configured.
	Server, Source string
	// State is StatusStarting, StatusUp, StatusRestarting, StatusFailed
	// or StatusInvalid.
	State string
	// Err says why it is not up: one line naming the server, what failed
	// and what to do.
	Err string
	// Stderr are the server's last stderr lines when it failed.
	Stderr []string
	// Tools is how many tools it lists, when up.
	Tools int
	// Down: the restart budget is spent; the server is not started again
	// in this session.
	Down bool
	// Notice marks what a person should be told, once: a failure (a
	// start that failed, a server that died, the budget spent, a refused
	// configuration) — not the restarts that fail again after it — and a
	// server up again after one.
	Notice bool
}

// Text is st for a person: its one line, then the server's last stderr
// lines, each indented.
func (st Status) Text() string {
	line := st.Err
	if st.State == StatusUp {
		line = "MCP server " + st.Server + " is up again"
	}
	if len(st.Stderr) == 0 {
		return line
	}
	return line + "\n  its last stderr lines:\n    " + strings.Join(st.Stderr, "\n    ")
}

// statusQueue hands the statuses put to it to f in order, on a
// goroutine of its own, so that whoever puts one never waits for f. A
// nil queue drops them.
type statusQueue struct {
	f    func(Status)
	mu   sync.Mutex
	list []Status
	busy bool
	idle *sync.Cond
}

func newStatusQueue(f func(Status)) *statusQueue {
	if f == nil {
		return nil
	}
	q := &statusQueue{f: f}
	q.idle = sync.NewCond(&q.mu)
	return q
}

func (q *statusQueue) put(st Status) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = append(q.list, st)
	if !q.busy {
		q.busy = true
		go q.run()
	}
}

func (q *statusQueue) run() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.list) > 0 {
		st := q.list[0]
		q.list = q.list[1:]
		q.mu.Unlock()
		q.f(st)
		q.mu.Lock()
	}
	q.busy = false
	q.idle.Broadcast()
}

// drain waits until every status put so far has been handed to f.
func (q *statusQueue) drain() {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.busy {
		q.idle.Wait()
	}
}
