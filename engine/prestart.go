package engine

import (
	"context"
	"iter"
	"sync"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/toolbox"
)

// stepTools is the toolbox of one loop, which starts the plugins a step
// calls while the model is still answering: plugins start on first use,
// but the loop logs each tool/call — naming the process that serves it —
// before it makes the call. HoldTools hands out the step's list; when the
// model's answer names a tool whose plugin is not running (its list entry
// has PID 0), startCalled starts it at once (concurrently with the rest of
// the answer), holds the new process for the step, and, before the answer
// ends, writes the process into the list entries of its tools, so the
// tool/call the loop then logs, and the call routed from it, name it.
type stepTools struct {
	loopTools

	mu  sync.Mutex
	cur *stepList // the list of the step running now
}

// stepList is one step's tool list and the processes started for it.
type stepList struct {
	mu       sync.Mutex
	byTool   map[string]*event.Plugin // tool name → its list entry's process
	started  map[string]bool          // tool names already asked for
	pending  sync.WaitGroup
	releases []func()
	released bool
}

// HoldTools implements agent.ToolHolder.
func (s *stepTools) HoldTools() ([]agent.Tool, func()) {
	tools, release := s.loopTools.HoldTools()
	st := &stepList{byTool: make(map[string]*event.Plugin, len(tools)), started: map[string]bool{}}
	for _, t := range tools {
		st.byTool[t.Spec.Name] = t.Plugin
	}
	s.mu.Lock()
	s.cur = st
	s.mu.Unlock()
	var once sync.Once
	return tools, func() {
		once.Do(func() {
			release()
			st.pending.Wait()
			st.mu.Lock()
			st.released = true
			rs := st.releases
			st.releases = nil
			st.mu.Unlock()
			for _, r := range rs {
				r()
			}
		})
	}
}

// startCalled starts, in the background, the plugin serving the tool name
// if the current step's list names no process for it.
func (s *stepTools) startCalled(ctx context.Context, name string) {
	s.mu.Lock()
	st := s.cur
	s.mu.Unlock()
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	p, ok := st.byTool[name]
	if !ok || p.PID != 0 || st.started[name] || st.released {
		return
	}
	st.started[name] = true
	st.pending.Go(func() {
		ref, release, err := s.tb.StartTool(toolbox.WithCwd(context.WithoutCancel(ctx), s.cwd), name)
		if err != nil {
			return // the call fails the usual way
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.released {
			release()
			return
		}
		st.releases = append(st.releases, release)
		for _, q := range st.byTool {
			// Written before the answer ends (settle): the loop reads the
			// entries only after it.
			if q.PID == 0 && q.Name == ref.Name && q.SHA256 == ref.SHA256 {
				*q = ref
			}
		}
	})
}

// settle waits for the starts of the current step.
func (s *stepTools) settle() {
	s.mu.Lock()
	st := s.cur
	s.mu.Unlock()
	if st != nil {
		st.pending.Wait()
	}
}

// startOnUse wraps one turn's tools and model so that the plugins its steps
// call start while the model is still answering (plugins start on first
// use); tools other than the plugins' toolbox are returned as they are.
// Runtime.Run applies it to a session's turn, the subagent runner to a
// child's run.
func startOnUse(tools agent.Toolbox, model agent.Model) (agent.Toolbox, agent.Model) {
	lt, ok := tools.(loopTools)
	if !ok {
		return tools, model
	}
	st := &stepTools{loopTools: lt}
	return st, startingModel{Model: model, tools: st}
}

// startingModel is the loop's model that starts the plugins of the tools
// its answer calls as soon as their names arrive, and returns the answer's
// last chunk only once they run (stepTools).
type startingModel struct {
	agent.Model
	tools *stepTools
}

// Stream implements agent.Model.
func (m startingModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		defer m.tools.settle()
		for c, err := range m.Model.Stream(ctx, req) {
			if err == nil && c.Kind == llm.ChunkToolCall && c.ToolCall.Name != "" {
				m.tools.startCalled(ctx, c.ToolCall.Name)
			}
			if err == nil && c.Kind == llm.ChunkFinish {
				m.tools.settle()
			}
			if !yield(c, err) {
				return
			}
		}
	}
}
