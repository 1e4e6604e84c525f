package subagent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/host/tool"
)

// Defaults of a Runner.
const (
	DefaultMaxDepth      = 1
	LimitMaxDepth        = 3
	DefaultMaxConcurrent = 4
	DefaultSteps         = 50
	DefaultWall          = 10 * time.Minute
)

// ToolName is the name of the tool that delegates to a child; it is removed
// from the tools of a child at the depth limit.
const ToolName = "subagent"

// Budget bounds one child. Zero fields take the defaults; Tokens 0 means no
// token budget.
type Budget struct {
	Steps  int
	Wall   time.Duration
	Tokens int
}

// Runner starts child sessions. Set its fields, then call Run from any
// goroutine.
type Runner struct {
	Store *session.Store
	// Loop returns the loop a child runs, without its Tools: Run sets them
	// from Tools.
	Loop func(cwd string) (*agent.Loop, error)
	// Tools are the parent's tools: a child's steps take theirs from it
	// (its session's: the engine adds the MCP servers the child shares
	// with its root).
	Tools         agent.Tools
	MaxDepth      int
	MaxConcurrent int
	Budget        Budget
	Logger        hclog.Logger

	mu   sync.Mutex                // guards sems
	sems map[slotKey]chan struct{} // per root session and depth
}

// slotKey names one pool of slots: a root session's children at one depth.
type slotKey struct {
	root  string
	depth int
}

// Request asks for a child.
type Request struct {
	ParentSessionID string
	ParentCallID    string
	Description     string
	Prompt          string
	// Approver decides the child's permission requests; the host passes the
	// root client's, which names the subagent in its question.
	Approver agent.Approver
	// Opened and Closed, when set, learn of the child session's life (the
	// host registers it for HostServices).
	Opened, Closed func(*session.Session)
}

// Result is a child's final answer.
type Result struct {
	SessionID string
	Text      string
	Usage     event.Usage
}

// ErrorKind says why a child has no answer.
type ErrorKind string

// Error kinds.
const (
	ErrCancelled ErrorKind = "cancelled"
	ErrFailed    ErrorKind = "failed"
	ErrBudget    ErrorKind = "budget"
	ErrDepth     ErrorKind = "depth"
)

// Error is a child that gave no answer.
type Error struct {
	Kind      ErrorKind
	SessionID string
	Message   string
	Usage     event.Usage
}

func (e *Error) Error() string { return "subagent " + e.Message }

// Run runs one child to its answer, reporting progress lines to progress
// (which may be nil).
func (r *Runner) Run(ctx context.Context, req Request, progress func(string)) (Result, error) {
	lineage, err := r.Store.Lineage(req.ParentSessionID)
	if err != nil {
		return Result{}, &Error{Kind: ErrFailed, Message: fmt.Sprintf("failed: find the parent session: %v", err)}
	}
	depth := len(lineage) // the child's
	if depth > r.maxDepth() {
		return Result{}, &Error{Kind: ErrDepth, Message: fmt.Sprintf("refused: the depth limit of %d is reached", r.maxDepth())}
	}
	release, err := r.acquire(ctx, slotKey{root: lineage[len(lineage)-1], depth: depth})
	if err != nil {
		return Result{}, &Error{Kind: ErrCancelled, Message: "cancelled before it started"}
	}
	defer release()

	cwd, err := r.Store.Cwd(req.ParentSessionID)
	if err != nil {
		return Result{}, &Error{Kind: ErrFailed, Message: fmt.Sprintf("failed: %v", err)}
	}
	child, err := r.Store.Create(session.CreateOptions{Cwd: cwd, Parent: req.ParentSessionID})
	if err != nil {
		return Result{}, &Error{Kind: ErrFailed, Message: fmt.Sprintf("failed: create the child session: %v", err)}
	}
	if req.Opened != nil {
		req.Opened(child)
	}
	defer func() {
		if req.Closed != nil {
			req.Closed(child)
		}
		child.Close()
	}()

	loop, err := r.Loop(cwd)
	if err != nil {
		return Result{}, &Error{Kind: ErrFailed, SessionID: child.ID(), Message: fmt.Sprintf("failed: %v", err)}
	}
	b := r.budget()
	loop.MaxSteps = b.Steps
	loop.Approver = req.Approver
	tokens := &tokenBudget{Model: loop.Model, limit: b.Tokens}
	loop.Model = tokens
	if r.Tools != nil {
		loop.Tools = r.Tools
		if depth >= r.maxDepth() {
			loop.Tools = without{loop.Tools, ToolName}
		}
	}

	runCtx, cancel := context.WithTimeout(ctx, b.Wall)
	defer cancel()
	stopFollow := follow(child, progress)
	out := loop.Run(runCtx, child, event.Text(req.Prompt), nil)
	stopFollow()

	res := Result{SessionID: child.ID(), Text: out.Text, Usage: out.Usage}
	fail := func(kind ErrorKind, msg string) (Result, error) {
		return res, &Error{Kind: kind, SessionID: child.ID(), Message: msg, Usage: out.Usage}
	}
	switch {
	case out.Reason == event.ReasonCompleted:
		return res, nil
	case tokens.exceeded():
		return fail(ErrBudget, fmt.Sprintf("stopped: token budget of %d exceeded", b.Tokens))
	case out.Reason == event.ReasonMaxSteps:
		return fail(ErrBudget, fmt.Sprintf("stopped: step budget of %d exceeded", b.Steps))
	case out.Reason == event.ReasonCancelled && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return fail(ErrBudget, fmt.Sprintf("stopped: wall-time budget of %s exceeded", b.Wall))
	case out.Reason == event.ReasonCancelled:
		return fail(ErrCancelled, "cancelled")
	case out.Err != nil:
		return fail(ErrFailed, "failed: "+out.Err.Error())
	default:
		return fail(ErrFailed, fmt.Sprintf("stopped: %s", out.Reason))
	}
}

func (r *Runner) maxDepth() int {
	switch {
	case r.MaxDepth <= 0:
		return DefaultMaxDepth
	case r.MaxDepth > LimitMaxDepth:
		return LimitMaxDepth
	}
	return r.MaxDepth
}

func (r *Runner) budget() Budget {
	b := r.Budget
	if b.Steps <= 0 {
		b.Steps = DefaultSteps
	}
	if b.Wall <= 0 {
		b.Wall = DefaultWall
	}
	return b
}

// acquire takes one of the slots of a root session's children at one depth,
// waiting for one. The pools are per depth so that a child waiting for its
// own children never holds the slot they need: the deepest level never
// waits on anything, so every level above it ends.
func (r *Runner) acquire(ctx context.Context, key slotKey) (release func(), err error) {
	r.mu.Lock()
	if r.sems == nil {
		r.sems = make(map[slotKey]chan struct{})
	}
	sem, ok := r.sems[key]
	if !ok {
		n := r.MaxConcurrent
		if n <= 0 {
			n = DefaultMaxConcurrent
		}
		sem = make(chan struct{}, n)
		r.sems[key] = sem
	}
	r.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// without hides one tool of every step's tool set: a filter over the
// steps of Tools.
type without struct {
	agent.Tools
	name string
}

// Step implements agent.Tools.
func (w without) Step(ctx context.Context, info agent.StepInfo) (agent.Step, error) {
	st, err := w.Tools.Step(ctx, info)
	if err != nil {
		return nil, err
	}
	return hidden{st, w.name}, nil
}

// hidden is a step's tool set without the tool name: the model is not
// offered it, and a call of it is a call of an unknown tool.
type hidden struct {
	agent.Step
	name string
}

func (h hidden) Tools() []tool.Tool {
	return slices.DeleteFunc(h.Step.Tools(), func(t tool.Tool) bool { return t.Spec.Name == h.name })
}

func (h hidden) Tool(name string) (tool.Tool, bool) {
	if name == h.name {
		return tool.Tool{}, false
	}
	return h.Step.Tool(name)
}

// tokenBudget is a model that refuses further requests once the usage it
// has seen exceeds limit (0: no limit).
type tokenBudget struct {
	agent.Model
	limit int

	mu   sync.Mutex // guards used
	used int
}

func (t *tokenBudget) exceeded() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limit > 0 && t.used > t.limit
}

func (t *tokenBudget) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if t.exceeded() {
			yield(llm.Chunk{}, fmt.Errorf("token budget of %d exceeded", t.limit))
			return
		}
		for c, err := range t.Model.Stream(ctx, req) {
			if err == nil && c.Kind == llm.ChunkUsage {
				t.mu.Lock()
				t.used += c.Usage.InputTokens + c.Usage.CacheReadTokens + c.Usage.OutputTokens
				t.mu.Unlock()
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

// follow reports the child's progress from its log as short lines until
// stop is called; stop returns once everything logged was reported.
func follow(s *session.Session, progress func(string)) (stop func()) {
	if progress == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var seen int64
	report := func(ev event.Event) {
		seen = ev.Seq + 1
		if line := summary(ev); line != "" {
			progress(line + "\n")
		}
	}
	go func() {
		defer close(done)
		for ev := range s.Follow(ctx, 0) {
			report(ev)
		}
	}()
	return func() {
		cancel()
		<-done
		for _, ev := range s.Events()[seen:] { // appended after the follower stopped
			report(ev)
		}
	}
}

// summary is the progress line of one child event, "" for none.
func summary(ev event.Event) string {
	p, err := ev.Decode()
	if err != nil {
		return ""
	}
	switch p := p.(type) {
	case event.ToolCall:
		return fmt.Sprintf("→ %s %s", p.Name, shorten.Runes(shorten.Headline(p.Args), 80))
	case event.ToolResult:
		mark := "✓"
		if p.IsError {
			mark = "✗"
		}
		return fmt.Sprintf("  %s %s", mark, shorten.Runes(shorten.Headline(p.Content), 100))
	case event.AssistantMessage:
		if p.Text != "" {
			return shorten.Runes(shorten.Headline(p.Text), 120)
		}
	case event.TodoWrite:
		done := 0
		for _, t := range p.Todos {
			if t.Status == event.TodoCompleted {
				done++
			}
		}
		return fmt.Sprintf("todos: %d of %d done", done, len(p.Todos))
	}
	return ""
}
