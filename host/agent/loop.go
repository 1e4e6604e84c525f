package agent

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/host/tool"
)

// Defaults of [Loop]'s limits.
const (
	DefaultMaxSteps    = 100
	DefaultMaxParallel = 8
)

// Loop runs turns. Its fields are set once; a Loop may run turns of several
// sessions concurrently, but one session must run one turn at a time.
type Loop struct {
	Model     Model
	ModelName string
	// Tools may be nil: the model gets no tools.
	Tools Tools
	// Approver decides on tools that need permission; nil allows them all.
	Approver Approver
	// System is the system prompt; the loop counts it as sent when it
	// decides whether to compact.
	System string
	// SystemFor, when set, gives the system prompt of a request that
	// offers the tools named: the loop asks it once per step, since the
	// tool list can change between steps (hot reload), and a prompt built
	// once would name tools no longer sent; a compaction's request offers
	// none. Nil sends System.
	SystemFor func(tools []string) string
	// MaxSteps caps the steps of a turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// MaxParallel caps concurrent calls of ConcurrencySafe tools; 0 means
	// DefaultMaxParallel.
	MaxParallel int
	// ContextWindow is the model's context window in tokens; 0 means
	// unknown: no automatic compaction (an overflow error from the provider
	// still compacts once, and its stated limit is believed).
	ContextWindow int
	// WindowOf, when set, gives the context window of the model the
	// session uses now (a session may switch models); 0 from it means
	// ContextWindow.
	WindowOf func(SessionLog) int
	// CompactAt is the share of the window, in percent, the next request
	// may fill before the loop compacts first; 0 means DefaultCompactAt.
	CompactAt int
	// CompactTarget is the share of the window, in percent, the request
	// after a compaction may fill at most (below CompactAt); 0 means
	// DefaultCompactTarget.
	CompactTarget int
	// KeepTokens is the budget of recent messages a compaction keeps
	// verbatim; 0 means what the target leaves besides the system prompt,
	// the tools, the todo list and the summary.
	KeepTokens int
	// Sandbox, when set, gives the sandbox a call of tool t with arguments
	// args (the model's JSON) runs under in session sessionID, whose cwd is
	// cwd (nil: none); the loop records it on the call's tool/call, hands it
	// to the Approver (ApprovalRequest.Sandbox) and sends the same value to
	// the toolbox (Call.Sandbox), so that what is logged is what is sent.
	Sandbox func(t tool.Tool, sessionID, cwd, args string) *event.CallSandbox
	// Budget, when set, is asked before each step whether that step would
	// pass the caller's budget (spending, say): the turn then ends, reason
	// budget, before the step's request is sent. Nil: no budget.
	Budget func() bool
	// Logger may be nil.
	Logger hclog.Logger
}

// systemFor is the system prompt of a request that offers the tools
// named.
func (l *Loop) systemFor(tools []string) string {
	if l.SystemFor == nil {
		return l.System
	}
	return l.SystemFor(tools)
}

// Outcome is how a turn ended.
type Outcome struct {
	Turn   int
	Reason event.Reason
	// Err is the failure when Reason is error.
	Err error
	// Usage sums the model usage of the turn's steps.
	Usage event.Usage
	// Text is the answer text of the turn's last model response.
	Text string
}

// The error results the loop writes itself.
const (
	cancelledResult = "Error: cancelled: the user stopped the turn before this call finished"
	hostFailedFmt   = "Error: the host failed before this call finished: %s"
)

// turn is the state of one Run; it lives only as long as the call.
type turn struct {
	l           *Loop
	s           SessionLog
	live        Live
	log         hclog.Logger
	n           int
	maxSteps    int
	maxParallel int
	usage       event.Usage
	hasUsage    bool
	text        string
	// limit is the context length the provider stated in this turn's
	// overflow error; overflowed says the turn had one and compacted.
	limit           int
	overflowed      bool
	overflowErr     error
	autoCompactions int
	// lastScale is the estimate's correction the turn last derived from
	// the log (0: none yet).
	lastScale float64
}

// step is the state of one step.
type step struct {
	k     int
	set   Step // nil: no tools
	specs []llm.ToolSpec
	tools map[string]tool.Tool
	calls []callState
}

// callState tracks what the log holds for one tool call of the step.
type callState struct {
	llm.ToolCall
	logged   bool // its tool/call is appended
	resolved bool // its tool/result is appended
	// preview is the diffs its tool/call carries.
	preview []event.Diff
	sandbox *event.CallSandbox // what its tool/call records, sent with the call
	images  []event.Content    // what its tool/result records of the result's images
}

// Run runs one turn of s on the prompt and reports how it ended. Deltas go to
// live, which may be nil. See the package doc for the contract.
func (l *Loop) Run(ctx context.Context, s SessionLog, prompt []event.Content, live Live) Outcome {
	t := l.newTurn(s, live)
	reason, err := t.run(ctx, prompt)
	return t.close(reason, err)
}

// newTurn returns the state of the next turn of s.
func (l *Loop) newTurn(s SessionLog, live Live) *turn {
	t := &turn{l: l, s: s, live: live, log: l.Logger, n: s.LastTurn() + 1,
		maxSteps: l.MaxSteps, maxParallel: l.MaxParallel}
	if t.log == nil {
		t.log = hclog.NewNullLogger()
	}
	if t.maxSteps <= 0 {
		t.maxSteps = DefaultMaxSteps
	}
	if t.maxParallel <= 0 {
		t.maxParallel = DefaultMaxParallel
	}
	return t
}

// run appends everything of the turn but its turn/end.
func (t *turn) run(ctx context.Context, prompt []event.Content) (event.Reason, error) {
	if err := t.append(event.TurnStart{Turn: t.n}); err != nil {
		return event.ReasonError, err
	}
	if err := t.append(event.UserMessage{Content: prompt}); err != nil {
		return event.ReasonError, err
	}
	for k := 1; ; k++ {
		if ctx.Err() != nil {
			return event.ReasonCancelled, nil
		}
		if t.l.Budget != nil && t.l.Budget() {
			return event.ReasonBudget, nil
		}
		reason, more, err := t.step(ctx, k)
		if !more {
			return reason, err
		}
		if k >= t.maxSteps {
			return event.ReasonMaxSteps, nil
		}
	}
}

// close appends turn/end and syncs the session; it is the single exit of Run.
func (t *turn) close(reason event.Reason, err error) Outcome {
	out := Outcome{Turn: t.n, Reason: reason, Err: err, Text: t.text}
	if t.hasUsage {
		out.Usage = t.usage
	}
	if t.s.LastTurn() >= t.n { // the turn is open in the log: close it
		end := event.TurnEnd{Turn: t.n, Reason: reason}
		if reason == event.ReasonError && err != nil {
			end.Error = shorten.OneLine(err.Error())
		}
		if t.hasUsage {
			u := t.usage
			end.Usage = &u
		}
		if aerr := t.append(end); aerr != nil {
			out.Reason, out.Err = event.ReasonError, both(out.Err, aerr)
		}
	}
	if serr := t.s.Sync(); serr != nil {
		out.Reason, out.Err = event.ReasonError, both(out.Err, fmt.Errorf("sync session: %w", serr))
	}
	if out.Err != nil { // the caller reports it; Info keeps it out of the default output
		t.log.Info("turn failed", "session", t.s.ID(), "turn", t.n, "error", out.Err)
	} else if t.log.IsDebug() {
		t.log.Debug("turn ended", "session", t.s.ID(), "turn", t.n, "reason", out.Reason)
	}
	return out
}

// step runs step k. more reports that the turn goes on; otherwise reason
// (and err for reason error) says why it ends.
func (t *turn) step(ctx context.Context, k int) (reason event.Reason, more bool, err error) {
	st := &step{k: k}
	if t.l.Tools != nil {
		set, err := t.l.Tools.Step(ctx, StepInfo{SessionID: t.s.ID(), Cwd: t.s.Cwd(), Turn: t.n, Step: k})
		if err != nil {
			if ctx.Err() != nil {
				return event.ReasonCancelled, false, nil
			}
			return event.ReasonError, false, fmt.Errorf("list the tools: %w", err)
		}
		defer set.Close() // after endStep: the step's calls have all ended
		st.set = set
		st.tools = map[string]tool.Tool{}
		for _, tl := range set.Tools() {
			st.specs = append(st.specs, tl.Spec) // nil when there are none: the request offers no tools
			st.tools[tl.Spec.Name] = tl
		}
	}
	if t.overflowErr != nil {
		// The last step overflowed the window: compact once, then retry.
		cause := t.overflowErr
		t.overflowErr = nil
		if cerr := t.compact(ctx, event.CompactOverflow, st.specs, 0); cerr != nil {
			if ctx.Err() != nil {
				return event.ReasonCancelled, false, nil
			}
			return event.ReasonError, false, fmt.Errorf("the conversation is longer than the model's context window and compacting it failed (%v): %w", shorten.OneLine(cerr.Error()), cause)
		}
	} else if err := t.maybeCompact(ctx, st.specs); err != nil {
		if ctx.Err() != nil {
			return event.ReasonCancelled, false, nil
		}
		return event.ReasonError, false, err
	}
	if err := t.append(event.StepStart{Turn: t.n, Step: k}); err != nil {
		return event.ReasonError, false, err
	}
	reason, more, err = t.stepBody(ctx, st)
	if cerr := t.endStep(st, reason, err); cerr != nil {
		reason, more, err = event.ReasonError, false, both(err, cerr)
	}
	return reason, more, err
}

// stepBody asks the model, records its answer and runs its tool calls.
func (t *turn) stepBody(ctx context.Context, st *step) (event.Reason, bool, error) {
	names := make([]string, len(st.specs))
	for i, s := range st.specs {
		names[i] = s.Name
	}
	req := llm.Request{Model: t.l.ModelName, System: t.l.systemFor(names), Messages: t.s.Messages(), Tools: st.specs}
	resp, complete, serr := t.stream(ctx, st, req)
	if !complete {
		// Cut short: keep what the user saw, but no tool calls.
		if err := t.appendAnswer(st, llm.Response{Text: resp.Text, Reasoning: resp.Reasoning, Usage: resp.Usage}); err != nil {
			return event.ReasonError, false, err
		}
		if ctx.Err() != nil {
			return event.ReasonCancelled, false, nil
		}
		if limit, over := llm.ContextOverflow(serr); over && resp.Text == "" && resp.Reasoning == "" {
			if t.overflowed {
				return event.ReasonError, false, fmt.Errorf("the conversation is still longer than the model's context window after compacting: %w; start a new session", serr)
			}
			t.overflowed, t.overflowErr = true, serr
			if limit > 0 {
				t.limit = limit
			}
			t.log.Info("context overflow: compacting and retrying", "session", t.s.ID(), "turn", t.n, "step", st.k, "limit", limit)
			return "", true, nil
		}
		return event.ReasonError, false, serr
	}

	if len(resp.ToolCalls) > 0 && (resp.Finish == llm.FinishMaxTokens || resp.Finish == llm.FinishRefusal) {
		t.log.Warn("tool calls dropped", "session", t.s.ID(), "turn", t.n, "step", st.k,
			"finish", resp.Finish, "calls", len(resp.ToolCalls))
		resp.ToolCalls = nil
	}
	resp.ToolCalls = uniqueIDs(resp.ToolCalls)
	if err := t.appendAnswer(st, resp); err != nil {
		return event.ReasonError, false, err
	}
	switch {
	case resp.Finish == llm.FinishMaxTokens:
		return event.ReasonMaxTokens, false, nil
	case resp.Finish == llm.FinishRefusal:
		return event.ReasonRefusal, false, nil
	case len(resp.ToolCalls) == 0:
		return event.ReasonCompleted, false, nil
	}

	st.calls = make([]callState, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		st.calls[i].ToolCall = c
		// The entry as of now: a warm start during the answer named the
		// process that serves the call.
		if _, ok := st.tools[c.Name]; ok {
			if tl, ok := st.set.Tool(c.Name); ok {
				st.tools[c.Name] = tl
			}
		}
	}
	if err := t.runCalls(ctx, st); err != nil {
		return event.ReasonError, false, err
	}
	if ctx.Err() != nil {
		return event.ReasonCancelled, false, nil
	}
	return "", true, nil
}

// stream reads one model answer, warming each tool it calls as soon as
// its name arrives. complete is false when the stream failed or was
// cancelled before its finish; resp then holds what arrived.
func (t *turn) stream(ctx context.Context, st *step, req llm.Request) (resp llm.Response, complete bool, err error) {
	var asm llm.Assembler
	id := t.s.ID()
	finished := false
	for c, err := range t.l.Model.Stream(ctx, req) {
		if err != nil {
			return asm.Response(), false, err
		}
		asm.Add(c)
		switch c.Kind {
		case llm.ChunkText:
			if t.live != nil {
				t.live.TextDelta(id, c.Text)
			}
		case llm.ChunkReasoning:
			if t.live != nil {
				t.live.ReasoningDelta(id, c.Text)
			}
		case llm.ChunkToolCall:
			if _, ok := st.tools[c.ToolCall.Name]; ok && st.set != nil {
				st.set.Warm(c.ToolCall.Name)
			}
		case llm.ChunkFinish:
			finished = true
		}
		if finished {
			break
		}
	}
	if !finished && ctx.Err() != nil {
		return asm.Response(), false, ctx.Err()
	}
	return asm.Response(), true, nil
}

// appendAnswer records the model's answer of the step unless it is empty,
// and counts its usage.
func (t *turn) appendAnswer(st *step, r llm.Response) error {
	t.text = r.Text
	if r.Usage != nil {
		t.usage = t.usage.Add(usage(*r.Usage))
		t.hasUsage = true
	}
	if r.Text == "" && r.Reasoning == "" && len(r.Blocks) == 0 && len(r.ToolCalls) == 0 && r.Usage == nil {
		return nil
	}
	m := event.AssistantMessage{Turn: t.n, Step: st.k, Text: r.Text, Reasoning: r.Reasoning, Finish: string(r.Finish)}
	for _, b := range r.Blocks {
		m.Blocks = append(m.Blocks, event.Block(b))
	}
	if r.Usage != nil {
		u := usage(*r.Usage)
		m.Usage = &u
	}
	if len(r.ToolCalls) > 0 {
		m.ToolCalls = make([]event.ToolCallRequest, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			m.ToolCalls[i] = event.ToolCallRequest{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
	}
	return t.append(m)
}

// uniqueIDs renames repeated call IDs of one answer (some servers send the
// same ID for every call), so that each tool/result answers one call.
func uniqueIDs(calls []llm.ToolCall) []llm.ToolCall {
	if len(calls) < 2 {
		return calls
	}
	seen := make(map[string]bool, len(calls))
	for i := range calls {
		id := calls[i].ID
		for n := 2; seen[id]; n++ {
			id = fmt.Sprintf("%s_%d", calls[i].ID, n)
		}
		seen[id] = true
		calls[i].ID = id
	}
	return calls
}

// endStep resolves the step's unresolved calls with error results that say
// why, then appends step/end. It keeps going after a failed append and
// returns the first failure.
func (t *turn) endStep(st *step, reason event.Reason, cause error) error {
	content := cancelledResult
	if reason != event.ReasonCancelled {
		why := "the step ended before it ran"
		if cause != nil {
			why = shorten.OneLine(cause.Error())
		}
		content = fmt.Sprintf(hostFailedFmt, why)
	}
	var first error
	done, cancel := context.WithCancel(context.Background())
	cancel() // calls that never ran are logged without a preview
	for i := range st.calls {
		c := &st.calls[i]
		if c.resolved {
			continue
		}
		if !c.logged {
			if err := t.appendCall(done, st, i); err != nil {
				first = both(first, err)
				continue
			}
		}
		if err := t.appendResult(st, i, content, true, tool.Meta{}); err != nil {
			first = both(first, err)
		}
	}
	if err := t.append(event.StepEnd{Turn: t.n, Step: st.k}); err != nil {
		first = both(first, err)
	}
	return first
}

// append appends one of the loop's events.
func (t *turn) append(p event.Payload) error {
	if _, err := t.s.Append(p); err != nil {
		return fmt.Errorf("append %s: %w", p.EventType(), err)
	}
	return nil
}

func usage(u llm.Usage) event.Usage {
	return event.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, ReasoningTokens: u.ReasoningTokens, CacheWriteTokens: u.CacheWriteTokens}
}

// both keeps the first error and adds the second, on one line.
func both(first, then error) error {
	switch {
	case first == nil:
		return then
	case then == nil:
		return first
	}
	return fmt.Errorf("%w; then %w", first, then)
}
