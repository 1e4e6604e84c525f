package acpagent

import (
	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/slash"
)

// Commands implements acpbridge.Commander: the host's slash commands
// (slash.Commands); a prompt that starts with one runs it (engine's
// Runtime.Prompt).
func (s *acpSession) Commands() []acpbridge.Command {
	var out []acpbridge.Command
	for _, c := range slash.Commands() {
		out = append(out, acpbridge.Command{Name: c.Name, Description: c.Description, Hint: c.Hint})
	}
	return out
}

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
