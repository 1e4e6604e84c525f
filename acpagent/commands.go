package acpagent

import (
	"cmp"
	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/slash"
)

// Commands implements acpbridge.Commander: the host's slash commands
// (slash.Commands), then the prompts of the session's MCP servers that
// are up (/server:prompt); a prompt that starts with one runs it
// (engine's Runtime.Prompt).
func (s *acpSession) Commands() []acpbridge.Command {
	var out []acpbridge.Command
	for _, c := range slash.Commands() {
		out = append(out, acpbridge.Command{Name: c.Name, Description: c.Description, Hint: c.Hint})
	}
	for _, p := range s.h.MCPPrompts(s.ID()) { // /server:prompt
		desc := "MCP prompt of " + p.Server
		if d := cmp.Or(p.Description, p.Title); d != "" {
			desc += ": " + d
		}
		out = append(out, acpbridge.Command{Name: p.Command(), Description: desc, Hint: p.Hint()})
	}
	return out
}

// WatchCommands implements acpbridge.CommandWatcher: the commands change
// as the session's MCP servers come up and their prompts change.
func (s *acpSession) WatchCommands(changed func()) { s.h.WatchMCPPrompts(s.ID(), changed) }

// Title implements acpbridge.Titled: the first prompt, shortened
// (session.Title), as session/list shows it; derived from the log.
func (s *acpSession) Title() string {
	for _, ev := range s.Events() {
		if ev.Type != event.TypeUserMessage {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			return ""
		}
		return session.Title(p.(event.UserMessage).Content)
	}
	return ""
}

// DefaultTakesImages is initialize's promptCapabilities.image: the default
// model (the first) takes images.
func DefaultTakesImages(models []llm.ModelInfo) bool {
	return len(models) > 0 && models[0].Images
}

// invalidPrompt is a prompt the engine refused before running anything, as
// the bridge knows it (-32602).
type invalidPrompt struct{ error }

func (e invalidPrompt) Is(target error) bool { return target == acpbridge.ErrInvalidPrompt }
