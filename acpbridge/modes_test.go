package acpbridge

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// modeAgent is a fakeAgent whose sessions have modes, kept across
// connections as a log would keep them.
type modeAgent struct {
	*fakeAgent
	mu    sync.Mutex
	modes map[string]string
}

type modeSession struct {
	*fakeSession
	a *modeAgent
}

func (s modeSession) Mode() string {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	if m := s.a.modes[s.id]; m != "" {
		return m
	}
	return "ask"
}

func (s modeSession) SetMode(_ context.Context, id string) error {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	s.a.modes[s.id] = id
	return nil
}

func (a *modeAgent) NewSession(ctx context.Context, cwd string) (Session, error) {
	s, err := a.fakeAgent.NewSession(ctx, cwd)
	if err != nil {
		return nil, err
	}
	return modeSession{s.(*fakeSession), a}, nil
}

func (a *modeAgent) OpenSession(ctx context.Context, id string) (Session, error) {
	s, err := a.fakeAgent.OpenSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return modeSession{s.(*fakeSession), a}, nil
}

var testModes = []SessionMode{{ID: "read-only", Name: "Read-only", Description: "looks only"}, {ID: "ask", Name: "Ask"}}

type modeState struct {
	CurrentModeID  string `json:"currentModeId"`
	AvailableModes []struct {
		ID          string  `json:"id"`
		Name        string  `json:"name"`
		Description *string `json:"description"`
	} `json:"availableModes"`
}

// TestSessionModes: session/new and session/load answer the modes with
// the current one; set_mode switches (current_mode_update before its
// answer), refuses an unknown mode (-32602) and a session not open
// (-32002).
func TestSessionModes(t *testing.T) {
	t.Parallel()
	a := &modeAgent{fakeAgent: newFakeAgent(chatTurn("", "hi")), modes: map[string]string{}}
	c := serve(t, a, Options{Modes: testModes})
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	var created struct {
		SessionID string
		Modes     *modeState
	}
	c.call("session/new", map[string]any{"cwd": "/work", "mcpServers": []any{}}, &created)
	if m := created.Modes; m == nil || m.CurrentModeID != "ask" || len(m.AvailableModes) != 2 ||
		m.AvailableModes[0].ID != "read-only" || m.AvailableModes[0].Name != "Read-only" ||
		m.AvailableModes[0].Description == nil || *m.AvailableModes[0].Description != "looks only" || m.AvailableModes[1].Description != nil {
		t.Fatalf("session/new modes = %+v", m)
	}
	id := created.SessionID

	m, _ := c.response(c.send("session/set_mode", map[string]any{"sessionId": id, "modeId": "yolo"}))
	if m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("set_mode yolo answered %s, want -32602", m.raw)
	}
	m, _ = c.response(c.send("session/set_mode", map[string]any{"sessionId": "ghost", "modeId": "ask"}))
	if m.Error == nil || m.Error.Code != -32002 {
		t.Errorf("set_mode of a session not open answered %s, want -32002", m.raw)
	}

	from := c.len()
	m, i := c.response(c.send("session/set_mode", map[string]any{"sessionId": id, "modeId": "read-only"}))
	if m.Error != nil {
		t.Fatalf("set_mode read-only: %s", m.raw)
	}
	ups := c.updates(id, from, i)
	if len(ups) != 1 || ups[0].kind() != "current_mode_update" || string(ups[0].Update["currentModeId"]) != `"read-only"` {
		t.Errorf("updates before the set_mode answer: %+v, want one current_mode_update to read-only", ups)
	}
	c.call("session/close", map[string]any{"sessionId": id}, nil)

	var loaded struct{ Modes *modeState }
	c.call("session/load", map[string]any{"sessionId": id, "cwd": "/work", "mcpServers": []any{}}, &loaded)
	if loaded.Modes == nil || loaded.Modes.CurrentModeID != "read-only" {
		t.Errorf("session/load modes = %+v, want current read-only", loaded.Modes)
	}
	c.call("session/close", map[string]any{"sessionId": id}, nil)
	var resumed struct{ Modes *modeState }
	c.call("session/resume", map[string]any{"sessionId": id, "cwd": "/work"}, &resumed)
	if resumed.Modes == nil || resumed.Modes.CurrentModeID != "read-only" {
		t.Errorf("session/resume modes = %+v, want current read-only", resumed.Modes)
	}
}

// TestNoModes: without Options.Modes the answers carry no modes and
// set_mode is not served.
func TestNoModes(t *testing.T) {
	t.Parallel()
	a := &modeAgent{fakeAgent: newFakeAgent(chatTurn("", "hi")), modes: map[string]string{}}
	c := serve(t, a, Options{})
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	var created map[string]json.RawMessage
	c.call("session/new", map[string]any{"cwd": "/work", "mcpServers": []any{}}, &created)
	if _, ok := created["modes"]; ok {
		t.Errorf("session/new answered modes without any configured: %s", created["modes"])
	}
	var id string
	json.Unmarshal(created["sessionId"], &id)
	m, _ := c.response(c.send("session/set_mode", map[string]any{"sessionId": id, "modeId": "ask"}))
	if m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("set_mode answered %s, want -32601", m.raw)
	}
}
