package acpbridge

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// watchAgent's sessions have commands that change (CommandWatcher).
type watchAgent struct {
	*fakeAgent
	mu      sync.Mutex
	cmds    []Command
	changed func()
}

func (h *watchAgent) NewSession(ctx context.Context, cwd string) (Session, error) {
	s, err := h.fakeAgent.NewSession(ctx, cwd)
	if err != nil {
		return nil, err
	}
	return &watchSession{fakeSession: s.(*fakeSession), h: h}, nil
}

type watchSession struct {
	*fakeSession
	h *watchAgent
}

func (s *watchSession) Commands() []Command {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return append([]Command(nil), s.h.cmds...)
}

func (s *watchSession) WatchCommands(changed func()) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	s.h.changed = changed
}

// TestCommandsChange: a session whose commands change (an MCP server's
// prompts once it is up) sends available_commands_update again, with the
// whole new list, each time it says so.
func TestCommandsChange(t *testing.T) {
	t.Parallel()
	h := &watchAgent{fakeAgent: newFakeAgent(chatTurn("", "hi")), cmds: []Command{{Name: "compact", Description: "Compact"}}}
	c := serve(t, h, Options{})
	c.newSession()
	names := func(from int) []string {
		i := c.wait(from, "available_commands_update", func(m wireMsg) bool {
			return m.Method == "session/update" && strings.Contains(string(m.Params), `"available_commands_update"`)
		})
		var p struct {
			Update struct {
				AvailableCommands []struct{ Name string } `json:"availableCommands"`
			} `json:"update"`
		}
		json.Unmarshal(c.at(i).Params, &p)
		var out []string
		for _, x := range p.Update.AvailableCommands {
			out = append(out, x.Name)
		}
		return out
	}
	if got := names(0); len(got) != 1 || got[0] != "compact" {
		t.Fatalf("first list = %v", got)
	}
	h.mu.Lock()
	changed := h.changed
	h.cmds = append(h.cmds, Command{Name: "srv:greet", Description: "MCP prompt of srv", Hint: "name"})
	h.mu.Unlock()
	if changed == nil {
		t.Fatal("the bridge did not watch the session's commands")
	}
	from := c.len()
	changed()
	if got := names(from); len(got) != 2 || got[1] != "srv:greet" {
		t.Errorf("list after the change = %v", got)
	}
}
