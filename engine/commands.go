package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/slash"
)

// Prompt runs what the user typed in s: a slash command of slash.Commands
// (slash.ParseCommand) runs the command — /compact compacts the history
// and never reaches the model as user text; /init runs a turn on
// slash.InitPrompt; /<server>:<prompt> runs a turn on what the session's
// MCP server's prompt gives (mcpclient.Set.GetPrompt: the text after the
// command is its arguments), the prompt's other blocks after it — and
// anything else is a turn on prompt as is ([Runtime.Run]).
func (r *Runtime) Prompt(ctx context.Context, s *session.Session, loop *agent.Loop, prompt []event.Content, live agent.Live, asker permission.Asker) agent.Outcome {
	name, args, ok := slash.ParseCommand(prompt)
	if !ok {
		if p, ok, err := r.mcpPrompt(ctx, s, prompt); ok {
			if err != nil {
				return agent.Outcome{Reason: event.ReasonError, Err: err}
			}
			return r.Run(ctx, s, loop, p, live, asker)
		}
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

// mcpPrompt is the prompt a "/<server>:<prompt> args" of s's MCP servers
// gives, followed by prompt's other blocks; ok is false when prompt does
// not start with one. Images in it reach a model that takes images; for
// one that takes none each is named in text.
func (r *Runtime) mcpPrompt(ctx context.Context, s *session.Session, prompt []event.Content) ([]event.Content, bool, error) {
	word, args, ok := slash.ParseWord(prompt)
	if !ok || !strings.Contains(word, ":") {
		return nil, false, nil
	}
	set, _ := r.mcp.of(s.ID())
	if _, ok := set.LookupPrompt(word); !ok {
		return nil, false, nil
	}
	content, err := set.GetPrompt(ctx, word, args)
	if err != nil {
		return nil, true, err
	}
	if m, _ := r.SessionModel(s); !m.Images {
		for i, c := range content {
			if c.Type == event.ContentImage {
				content[i] = event.Content{Type: event.ContentText, Text: fmt.Sprintf("[an %s image of /%s left out: model %s takes no images]", c.MimeType, word, m.Name)}
			}
		}
	}
	if len(content) == 0 {
		return nil, true, fmt.Errorf("/%s: the MCP server's prompt has no messages", word)
	}
	return append(content, prompt[1:]...), true, nil
}
