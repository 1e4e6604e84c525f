package main

import (
	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
)

// Commands implements acpbridge.Commander: the host's slash commands
// (engine.Commands); a prompt that starts with one runs it (engine's
// Runtime.Prompt).
func (s *acpSession) Commands() []acpbridge.Command {
	var out []acpbridge.Command
	for _, c := range engine.Commands() {
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
