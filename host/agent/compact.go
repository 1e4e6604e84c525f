package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/shorten"
)

// Defaults of the compaction settings of [Loop].
const (
	// DefaultCompactAt is the share of the context window, in percent, that
	// the next request may fill before the loop compacts first.
	DefaultCompactAt = 80
	// maxAutoCompactions bounds the automatic compactions of one turn.
	maxAutoCompactions = 3
	// summaryReserve is the share of the window, in percent, kept free for
	// the summary the model writes.
	summaryReserve = 25
	// maxQuoted bounds each tool result and each tool call's arguments in
	// the transcript the model summarizes.
	maxQuoted = 2000
)

// CompactPrompt is the instruction that ends the summary request. The
// request is the system prompt and one user message: the transcript of
// the history to summarize, then this text; no tools are offered.
const CompactPrompt = `The transcript above is the earlier part of a coding session between a user and you, an agent with tools. It is about to be removed from your context to save space; the summary you write now replaces it. Write the summary for yourself, to continue the work without the transcript:

- the user's goals and every explicit instruction, constraint and preference, quoting exact wording where it matters;
- what has been done: files read, created or changed (with paths), commands run and their outcomes, decisions made and why;
- facts learned that are still needed: names, paths, versions, error messages, results of investigations;
- what is in progress and what remains, in order;
- open questions and anything the user is waiting for.

Be concise and concrete; keep identifiers, paths and numbers exact. Do not restate the todo list: it is kept separately, verbatim. Do not call tools. Answer with the summary only.`

// CompactLog is a SessionLog whose history can be compacted: host/session
// implements it. The loop compacts only sessions that implement it.
type CompactLog interface {
	// MessageSeqs returns, for each message of Messages(), the seq of the
	// surface event it derives from, -1 for those a compaction put first.
	MessageSeqs() []int64
	// ContextUsage returns the tokens the provider reported for the history
	// up to the last answer that reported usage, and how many messages of
	// Messages() that covers; ok false when none counts the history.
	ContextUsage() (tokens, counted int, ok bool)
	// ContextLimit is the context length a provider stated, as the last
	// compaction recorded it; 0 if none.
	ContextLimit() int
	// Todos is the current todo list, nil before any todo/write.
	Todos() []event.Todo
	// Len is the number of events: the seq of the next one.
	Len() int
}

// CompactionLive is implemented by a Live that shows compactions as they
// happen. id is the seq the compaction's context/compact will have once it
// is logged. The calls of one compaction come in order from the loop's
// goroutine; CompactionEnded comes after the event is appended (err nil) or
// once the compaction failed.
type CompactionLive interface {
	CompactionStarted(sessionID string, id int64, reason string)
	CompactionDelta(sessionID string, id int64, text string)
	CompactionEnded(sessionID string, id int64, err error)
}

// window is the context window the loop fits requests in: the one a
// provider stated, else the session's model's (WindowOf), else the
// configured one; 0 when unknown.
func (t *turn) window() int {
	if t.limit > 0 {
		return t.limit
	}
	if cl, ok := t.s.(CompactLog); ok {
		if n := cl.ContextLimit(); n > 0 {
			return n
		}
	}
	if t.l.WindowOf != nil {
		if n := t.l.WindowOf(t.s); n > 0 {
			return n
		}
	}
	return t.l.ContextWindow
}

// compactAt is the threshold in percent of the window.
func (t *turn) compactAt() int {
	if at := t.l.CompactAt; at > 0 && at <= 100 {
		return at
	}
	return DefaultCompactAt
}

// contextTokens estimates the input tokens of the next request: the usage
// the provider reported for the history up to its last answer, plus the
// estimate (llm.BytesPerToken) of the messages appended since; the
// estimate of everything when no reported usage counts the history.
func (t *turn) contextTokens(specs []llm.ToolSpec) int {
	msgs := t.s.Messages()
	if cl, ok := t.s.(CompactLog); ok {
		if tokens, counted, ok := cl.ContextUsage(); ok && counted <= len(msgs) {
			return tokens + llm.EstimateMessages(msgs[counted:])
		}
	}
	return llm.EstimateRequest(llm.Request{System: t.l.System, Messages: msgs, Tools: specs})
}

// maybeCompact compacts before a step when the request would pass the
// threshold of the window. A failed automatic compaction is logged and the
// step goes on: the provider's overflow error, if it comes, compacts again.
func (t *turn) maybeCompact(ctx context.Context, specs []llm.ToolSpec) error {
	w := t.window()
	if w <= 0 || t.autoCompactions >= maxAutoCompactions {
		return nil
	}
	at := t.compactAt()
	est := t.contextTokens(specs)
	if t.log.IsDebug() {
		t.log.Debug("context size", "session", t.s.ID(), "turn", t.n, "estimate", est, "window", w,
			"system", llm.EstimateText(t.l.System), "tools", llm.EstimateTools(specs))
	}
	if est*100 <= w*at {
		return nil
	}
	t.autoCompactions++
	err := t.compact(ctx, event.CompactAuto, specs, est)
	if err != nil && ctx.Err() == nil {
		t.log.Warn("automatic compaction failed", "session", t.s.ID(), "turn", t.n, "error", err)
		return nil
	}
	return err
}

// errNothingToCompact is returned when the history holds nothing a summary
// could replace.
var errNothingToCompact = errors.New("nothing to compact: the history is already as short as it can be")

// compact summarizes the history before the recent messages kept verbatim
// and appends the context/compact. before is the estimate of the history
// (0: computed here).
func (t *turn) compact(ctx context.Context, reason string, specs []llm.ToolSpec, before int) (err error) {
	cl, ok := t.s.(CompactLog)
	if !ok {
		return errors.New("this session log cannot be compacted")
	}
	if before <= 0 {
		before = t.contextTokens(specs)
	}
	msgs := t.s.Messages()
	seqs := cl.MessageSeqs()
	if len(seqs) != len(msgs) {
		return errors.New("the session's messages changed while compacting")
	}
	w := t.window()
	t.fixed = llm.EstimateText(t.l.System) + llm.EstimateTools(specs)
	keepIdx := t.keepFrom(msgs, seqs, w, before)
	if keepIdx == 0 {
		return errNothingToCompact
	}
	keep := int64(cl.Len()) // nothing kept: the summary replaces all
	if keepIdx < len(msgs) {
		keep = seqs[keepIdx]
	}

	// The summary request must fit the window itself.
	budget := before / 2
	if w > 0 {
		budget = w*(100-summaryReserve)/100 - llm.EstimateText(t.l.System) - llm.EstimateText(CompactPrompt) - 64
	}
	transcript := renderTranscript(msgs[:keepIdx], budget*llm.BytesPerToken)
	req := llm.Request{Model: t.l.ModelName, System: t.l.systemFor(nil), // no tools
		Messages: []llm.Message{{Role: llm.RoleUser, Text: transcript + "\n\n" + CompactPrompt}}}
	if w > 0 {
		req.MaxTokens = w * summaryReserve / 100
	}

	id := int64(cl.Len())
	live, _ := t.live.(CompactionLive)
	if live != nil {
		live.CompactionStarted(t.s.ID(), id, reason)
		defer func() { live.CompactionEnded(t.s.ID(), id, err) }()
	}
	summary, err := t.summarize(ctx, req, live, id)
	if err != nil {
		return err
	}
	c := event.Compact{Turn: t.n, Summary: summary, Keep: keep, Reason: reason, TokensBefore: before, Window: w, Limit: t.limit}
	after := llm.EstimateText(t.l.System) + llm.EstimateTools(specs) + 2*llm.MessageOverheadTokens +
		llm.EstimateText(c.ContextText(cl.Todos())) + llm.EstimateMessages(msgs[keepIdx:])
	c.TokensAfter = after
	if _, err := t.s.Append(c); err != nil {
		return fmt.Errorf("append %s: %w", c.EventType(), err)
	}
	t.log.Info("context compacted", "session", t.s.ID(), "turn", t.n, "reason", reason, "before", before, "after", after)
	return nil
}

// keepFrom returns the index of the first message kept verbatim: the
// earliest that is not a tool result (a tool result must follow its call)
// such that it and everything after it fit the keep budget; len(msgs) when
// none does. Messages a compaction put first are never kept: a new summary
// replaces them.
func (t *turn) keepFrom(msgs []llm.Message, seqs []int64, w, before int) int {
	budget := t.l.KeepTokens
	if budget <= 0 {
		budget = before / 4
		if w > 0 {
			budget = (w*t.compactAt()/100 - t.fixed) / 3
		}
	}
	keepIdx, acc := len(msgs), 0
	for i := len(msgs) - 1; i >= 0 && seqs[i] >= 0; i-- {
		acc += llm.EstimateMessage(msgs[i])
		if acc > budget {
			break
		}
		if msgs[i].Role != llm.RoleTool {
			keepIdx = i
		}
	}
	// Something must be summarized: when everything fits, summarize the
	// oldest part anyway (from the next kept candidate on).
	if keepIdx == 0 {
		keepIdx = len(msgs)
		for i := 1; i < len(msgs); i++ {
			if msgs[i].Role == llm.RoleUser {
				keepIdx = i
				break
			}
		}
	}
	return keepIdx
}

// summarize streams the model's summary, forwarding its text to live.
func (t *turn) summarize(ctx context.Context, req llm.Request, live CompactionLive, id int64) (string, error) {
	var b strings.Builder
	finished := false
	for c, err := range t.l.Model.Stream(ctx, req) {
		if err != nil {
			return "", fmt.Errorf("summarize the history: %w", err)
		}
		switch c.Kind {
		case llm.ChunkText:
			b.WriteString(c.Text)
			if live != nil {
				live.CompactionDelta(t.s.ID(), id, c.Text)
			}
		case llm.ChunkFinish:
			finished = true
		}
		if finished {
			break
		}
	}
	if err := ctx.Err(); err != nil && !finished {
		return "", err
	}
	s := strings.TrimSpace(b.String())
	if s == "" {
		return "", errors.New("summarize the history: the model answered with no text")
	}
	return s, nil
}

// renderTranscript writes msgs as one text for the model to summarize, at
// most max bytes: tool results and arguments are cut to maxQuoted bytes
// each, and when the whole is still too long the oldest messages after the
// first (a previous summary, when there is one) are left out, saying so.
func renderTranscript(msgs []llm.Message, max int) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		var b strings.Builder
		switch m.Role {
		case llm.RoleUser:
			b.WriteString("[user]\n" + m.Text)
		case llm.RoleAssistant:
			b.WriteString("[assistant]")
			if m.Text != "" {
				b.WriteString("\n" + m.Text)
			}
			for _, c := range m.ToolCalls {
				b.WriteString("\n[tool call " + c.Name + "] " + shorten.Bytes(c.Arguments, maxQuoted))
			}
		case llm.RoleTool:
			tag := "[tool result]"
			if m.IsError {
				tag = "[tool result: error]"
			}
			b.WriteString(tag + "\n" + shorten.Bytes(m.Text, maxQuoted))
		}
		parts[i] = b.String()
	}
	var out strings.Builder
	out.WriteString("<transcript>\n")
	if max <= 0 {
		for _, p := range parts {
			out.WriteString(p + "\n\n")
		}
		out.WriteString("</transcript>")
		return out.String()
	}
	// The first message (a previous summary, when there is one) gets at
	// most half the room; the most recent ones fill the rest.
	rest := parts
	if len(parts) > 1 {
		head := shorten.Bytes(parts[0], max/2)
		out.WriteString(head + "\n\n")
		max -= len(head) + 2
		rest = parts[1:]
	}
	var tail []string
	for i := len(rest) - 1; i >= 0 && max > 2; i-- {
		p := rest[i]
		if len(p)+2 > max {
			if len(tail) == 0 {
				tail = append(tail, shorten.TailBytes(p, max-2))
			}
			break
		}
		tail = append(tail, p)
		max -= len(p) + 2
	}
	if n := len(rest) - len(tail); n > 0 {
		fmt.Fprintf(&out, "[… %d earlier messages left out to fit the context window …]\n\n", n)
	}
	for i := len(tail) - 1; i >= 0; i-- {
		out.WriteString(tail[i] + "\n\n")
	}
	out.WriteString("</transcript>")
	return out.String()
}

// Compact compacts the history of s now, in a turn of its own (turn/start,
// context/compact with reason command, turn/end): the user's /compact or
// `harness run --compact`. The outcome is an error when there is nothing to
// compact or the summary failed; the log then holds the turn without a
// compaction.
func (l *Loop) Compact(ctx context.Context, s SessionLog, live Live) Outcome {
	t := l.newTurn(s, live)
	if len(s.Messages()) < 2 { // no turn logged for nothing
		return Outcome{Reason: event.ReasonError, Err: errNothingToCompact}
	}
	var specs []llm.ToolSpec // counted as the next request will send them
	if l.Tools != nil {
		set, err := l.Tools.Step(ctx, StepInfo{SessionID: s.ID(), Cwd: s.Cwd(), Turn: t.n})
		if err != nil {
			return Outcome{Reason: event.ReasonError, Err: fmt.Errorf("list the tools: %w", err)}
		}
		for _, tl := range set.Tools() {
			specs = append(specs, tl.Spec)
		}
		set.Close()
	}
	reason, err := event.ReasonCompleted, t.append(event.TurnStart{Turn: t.n})
	if err == nil {
		err = t.compact(ctx, event.CompactCommand, specs, 0)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		reason, err = event.ReasonCancelled, nil
	case err != nil:
		reason = event.ReasonError
	}
	return t.close(reason, err)
}
