package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/host/tool"
)

// runCalls runs the step's tool calls group by group, recording results in
// model order. It returns a failed append; on cancellation it returns nil
// and leaves the calls it did not resolve to endStep.
func (t *turn) runCalls(ctx context.Context, st *step) error {
	for lo := 0; lo < len(st.calls); {
		hi := lo + 1
		if t.safe(st, lo) {
			for hi < len(st.calls) && t.safe(st, hi) {
				hi++
			}
		}
		if err := t.runGroup(ctx, st, lo, hi); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		lo = hi
	}
	return nil
}

// safe reports whether call i may run together with its neighbours.
func (t *turn) safe(st *step, i int) bool {
	tool, ok := st.tools[st.calls[i].Name]
	return ok && tool.ConcurrencySafe
}

// unknownTool is the result of a call of a tool the step does not list:
// why, when the step says (Unlisted), else that it is unknown.
func unknownTool(st *step, name string) string {
	if u, ok := st.set.(Unlisted); ok {
		if why, ok := u.Unlisted(name); ok {
			return "Error: " + why
		}
	}
	return fmt.Sprintf("Error: unknown tool %q", name)
}

// finished is a call's result as its goroutine reports it.
type finished struct {
	i int
	r tool.Result
}

// runGroup runs calls lo..hi-1 concurrently, at most maxParallel at once,
// and commits their results in model order as they become ready. Only this
// goroutine writes to the session.
func (t *turn) runGroup(ctx context.Context, st *step, lo, hi int) error {
	if _, ok := st.tools[st.calls[lo].Name]; !ok { // unknown: a group of one
		if ctx.Err() != nil {
			return nil
		}
		if err := t.appendCall(ctx, st, lo); err != nil {
			return err
		}
		return t.commit(st, lo, tool.Result{Content: unknownTool(st, st.calls[lo].Name), IsError: true})
	}

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan finished, hi-lo)
	ready := make([]*finished, hi-lo)
	next, commit, running := lo, lo, 0
	var fatal error
	for commit < hi {
		for fatal == nil && ctx.Err() == nil && next < hi && running < t.maxParallel {
			if err := t.appendCall(ctx, st, next); err != nil {
				fatal = err
				break
			}
			c := st.calls[next].ToolCall
			denied, err := t.approve(ctx, st, c, st.calls[next].sandbox)
			if err != nil {
				fatal = err
				break
			}
			if ctx.Err() != nil {
				break // cancelled while asking: endStep answers the call
			}
			running++
			if denied != nil {
				done <- finished{i: next, r: *denied} // buffered: never blocks
			} else {
				call := tool.Call{SessionID: t.s.ID(), Turn: t.n, Step: st.k,
					CallID: c.ID, Name: c.Name, Args: c.Arguments, Cwd: t.s.Cwd(), Plugin: st.tools[c.Name].Plugin,
					Sandbox: st.calls[next].sandbox}
				if tp, ok := t.live.(ToolProgress); ok {
					sid, id := call.SessionID, c.ID
					call.Progress = func(text string) { tp.ToolProgress(sid, id, text) }
				}
				if ts, ok := t.live.(ToolStart); ok {
					ts.ToolStart(call.SessionID, c.ID)
				}
				go t.call(callCtx, st.set, next, call, done)
			}
			next++
		}
		if fatal != nil {
			cancel()
		}
		if running == 0 {
			break // nothing in flight and nothing more to start
		}
		f := <-done
		running--
		ready[f.i-lo] = &f
		if fatal != nil {
			continue // drain: results after a failed append are not recorded
		}
		for commit < next && ready[commit-lo] != nil {
			r := ready[commit-lo].r
			if ctx.Err() != nil { // cancelled before this result was recorded
				r = tool.Result{Content: cancelledResult, IsError: true}
			}
			if err := t.commit(st, commit, r); err != nil {
				fatal = err
				break
			}
			commit++
		}
	}
	return fatal
}

// approve asks whether call c may run when its tool needs permission, and
// logs the decision. It returns the result to record instead of running the
// call when the call is rejected, and a failed append. When ctx ends while
// asking, it returns nil, nil; the caller checks ctx.
func (t *turn) approve(ctx context.Context, st *step, c llm.ToolCall, sb *event.CallSandbox) (*tool.Result, error) {
	tl := st.tools[c.Name]
	if !tl.NeedsPermission || t.l.Approver == nil {
		return nil, nil
	}
	// The approver sees the recorded "always" answers and decides whether
	// they cover the call, after its deny rules: an answer about one
	// command never lets a forbidden one through.
	req := ApprovalRequest{SessionID: t.s.ID(), Turn: t.n, Step: st.k,
		CallID: c.ID, Tool: c.Name, Kind: tl.Kind, MCP: tl.MCP, Args: c.Arguments, Always: t.s.Always(c.Name), Sandbox: sb}
	if tl.MCP != nil {
		req.ToolTitle = tl.Title // "server: title"; the raw name stays in Tool
	}
	a, err := t.l.Approver.Approve(ctx, req)
	if ctx.Err() != nil {
		return nil, nil
	}
	if err != nil {
		t.log.Warn("permission check failed", "session", t.s.ID(), "tool", c.Name, "call", c.ID, "error", err)
		a = Approval{Decision: event.RejectOnce, Source: event.SourceError, Reason: "permission check failed: " + shorten.OneLine(err.Error())}
	}
	if err := t.append(event.Permission{Turn: t.n, Step: st.k, CallID: c.ID, Tool: c.Name,
		Decision: a.Decision, Source: a.Source, Scope: a.Scope, Kind: a.Kind}); err != nil {
		return nil, err
	}
	if a.Decision.Allows() {
		return nil, nil
	}
	reason := a.Reason
	if reason == "" {
		reason = "permission denied by user"
	}
	return &tool.Result{Content: "Error: " + reason, IsError: true}, nil
}

// call runs call i on the step's tool set and reports on done. A
// panicking tool becomes an error result. It touches neither the session
// nor the step.
func (t *turn) call(ctx context.Context, set Step, i int, c tool.Call, done chan<- finished) {
	f := finished{i: i}
	defer func() {
		if v := recover(); v != nil {
			t.log.Error("tool panicked", "tool", c.Name, "call", c.CallID, "panic", v, "stack", string(debug.Stack()))
			f.r = tool.Result{Content: fmt.Sprintf("Error: tool %q failed: %v", c.Name, v), IsError: true}
		}
		done <- f
	}()
	f.r = set.Call(ctx, c)
}

// commit records call i's result: the events it proposed, then tool/result.
// A proposed event the session rejects turns the result into an error.
func (t *turn) commit(st *step, i int, r tool.Result) error {
	for _, e := range r.Events {
		if err := t.appendEmitted(e); err != nil {
			t.log.Warn("tool event rejected", "session", t.s.ID(), "tool", st.calls[i].Name,
				"call", st.calls[i].ID, "type", e.Type, "error", err)
			r = tool.Result{Content: fmt.Sprintf("Error: the host rejected the %q event of this call: %s", e.Type, shorten.OneLine(err.Error())), IsError: true}
			break
		}
	}
	content := r.Content
	if r.IsError && !strings.HasPrefix(content, "Error:") {
		content = "Error: " + content
	}
	st.calls[i].images = loggedImages(r.Blocks)
	return t.appendResult(st, i, content, r.IsError, r.Meta)
}

// loggedImages are the images of a result's blocks whose bytes are stored
// as blobs, as the tool/result records them: hash and type, never bytes.
func loggedImages(bs []tool.Block) []event.Content {
	var out []event.Content
	for _, b := range bs {
		if b.Kind == tool.BlockImage && b.Blob != "" {
			out = append(out, event.Content{Type: event.ContentImage, MimeType: b.MIMEType, Blob: b.Blob, URI: b.URI})
		}
	}
	return out
}

// appendEmitted appends an event a tool proposed. The loop's own structural
// and surface types are refused before they reach the session.
func (t *turn) appendEmitted(e tool.Emitted) error {
	switch e.Type {
	case event.TypeTurnStart, event.TypeTurnEnd, event.TypeStepStart, event.TypeStepEnd,
		event.TypeUserMessage, event.TypeAssistantMessage, event.TypeToolCall, event.TypeToolResult:
		return fmt.Errorf("tools may not propose %s events", e.Type)
	case "":
		return errors.New("the event has no type")
	}
	if p, ok := e.Proposed(); ok { // checked by its source (the toolbox)
		_, err := t.s.AppendProposed(p)
		return err
	}
	_, err := t.s.AppendRaw(e.Type, e.Data) // unchecked: the session checks it
	return err
}

// appendCall appends call i's tool/call, with the tool's kind and what
// the toolbox's preview says the call would do.
func (t *turn) appendCall(ctx context.Context, st *step, i int) error {
	c := &st.calls[i]
	if t.log.IsDebug() {
		t.log.Debug("tool call", "session", t.s.ID(), "turn", t.n, "step", st.k, "tool", c.Name, "call", c.ID)
	}
	ev := event.ToolCall{Turn: t.n, Step: st.k, CallID: c.ID, Name: c.Name, Args: c.Arguments}
	if tl, ok := st.tools[c.Name]; ok {
		ev.Plugin, ev.MCP, ev.Kind = tl.Plugin, tl.MCP, tl.Kind
		if t.l.Sandbox != nil {
			ev.Sandbox = t.l.Sandbox(tl, t.s.ID(), t.s.Cwd(), c.Arguments)
			c.sandbox = ev.Sandbox
		}
		if ctx.Err() == nil {
			m := st.set.Preview(ctx, tool.Call{SessionID: t.s.ID(), Turn: t.n, Step: st.k, CallID: c.ID,
				Name: c.Name, Args: c.Arguments, Cwd: t.s.Cwd(), Plugin: tl.Plugin})
			m = capMeta(m)
			ev.Title, ev.Locations, ev.Diffs = m.Title, m.Locations, m.Diffs
			c.preview = ev.Diffs
		}
	}
	if err := t.append(ev); err != nil {
		return err
	}
	c.logged = true
	return nil
}

// appendResult appends call i's tool/result, with what the tool said it
// did; diffs equal to the preview's are not logged twice.
func (t *turn) appendResult(st *step, i int, content string, isError bool, m tool.Meta) error {
	c := &st.calls[i]
	m = capMeta(m)
	if slices.Equal(m.Diffs, c.preview) {
		m.Diffs = nil
	}
	if err := t.append(event.ToolResult{Turn: t.n, Step: st.k, CallID: c.ID, Content: content, IsError: isError,
		Title: m.Title, Locations: m.Locations, Diffs: m.Diffs, Images: c.images}); err != nil {
		return err
	}
	c.resolved = true
	return nil
}

// Bounds of what a tool's Meta puts in the log: a diff whose texts
// together exceed maxDiffBytes is left out (the title and locations still
// say which file changed), and so are locations past maxLocations.
const (
	maxDiffBytes = 1 << 20
	maxDiffs     = 16
	maxLocations = 100
	maxTitle     = 500
)

// capMeta bounds m for the log.
func capMeta(m tool.Meta) tool.Meta {
	m.Title = shorten.OneLine(m.Title)
	if r := []rune(m.Title); len(r) > maxTitle {
		m.Title = string(r[:maxTitle-1]) + "…"
	}
	if len(m.Locations) > maxLocations {
		m.Locations = m.Locations[:maxLocations]
	}
	var diffs []event.Diff
	for _, d := range m.Diffs {
		if len(d.OldText)+len(d.NewText) <= maxDiffBytes && len(diffs) < maxDiffs {
			diffs = append(diffs, d)
		}
	}
	m.Diffs = diffs
	return m
}
