package toolbox

import (
	"context"
	"sync"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// Step is the tool set of one step of the agent loop (it implements
// agent.Step): the list HoldTools gives, whose processes it holds until
// Close, and the processes it starts on Warm, which it holds too. The
// plugins of a toolbox with Config.StartOnUse start on first use, but the
// loop logs each tool/call — naming the process that serves it — before
// it makes the call: Warm starts the tool's plugin as soon as the model's
// answer names it, concurrently with the rest of the answer, and Tool
// then returns the entry naming the process it started. Only Step writes
// its list, under its lock; callers get copies.
type Step struct {
	tb  *Toolbox
	ctx context.Context // the step's, without its cancellation: what Warm starts with

	mu       sync.Mutex // guards list, started, releases, closed
	list     []tool.Tool
	started  map[string]bool // tool names already warmed
	releases []func()
	closed   bool
	pending  sync.WaitGroup // warm starts running
}

// Step returns the tool set of one step. ctx carries the session's
// working directory (WithCwd): the plugins the step starts are confined
// to it. The caller must Close it.
func (tb *Toolbox) Step(ctx context.Context) *Step {
	list, release := tb.HoldTools()
	return &Step{tb: tb, ctx: context.WithoutCancel(ctx), list: list,
		started: map[string]bool{}, releases: []func(){release}}
}

// Tools lists the step's tools, as the model is sent them.
func (s *Step) Tools() []tool.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return listed(s.list)
}

// Warm starts, in the background, the plugin serving the tool name when
// the step's list names no process for it (PID 0), and holds the process
// for the step. It does not block.
func (s *Step) Warm(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.index(name)
	if i < 0 || s.list[i].Plugin == nil || s.list[i].Plugin.PID != 0 || s.started[name] || s.closed {
		return
	}
	s.started[name] = true
	s.pending.Go(func() {
		ref, release, err := s.tb.StartTool(s.ctx, name)
		if err != nil {
			return // the call fails the usual way
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			release()
			return
		}
		s.releases = append(s.releases, release)
		for i, t := range s.list {
			if p := t.Plugin; p != nil && p.PID == 0 && p.Name == ref.Name && p.SHA256 == ref.SHA256 {
				s.list[i].Plugin = &ref // a new pointer: copies given out stay as they were
			}
		}
	})
}

// Tool returns the list entry of the tool name once the step's warm
// starts have ended.
func (s *Step) Tool(name string) (tool.Tool, bool) {
	s.pending.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.index(name)
	if i < 0 {
		return tool.Tool{}, false
	}
	return listed(s.list[i : i+1])[0], true
}

// index is the position of the tool name in s.list, -1 if none; s.mu
// held.
func (s *Step) index(name string) int {
	for i, t := range s.list {
		if t.Spec.Name == name {
			return i
		}
	}
	return -1
}

// Preview is [Toolbox.Preview] with the step's caller.
func (s *Step) Preview(ctx context.Context, c tool.Call) tool.Meta {
	c.Caller = callerAgent
	return s.tb.Preview(ctx, c)
}

// Call is [Toolbox.Call] with the step's caller.
func (s *Step) Call(ctx context.Context, c tool.Call) tool.Result {
	c.Caller = callerAgent
	return s.tb.Call(ctx, c)
}

// Close waits for the warm starts still running and releases every
// process the step holds. It is idempotent.
func (s *Step) Close() {
	s.pending.Wait()
	s.mu.Lock()
	rs := s.releases
	s.releases, s.closed = nil, true
	s.mu.Unlock()
	for _, r := range rs {
		r()
	}
}

// callerAgent is who makes a step's calls: a session's loop.
const callerAgent = string(pluginapi.CallerAgent)
