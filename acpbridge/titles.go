package acpbridge

import (
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/host/event"
)

// Titled is a Session with a title (harness: its first prompt, shortened;
// derived from the log, so it survives reloads). The bridge sends it as
// session_info_update {title, updatedAt} once the session's first
// user/message is logged, and after session/load's replay; session/list
// carries the same title (SessionInfo.Title).
type Titled interface {
	// Title is the session's title now; empty before the first prompt.
	Title() string
}

// infoUpdate is the session_info_update of s's title as of at; false when
// s has no title.
func infoUpdate(s Session, at time.Time) (acp.SessionUpdate, bool) {
	t, ok := s.(Titled)
	if !ok {
		return acp.SessionUpdate{}, false
	}
	title := t.Title()
	if title == "" {
		return acp.SessionUpdate{}, false
	}
	u := &acp.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: acp.Ptr(title)}
	if !at.IsZero() {
		u.UpdatedAt = acp.Ptr(at.UTC().Format(time.RFC3339Nano))
	}
	return acp.SessionUpdate{SessionInfoUpdate: u}, true
}

// prompted reports whether evs hold a user/message.
func prompted(evs []event.Event) bool {
	for _, ev := range evs {
		if ev.Type == event.TypeUserMessage {
			return true
		}
	}
	return false
}

// toolMeta is the _meta of a call's tool_call: for an MCP server's tool,
// whose title is the server's name and its title for the tool ("server:
// title", tool.Tool.Title), {"harness": {"tool": "mcp__server__tool",
// "mcpServer": "server"}}, the raw name the model called and the log
// records; nil for any other tool, whose title is its own.
func toolMeta(c event.ToolCall) map[string]any {
	if c.MCP == nil {
		return nil
	}
	return map[string]any{"harness": map[string]any{"tool": c.Name, "mcpServer": c.MCP.Name}}
}
