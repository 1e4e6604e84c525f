package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/termview"
)

// Output formats of harness run (--output-format).
const (
	formatText       = "text"        // for people: termview
	formatJSON       = "json"        // the result line only
	formatStreamJSON = "stream-json" // a line per message, chunk, call, result, decision, usage, then the result
)

// streamVersion is the version of the stream-json and json lines (their
// "v"); docs/stream-json.schema.json describes it. A change that a reader
// of version 1 could misread makes it 2.
const streamVersion = 1

// Exit statuses of harness run besides termview's (0, 1, 3, 130) and 2
// (usage): 3 also when a call needed a question nobody could answer, 4
// when a budget ran out.
const (
	exitStopped = termview.ExitStopped
	exitBudget  = termview.ExitBudget
)

// limits are a run's budgets: MaxTurns caps the model steps (0:
// --max-steps), BudgetUSD the cost of the run's steps (0: none), Timeout
// its wall time (0: none); Hide are the tools not offered to the model
// (--disallowed-tools).
type limits struct {
	MaxTurns  int
	BudgetUSD float64
	Timeout   time.Duration
	Hide      []string
}

// apply sets l's step cap, hidden tools and budget on loop, a loop of rt for s; the
// budget counts the steps logged from seq from on. It fails when a budget
// in dollars is asked of a model without prices in dollars.
func (l limits) apply(rt *engine.Runtime, s *session.Session, loop *agent.Loop, from int64) error {
	if l.MaxTurns > 0 {
		loop.MaxSteps = l.MaxTurns
	}
	hideTools(loop, l.Hide)
	if l.BudgetUSD <= 0 {
		return nil
	}
	u := rt.Usage(s, from)
	if !u.Priced || (u.Currency != "" && u.Currency != "USD") {
		m, _ := rt.SessionModel(s)
		return fmt.Errorf("--max-budget-usd needs the prices in USD of model %s: set input-price and output-price in its [[models]] entry of the config file: %w", m.Name, errUsage)
	}
	// The next step is taken to cost what the last one did: the turn
	// ends before a step that would pass the budget on that estimate.
	var last, spent float64
	loop.Budget = func() bool {
		now := rt.Usage(s, from)
		if !now.Priced {
			return true // a switch to a model without prices: stop rather than spend blind
		}
		last, spent = now.Cost-spent, now.Cost
		return spent+last > l.BudgetUSD
	}
	return nil
}

// headlessTurn runs one turn of s on text for a script: the lines of
// format on out, nothing else there, notes to errw. Questions about tool
// calls go to asker (nil: refused, the call fails with a result saying
// how to allow it). It returns the exit status with a one-line reason.
func headlessTurn(ctx context.Context, rt *engine.Runtime, s *session.Session, text, format string, lim limits, asker permission.Asker, out io.Writer) (int, error) {
	start := time.Now()
	loop, err := rt.Loop(s.Cwd())
	if err != nil {
		return exitFailed, err
	}
	from := int64(s.Len())
	if err := lim.apply(rt, s, loop, from); err != nil {
		return exitUsage, err
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	w := newStreamWriter(out, s, format == formatStreamJSON)
	stop := w.follow(ctx)
	o := rt.Prompt(ctx, s, loop, event.Text(text), w, asker)
	stop()
	res := w.result(rt, from, time.Since(start))
	code, err := exitOf(o, loop.MaxSteps, w.refused)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && o.Reason == event.ReasonCancelled {
		res.StopReason = "timeout"
		code, err = exitBudget, fmt.Errorf("timed out after %s (--timeout): the turn was stopped and logged as cancelled", lim.Timeout)
	}
	if err != nil {
		res.Error = err.Error()
	}
	if werr := w.write(res); werr != nil && err == nil {
		return exitFailed, werr
	}
	return code, err
}

// exitOf is the exit status of a headless turn's outcome: termview's,
// 4 for a budget, and 3 for a turn that completed though a call was
// refused for want of someone to ask (refused).
func exitOf(o agent.Outcome, maxSteps, refused int) (int, error) {
	switch o.Reason {
	case event.ReasonBudget:
		return exitBudget, errors.New("stopped: the next step would have passed --max-budget-usd; continue the session with a larger budget")
	case event.ReasonMaxSteps:
		return exitStopped, fmt.Errorf("stopped after %d step(s) (--max-turns, --max-steps); continue the session to let the model go on", maxSteps)
	case event.ReasonCompleted:
		if refused > 0 {
			return exitStopped, fmt.Errorf("%d tool call(s) needed permission and there was no one to ask: allow them with --allowed-tools, --mode or a rule", refused)
		}
		return exitOK, nil
	case event.ReasonCancelled:
		return exitCancelled, errors.New("cancelled: the turn was stopped and logged as cancelled")
	case event.ReasonMaxTokens:
		return exitStopped, errors.New("stopped: the model reached its output token limit")
	case event.ReasonRefusal:
		return exitStopped, errors.New("stopped: the model refused to continue")
	}
	if o.Err != nil {
		return exitFailed, o.Err
	}
	return exitFailed, fmt.Errorf("the turn ended: %s", o.Reason)
}

// streamWriter writes a turn as JSON lines: with stream set, a line for
// each event of the turn that shows (see line) and each reasoning delta,
// in the order they happened; the result line in either case. Deltas
// catch up with the log first, as acpbridge's turn stream does, so a
// chunk of a step never comes before the events logged ahead of it.
type streamWriter struct {
	out    io.Writer
	s      *session.Session
	stream bool

	mu      sync.Mutex // guards cursor, refused, err and orders the writes
	cursor  int64
	refused int // calls refused with nobody to ask
	steps   int
	err     error
}

func newStreamWriter(out io.Writer, s *session.Session, stream bool) *streamWriter {
	return &streamWriter{out: out, s: s, stream: stream, cursor: int64(s.Len())}
}

// follow shows the session's events as they are logged until the
// returned stop, which shows those not yet shown.
func (w *streamWriter) follow(ctx context.Context) (stop func()) {
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	from := w.cursor
	go func() {
		defer close(done)
		next := from
		for ev := range w.s.Follow(fctx, from) {
			w.mu.Lock()
			if next == w.cursor {
				w.cursor++
				w.showLocked(ev)
			}
			w.mu.Unlock()
			next++
		}
	}()
	return func() {
		cancel()
		<-done
		w.mu.Lock()
		w.catchUpLocked()
		w.mu.Unlock()
	}
}

func (w *streamWriter) catchUpLocked() {
	evs := w.s.Events()
	for w.cursor < int64(len(evs)) {
		ev := evs[w.cursor]
		w.cursor++
		w.showLocked(ev)
	}
}

// TextDelta implements agent.Live: the text comes whole with its message.
func (w *streamWriter) TextDelta(string, string) {}

// ReasoningDelta implements agent.Live: a thinking line.
func (w *streamWriter) ReasoningDelta(_, text string) {
	if !w.stream || text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.catchUpLocked()
	w.writeLocked(line{Type: "thinking", Text: text})
}

// line is one line of the stream (docs/stream-json.schema.json); V and
// Session are set by write.
type line struct {
	Type      string          `json:"type"`
	V         int             `json:"v"`
	Session   string          `json:"session"`
	Turn      int             `json:"turn,omitempty"`
	Step      int             `json:"step,omitempty"`
	Role      string          `json:"role,omitempty"`
	Text      string          `json:"text,omitempty"`
	ToolCalls []lineCall      `json:"toolCalls,omitempty"`
	CallID    string          `json:"callId,omitempty"`
	Name      string          `json:"name,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	Title     string          `json:"title,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"isError,omitempty"`
	Decision  string          `json:"decision,omitempty"`
	Source    string          `json:"source,omitempty"`
	Usage     *event.Usage    `json:"usage,omitempty"`
}

// lineCall is a tool call an assistant message asks for.
type lineCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// result is the last line: how the run ended.
type result struct {
	Type       string      `json:"type"`
	V          int         `json:"v"`
	Session    string      `json:"session"`
	StopReason string      `json:"stopReason"`
	Usage      event.Usage `json:"usage"`
	// Cost is in Currency; null when a model of the run has no prices.
	Cost       *float64 `json:"cost"`
	Currency   string   `json:"currency,omitempty"`
	Turns      int      `json:"turns"`
	DurationMs int64    `json:"durationMs"`
	Text       string   `json:"text"`
	Error      string   `json:"error,omitempty"`
}

// showLocked writes the line of one event, if it has one, and counts
// what the result needs.
func (w *streamWriter) showLocked(ev event.Event) {
	p, err := ev.Decode()
	if err != nil {
		return // a plugin's own event, or one the log refused to decode: not shown
	}
	var l *line
	switch p := p.(type) {
	case event.UserMessage:
		var b strings.Builder
		for _, c := range p.Content {
			b.WriteString(c.Text)
		}
		l = &line{Type: "message", Role: "user", Text: b.String()}
	case event.AssistantMessage:
		w.steps++
		l = &line{Type: "message", Role: "assistant", Turn: p.Turn, Step: p.Step, Text: p.Text}
		for _, c := range p.ToolCalls {
			l.ToolCalls = append(l.ToolCalls, lineCall{ID: c.ID, Name: c.Name})
		}
		if p.Usage != nil && w.stream {
			w.writeLocked(*l)
			l = &line{Type: "usage", Turn: p.Turn, Step: p.Step, Usage: p.Usage}
		}
	case event.ToolCall:
		args := json.RawMessage(p.Args)
		if !json.Valid(args) {
			args, _ = json.Marshal(p.Args) // the model's text, as a string
		}
		l = &line{Type: "tool_call", Turn: p.Turn, Step: p.Step, CallID: p.CallID, Name: p.Name, Args: args, Title: p.Title}
	case event.ToolResult:
		l = &line{Type: "tool_result", Turn: p.Turn, Step: p.Step, CallID: p.CallID, Content: &p.Content, IsError: &p.IsError}
	case event.Permission:
		if !p.Decision.Allows() && (p.Source == event.SourceMode || p.Source == event.SourceProtected) {
			w.refused++ // counted only with nobody to ask: an answer has source user
		}
		l = &line{Type: "permission", Turn: p.Turn, Step: p.Step, CallID: p.CallID, Name: p.Tool, Decision: string(p.Decision), Source: string(p.Source)}
	}
	if l != nil && w.stream {
		w.writeLocked(*l)
	}
}

// writeLocked writes one line; the first failure is kept and ends the
// writing.
func (w *streamWriter) writeLocked(l line) {
	l.V, l.Session = streamVersion, w.s.ID()
	w.emitLocked(l)
}

func (w *streamWriter) emitLocked(v any) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		_, err = w.out.Write(append(b, '\n'))
	}
	if err != nil {
		w.err = fmt.Errorf("write the output: %w", err)
	}
}

// result is the result line of the run, the steps logged from seq from
// on; StopReason is the turn's.
func (w *streamWriter) result(rt *engine.Runtime, from int64, d time.Duration) result {
	u := rt.Usage(w.s, from)
	w.mu.Lock()
	defer w.mu.Unlock()
	r := result{Type: "result", V: streamVersion, Session: w.s.ID(), Usage: u.Total, Turns: w.steps, DurationMs: d.Milliseconds()}
	if u.Priced {
		c := u.Cost
		r.Cost, r.Currency = &c, u.Currency
	}
	evs := w.s.Events()
	for i := len(evs) - 1; i >= int(from); i-- {
		p, err := evs[i].Decode()
		if err != nil {
			continue
		}
		if end, ok := p.(event.TurnEnd); ok && r.StopReason == "" {
			r.StopReason = string(end.Reason)
		}
		if am, ok := p.(event.AssistantMessage); ok && am.Text != "" {
			r.Text = am.Text
			break
		}
	}
	if r.StopReason == "" {
		r.StopReason = string(event.ReasonError)
	}
	return r
}

// write writes the result line, in both formats.
func (w *streamWriter) write(r result) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.emitLocked(r)
	return w.err
}
