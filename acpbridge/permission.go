package acpbridge

import (
	"context"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
)

// Asker is implemented by the Live the bridge hands to Session.Prompt: the
// host asks the editor about a tool call through it.
type Asker interface {
	// AskPermission asks the user, with session/request_permission, whether
	// call callID of tool may run; title names the call (a subagent's call
	// says which subagent). The call's tool_call update has gone out before
	// the request. always says what an "always" answer covers ("`git
	// status …`", or the tool's name); "" offers no "always" options (the
	// host cannot scope one). A request the editor answers "cancelled"
	// returns context.Canceled: the turn is being cancelled.
	AskPermission(ctx context.Context, callID, tool, title, always string) (event.Decision, error)
}

// permissionOptions are the options offered for a request, in ACP's four
// kinds (two when always is ""); their ids are the event.Decision values,
// and the "always" ones name what they cover.
func permissionOptions(always string) []acp.PermissionOption {
	if always == "" {
		return []acp.PermissionOption{
			{OptionId: "allow_once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "reject_once", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		}
	}
	return []acp.PermissionOption{
		{OptionId: "allow_once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: "allow_always", Name: "Always allow " + always, Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: "reject_once", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		{OptionId: "reject_always", Name: "Always reject " + always, Kind: acp.PermissionOptionKindRejectAlways},
	}
}

// AskPermission implements Asker.
func (ts *turnStream) AskPermission(ctx context.Context, callID, tool, title, always string) (event.Decision, error) {
	ts.mu.Lock()
	ts.catchUpLocked() // the tool_call update goes out first
	req := acp.RequestPermissionRequest{
		SessionId: acp.SessionId(ts.sess.ID()),
		Options:   permissionOptions(always),
		ToolCall:  acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(callID)},
	}
	// The question carries what the call's tool_call shows: its title,
	// kind, input, files, diff and _meta (an MCP tool's raw name), so
	// that an editor that shows the question alone still shows what is
	// being allowed.
	if c := ts.tr.open[callID]; c != nil {
		req.ToolCall.Title = acp.Ptr(c.Title)
		req.ToolCall.Kind = acp.Ptr(c.Kind)
		req.ToolCall.RawInput = c.RawInput
		req.ToolCall.Locations = c.Locations
		req.ToolCall.Content = c.Content
		req.ToolCall.Meta = c.Meta
	}
	ts.mu.Unlock()
	if title != "" {
		req.ToolCall.Title = &title
	}
	var resp acp.RequestPermissionResponse
	if err := ts.b.conn.Call(ctx, acp.ClientMethodSessionRequestPermission, req, &resp); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("ask the editor about %s: %w", tool, err)
	}
	switch o := resp.Outcome; {
	case o.Cancelled != nil:
		return "", context.Canceled
	case o.Selected != nil:
		switch d := event.Decision(o.Selected.OptionId); d {
		case event.AllowOnce, event.RejectOnce:
			return d, nil
		case event.AllowAlways, event.RejectAlways:
			if always != "" { // an option we offered
				return d, nil
			}
		}
		return "", fmt.Errorf("ask the editor about %s: it chose an unknown option %q", tool, o.Selected.OptionId)
	}
	return "", fmt.Errorf("ask the editor about %s: no outcome in its answer", tool)
}

// ToolStart implements agent.ToolStart: the call runs, so it shows
// in_progress (it was pending while it awaited approval).
func (ts *turnStream) ToolStart(_, callID string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.catchUpLocked()
	for _, u := range ts.tr.start(callID) {
		ts.b.send(ts.sess.ID(), u)
	}
}

// maxProgress caps the live output shown on a running tool call.
const maxProgress = 16 << 10

// ToolProgress shows a tool's live output on its call in the editor: each
// update carries the tail of the output so far (ACP replaces a call's
// content with each update). It is not logged; the final tool_call_update
// carries the result.
func (ts *turnStream) ToolProgress(_, callID, text string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.catchUpLocked()
	if ts.progress == nil {
		ts.progress = make(map[string]*strings.Builder)
	}
	b := ts.progress[callID]
	if b == nil {
		b = &strings.Builder{}
		ts.progress[callID] = b
	}
	b.WriteString(text)
	if b.Len() > 2*maxProgress { // keep the tail, bounded
		tail := b.String()[b.Len()-maxProgress:]
		b.Reset()
		b.WriteString(tail)
	}
	shown := b.String()
	if len(shown) > maxProgress {
		shown = "…" + shown[len(shown)-maxProgress:]
	}
	ts.b.send(ts.sess.ID(), acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{
		ToolCallId: acp.ToolCallId(callID),
		Content:    []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(strings.ToValidUTF8(shown, "")))},
	}})
}
