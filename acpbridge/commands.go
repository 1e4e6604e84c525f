package acpbridge

import (
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// Command is one slash command a session offers the editor's command menu.
type Command struct {
	// Name is what follows the slash; Description says what it does.
	Name, Description string
	// Hint, when set, describes the text the command takes after its name.
	Hint string
}

// Commander is a Session with slash commands. The bridge lists them in
// available_commands_update after session/new (once its response is
// written: an editor knows the session only then; see dispatch.go), after session/load's
// replay and on session/resume (before their responses). Running
// them is the Session's business: a prompt "/name …" reaches Prompt as
// typed.
type Commander interface {
	Commands() []Command
}

// commandsUpdate is the available_commands_update of s; false when s has no
// commands.
func commandsUpdate(s Session) (acp.SessionUpdate, bool) {
	c, ok := s.(Commander)
	if !ok {
		return acp.SessionUpdate{}, false
	}
	cmds := c.Commands()
	if len(cmds) == 0 {
		return acp.SessionUpdate{}, false
	}
	out := make([]acp.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := acp.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: c.Hint}}
		}
		out = append(out, ac)
	}
	return acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{
		SessionUpdate: "available_commands_update", AvailableCommands: out}}, true
}

// CommandWatcher is a Commander whose commands change while the session
// is open (its MCP servers' prompts, as servers come up). The bridge calls
// WatchCommands once, when it first sends the list, and sends
// available_commands_update again each time changed is called while the
// session is open.
type CommandWatcher interface {
	WatchCommands(changed func())
}

// commandsState orders a session's available_commands_updates (each is
// the whole list, so the last one sent must be the last one made) and
// watches its commands once.
type commandsState struct {
	mu    sync.Mutex
	watch sync.Once
}

// sendCommands sends s's available_commands_update, if it has commands,
// and, the first time, watches them (CommandWatcher).
func (b *bridge) sendCommands(s Session) {
	ls, ok := b.lookup(acp.SessionId(s.ID()))
	if !ok {
		return
	}
	if w, ok := s.(CommandWatcher); ok {
		ls.commands.watch.Do(func() {
			w.WatchCommands(func() {
				if cur, ok := b.lookup(acp.SessionId(s.ID())); ok && cur == ls {
					b.sendCommandsNow(ls)
				}
			})
		})
	}
	b.sendCommandsNow(ls)
}

func (b *bridge) sendCommandsNow(ls *liveSession) {
	ls.commands.mu.Lock()
	defer ls.commands.mu.Unlock()
	if u, ok := commandsUpdate(ls.s); ok {
		b.send(ls.s.ID(), u)
	}
}
