package engine

import (
	"context"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/slash"
)

// Prompt runs what the user typed in s: a slash command of slash.Commands
// (slash.ParseCommand) runs the command — /compact compacts the history
// and never reaches the model as user text; /init runs a turn on
// slash.InitPrompt — and anything else is a turn on prompt as is ([Runtime.Run]).
func (r *Runtime) Prompt(ctx context.Context, s *session.Session, loop *agent.Loop, prompt []event.Content, live agent.Live, asker permission.Asker) agent.Outcome {
	name, args, ok := slash.ParseCommand(prompt)
	if !ok {
		return r.Run(ctx, s, loop, prompt, live, asker)
	}
	switch name {
	case slash.CommandCompact:
		return r.Compact(ctx, s, loop, live)
	case slash.CommandInit:
		text := slash.InitPrompt
		if args != "" {
			text += "\n\nThe user adds: " + args
		}
		p := append(event.Text(text), prompt[1:]...)
		return r.Run(ctx, s, loop, p, live, asker)
	}
	return r.Run(ctx, s, loop, prompt, live, asker)
}
