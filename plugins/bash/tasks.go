//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// maxRunning bounds the background tasks a session may have running.
const maxRunning = 16

// task is one background command: started by bash with run_in_background,
// read by bash_output, stopped by bash_kill, by the end of its session or
// by the plugin's exit. It belongs to the session that started it.
type task struct {
	id      string
	session string // the owner; "" when started outside a session
	proc    *proc
	out     *output

	stopOnce sync.Once
	stopReq  chan struct{}
	done     chan struct{}
	status   string // how it ended; set before done is closed
}

// finished reports whether the task ended, and how.
func (t *task) finished() (string, bool) {
	select {
	case <-t.done:
		return t.status, true
	default:
		return "", false
	}
}

// stop asks the supervisor to end the task and waits until it has, or
// until ctx is done.
func (t *task) stop(ctx context.Context) {
	t.stopOnce.Do(func() { close(t.stopReq) })
	select {
	case <-t.done:
	case <-ctx.Done():
	}
}

// supervise waits for the task's end — by itself, by stop, by its timeout
// (0: none) or by too much output — and records how it ended.
func (t *task) supervise(timeout time.Duration) {
	var expire <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expire = timer.C
	}
	status := ""
	select {
	case <-t.proc.exited:
	case <-t.stopReq:
		status = "killed"
	case <-expire:
		status = fmt.Sprintf("timed out after %d ms and was killed", timeout.Milliseconds())
	case <-t.out.overflowed():
		status = "killed: its output passed 1 GiB"
	}
	if status != "" {
		if t.proc.exitState() != nil { // it ended by itself meanwhile
			status = ""
		} else {
			t.proc.stop()
		}
	}
	t.proc.finish()
	t.proc.settle()
	t.out.close()
	if status == "" {
		status = exitStatus(t.proc.exitState())
	}
	t.status = status
	close(t.done)
}

// exitStatus describes a task that ended by itself.
func exitStatus(st *exitState) string {
	switch {
	case st == nil:
		return "killed"
	case st.sig != 0:
		return "killed by signal " + signalName(st.sig)
	}
	return "exited with code " + strconv.Itoa(st.code)
}

// taskTable holds the plugin's background tasks by id. Ids are bash_1,
// bash_2, … in the order tasks start, across sessions.
type taskTable struct {
	mu     sync.Mutex
	last   int
	byID   map[string]*task
	closed bool
}

func newTaskTable() *taskTable { return &taskTable{byID: map[string]*task{}} }

// start runs a command as a background task of session, with spawn.
func (tt *taskTable) start(session string, timeout time.Duration, spawn func(id string) (*proc, *output, error)) (*task, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.closed {
		return nil, errors.New("the plugin is shutting down")
	}
	running := 0
	for _, t := range tt.byID {
		if _, done := t.finished(); !done && t.session == session {
			running++
		}
	}
	if running >= maxRunning {
		return nil, fmt.Errorf("this session already runs %d background tasks, the most it may; stop one with bash_kill first", running)
	}
	id := "bash_" + strconv.Itoa(tt.last+1)
	p, out, err := spawn(id)
	if err != nil {
		return nil, err
	}
	tt.last++
	t := &task{id: id, session: session, proc: p, out: out, stopReq: make(chan struct{}), done: make(chan struct{})}
	tt.byID[id] = t
	go t.supervise(timeout)
	return t, nil
}

// holds reports whether session has background tasks in the table,
// running or finished with output left to read: the host must not stop
// the plugin when idle while it does (pluginapi.Plugin.HoldsState).
func (tt *taskTable) holds(session string) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for _, t := range tt.byID {
		if t.session == session {
			return true
		}
	}
	return false
}

// get returns the task id if session may use it: a task belongs to the
// session that started it.
func (tt *taskTable) get(id, session string) (*task, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	t := tt.byID[id]
	switch {
	case t == nil:
		return nil, fmt.Errorf("no background task %s", strconv.Quote(id))
	case t.session != "" && t.session != session:
		return nil, fmt.Errorf("task %s belongs to another session", id)
	}
	return t, nil
}

// closeSession stops the tasks of session and forgets them.
func (tt *taskTable) closeSession(ctx context.Context, session string) {
	tt.mu.Lock()
	var mine []*task
	for id, t := range tt.byID {
		if t.session == session {
			mine = append(mine, t)
			delete(tt.byID, id)
		}
	}
	tt.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range mine {
		wg.Go(func() { t.stop(ctx) })
	}
	wg.Wait()
}

// close refuses new tasks, for the plugin's exit (which kills the running
// ones with every other process group).
func (tt *taskTable) close() {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.closed = true
}
