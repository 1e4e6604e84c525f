package acpbridge

import (
	"bytes"
	"encoding/json"

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
// written: an editor knows the session only then), after session/load's
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

// sendCommands sends s's available_commands_update, if it has commands.
func (b *bridge) sendCommands(s Session) {
	if u, ok := commandsUpdate(s); ok {
		b.send(s.ID(), u)
	}
}

// sendCommandsAfterResponse sends s's available_commands_update right after
// the response that names the session (session/new's) is written: the SDK
// writes a response once its handler has returned.
func (b *bridge) sendCommandsAfterResponse(s Session) {
	u, ok := commandsUpdate(s)
	if !ok {
		return
	}
	line, err := updateLine(s.ID(), u)
	if err != nil {
		b.log.Debug("session update not sent", "session", s.ID(), "error", err)
		return
	}
	sid, _ := json.Marshal(s.ID())
	b.out.after(append([]byte(`"sessionId":`), sid...), line)
}

// after writes line right after the next response written that contains
// key (a response: a message with an id and no method). A line whose
// response never comes is dropped at the next Serve; there is one per
// session opened.
func (l *lockedWriter) after(key, line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, pendingLine{key: key, line: line})
}

// pendingLine is a line waiting for the response that contains key.
type pendingLine struct{ key, line []byte }

// flushAfterLocked writes the pending lines whose response p is.
func (l *lockedWriter) flushAfterLocked(p []byte) {
	if len(l.pending) == 0 || bytes.Contains(p[:min(len(p), 64)], []byte(`"method"`)) || !bytes.Contains(p, []byte(`"result"`)) {
		return
	}
	kept := l.pending[:0]
	for _, pl := range l.pending {
		if bytes.Contains(p, pl.key) {
			l.w.Write(pl.line)
			continue
		}
		kept = append(kept, pl)
	}
	l.pending = kept
}
