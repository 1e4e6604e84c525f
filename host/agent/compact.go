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
	// DefaultCompactTarget is the share of the window, in percent, that the
	// request after a compaction may fill at most: the room below it is
	// what the next turns fill before the next compaction.
	DefaultCompactTarget = 50
	// maxAutoCompactions bounds the automatic compactions of one turn.
	maxAutoCompactions = 3
	// summaryReserve is the share of the window, in percent, the summary
	// request lets the model write (its MaxTokens).
	summaryReserve = 25
	// summaryShare is the share of the window, in percent, a summary is
	// expected to take (bounded by minSummary and maxSummary): the room a
	// compaction sets aside for it, and the least a history must weigh to
	// be worth summarizing.
	summaryShare           = 6
	minSummary, maxSummary = 256, 4096
	// maxQuoted bounds each tool result and each tool call's arguments in
	// the transcript the model summarizes.
	maxQuoted = 2000
)

// CompactPrompt is the instruction that ends the summary request. The
// request is the system prompt and one user message: the transcript of
// the history to summarize, then this text and the length to keep under
// (the room a compaction sets aside for the summary); no tools are
// offered.
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

// compactTarget is the most, in percent of the window, a request may
// fill after a compaction.
func (t *turn) compactTarget() int {
	if at := t.l.CompactTarget; at > 0 && at < t.compactAt() {
		return at
	}
	return min(DefaultCompactTarget, t.compactAt())
}

// summaryTokens is the room a compaction sets aside for the summary in a
// window of w tokens.
func summaryTokens(w int) int {
	if w <= 0 {
		return maxSummary
	}
	return min(max(w*summaryShare/100, minSummary), maxSummary)
}

// scale is the session's correction of the estimate (llm.Scale): the
// tokens the provider reported for the history (CompactLog.ContextUsage)
// over the estimate of the same request — the system prompt, the step's
// tools and the messages the usage counts. It is derived from the log
// each time, so a restart finds it again; between a compaction and the
// next answer with usage the turn keeps the last one it derived, and a
// session without any counts at llm.BytesPerToken (1).
func (t *turn) scale(specs []llm.ToolSpec) float64 {
	cl, ok := t.s.(CompactLog)
	if !ok {
		return 1
	}
	tokens, counted, ok := cl.ContextUsage()
	msgs := t.s.Messages()
	if !ok || counted > len(msgs) {
		if t.lastScale > 0 {
			return t.lastScale
		}
		return 1
	}
	est := llm.EstimateRequest(llm.Request{System: t.l.System, Messages: msgs[:counted], Tools: specs})
	sc, ok := llm.Scale(est, tokens)
	if !ok {
		return 1
	}
	t.lastScale = sc
	return sc
}

// fixedTokens is the scaled estimate of what every request carries
// whatever the history: the system prompt and the tools.
func (t *turn) fixedTokens(specs []llm.ToolSpec) int {
	return llm.Scaled(llm.EstimateText(t.l.System)+llm.EstimateTools(specs), t.scale(specs))
}

// contextTokens estimates the input tokens of the next request: the usage
// the provider reported for the history up to its last answer, plus the
// estimate of the messages appended since; the estimate of everything
// when no reported usage counts the history. Estimates are corrected by
// the session's scale.
func (t *turn) contextTokens(specs []llm.ToolSpec) int {
	msgs := t.s.Messages()
	sc := t.scale(specs)
	if cl, ok := t.s.(CompactLog); ok {
		if tokens, counted, ok := cl.ContextUsage(); ok && counted <= len(msgs) {
			return tokens + llm.Scaled(llm.EstimateMessages(msgs[counted:]), sc)
		}
	}
	return llm.Scaled(llm.EstimateRequest(llm.Request{System: t.l.System, Messages: msgs, Tools: specs}), sc)
}

// maybeCompact compacts before a step when the request would pass the
// threshold of the window. A compaction that is not made (nothing can
// shrink) or fails is logged and the step goes on, unless the request
// cannot fit the window at all: then the turn fails with one line.
func (t *turn) maybeCompact(ctx context.Context, specs []llm.ToolSpec) error {
	w := t.window()
	if w <= 0 {
		return nil
	}
	est := t.contextTokens(specs)
	if t.log.IsDebug() {
		t.log.Debug("context size", "session", t.s.ID(), "turn", t.n, "estimate", est, "window", w,
			"system", llm.EstimateText(t.l.System), "tools", llm.EstimateTools(specs), "scale", t.scale(specs))
	}
	if est*100 <= w*t.compactAt() {
		return nil
	}
	if t.autoCompactions < maxAutoCompactions {
		t.autoCompactions++
		err := t.compact(ctx, event.CompactAuto, specs, est)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return err
		case errors.Is(err, errNothingToCompact) || errors.Is(err, errNoGain):
			t.log.Info("no compaction", "session", t.s.ID(), "turn", t.n, "estimate", est, "window", w, "why", err)
		default:
			t.log.Warn("automatic compaction failed", "session", t.s.ID(), "turn", t.n, "error", err)
		}
		est = t.contextTokens(specs)
	}
	return t.fits(est, w, specs)
}

// fits fails, with one line saying why and what to do, a request that is
// larger than the window.
func (t *turn) fits(est, w int, specs []llm.ToolSpec) error {
	if est <= w {
		return nil
	}
	return fmt.Errorf("the request (~%d tokens) does not fit the model's context window (%d tokens) and compacting cannot shrink it "+
		"(the system prompt and tools take ~%d): start a new session, use fewer tools or MCP servers, or set the model's real window (context-window)",
		est, w, t.fixedTokens(specs))
}

// Why a compaction is not made.
var (
	// errNothingToCompact is returned when the history holds nothing a
	// summary could replace.
	errNothingToCompact = errors.New("nothing to compact: the history is already as short as it can be")
	// errNoGain is returned when a summary would not free half of what it
	// replaces.
	errNoGain = errors.New("a summary would not free half of the history it replaces")
)

// compact summarizes the history before the recent messages kept verbatim
// and appends the context/compact. before is the estimate of the history
// (0: computed here). An automatic or overflow compaction is made only
// when it frees room: the history it replaces must weigh at least what a
// summary is allowed (summaryTokens), and the summary with the todo list
// must take at most half of it; else no event is appended and the error
// says which (errNothingToCompact, errNoGain).
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
	sc := t.scale(specs)
	todos := cl.Todos()
	keepIdx := t.keepFrom(msgs, seqs, w, before, t.fixedTokens(specs)+llm.Scaled(llm.EstimateText(event.Compact{}.ContextText(todos)), sc))
	if keepIdx == 0 {
		return errNothingToCompact
	}
	replaced := llm.Scaled(llm.EstimateMessages(msgs[:keepIdx]), sc)
	room := summaryTokens(w)
	if reason != event.CompactCommand && replaced < room {
		return fmt.Errorf("%w (~%d tokens, less than a summary's ~%d)", errNothingToCompact, replaced, room)
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
	transcript := renderTranscript(msgs[:keepIdx], int(float64(budget*llm.BytesPerToken)/sc))
	ask := fmt.Sprintf("%s\n\n%s Keep it under about %d words.", transcript, CompactPrompt, room*3/4)
	req := llm.Request{Model: t.l.ModelName, System: t.l.systemFor(nil), // no tools
		Messages: []llm.Message{{Role: llm.RoleUser, Text: ask}}}
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
	text := llm.Scaled(llm.EstimateText(c.ContextText(todos))+2*llm.MessageOverheadTokens, sc)
	if reason != event.CompactCommand && 2*text > replaced {
		return fmt.Errorf("%w (~%d tokens for ~%d)", errNoGain, text, replaced)
	}
	after := t.fixedTokens(specs) + text + llm.Scaled(llm.EstimateMessages(msgs[keepIdx:]), sc)
	c.TokensAfter = after
	if _, err := t.s.Append(c); err != nil {
		return fmt.Errorf("append %s: %w", c.EventType(), err)
	}
	t.log.Info("context compacted", "session", t.s.ID(), "turn", t.n, "reason", reason, "before", before, "after", after)
	return nil
}

// keepFrom returns the index of the first message kept verbatim; 0 when
// nothing can be summarized. The kept messages and what every request
// carries besides (fixed: system prompt, tools, the summary's framing and
// the todo list) must fit the compaction target with room for the
// summary; KeepTokens, when set, is the kept messages' budget instead.
// The kept part starts at the last user message when that fits, else at
// the earliest message after it that fits (never a tool result, which
// must follow its call), else nothing is kept — but a user message that
// is the last is always kept; older messages are kept too while they
// fit. Messages a compaction put first are never kept: a
// new summary replaces them.
func (t *turn) keepFrom(msgs []llm.Message, seqs []int64, w, before, fixed int) int {
	budget := t.l.KeepTokens
	if budget <= 0 {
		budget = before / 4
		if w > 0 {
			budget = w*t.compactTarget()/100 - fixed - summaryTokens(w)
		}
	}
	lastUser := -1
	for i := len(msgs) - 1; i >= 0 && seqs[i] >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			lastUser = i
			break
		}
	}
	// The earliest message that fits, and the size of the part from the
	// last user message on.
	keepIdx, acc, fromUser := len(msgs), 0, 0
	for i := len(msgs) - 1; i >= 0 && seqs[i] >= 0; i-- {
		acc += llm.Scaled(llm.EstimateMessage(msgs[i]), t.lastScale)
		if i == lastUser {
			fromUser = acc
		}
		if acc <= budget && msgs[i].Role != llm.RoleTool {
			keepIdx = i
		}
	}
	switch {
	case keepIdx == 0 && (lastUser > 0 || lastUser == len(msgs)-1):
		// Everything fits the budget, yet the request passes the
		// threshold (or the user asked): summarize what is older than
		// the last user message.
		keepIdx = max(lastUser, 0)
	case keepIdx == 0:
		// A single exchange, its answer last (between turns): all of it.
		keepIdx = len(msgs)
	case lastUser >= 0 && keepIdx > lastUser && (w <= 0 || fromUser <= w*t.compactAt()/100-fixed-summaryTokens(w)):
		// The current turn alone passes the budget but fits below the
		// threshold: keep it whole, the user's message with it.
		keepIdx = lastUser
	case lastUser >= 0 && lastUser == len(msgs)-1:
		// The user's message is the last: it is what the model must
		// answer, never summarized.
		keepIdx = lastUser
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
