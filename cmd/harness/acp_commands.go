package main

import (
	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
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
