package acpbridge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// dirsAgent is a fakeAgent that takes additionalDirectories: it refuses
// a folder named /bad (as the real one refuses a missing folder) and
// records each session's folders.
type dirsAgent struct {
	*fakeAgent
	mu   sync.Mutex
	dirs map[string][]string // by session id; a set list, nil when none
	sets int
}

func (a *dirsAgent) NewSessionWithDirs(ctx context.Context, cwd string, dirs []string) (Session, error) {
	if slices.Contains(dirs, "/bad") {
		return nil, fmt.Errorf("added folder /bad does not exist: %w", ErrInvalidDirs)
	}
	s, err := a.NewSession(ctx, cwd)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.dirs[s.ID()] = dirs
	a.mu.Unlock()
	return dirsSession{s.(*fakeSession), a}, nil
}

func (a *dirsAgent) OpenSession(ctx context.Context, id string) (Session, error) {
	s, err := a.fakeAgent.OpenSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return dirsSession{s.(*fakeSession), a}, nil
}

type dirsSession struct {
	*fakeSession
	a *dirsAgent
}

func (s dirsSession) SetAdditionalDirectories(_ context.Context, dirs []string) error {
	if slices.Contains(dirs, "/bad") {
		return fmt.Errorf("added folder /bad does not exist: %w", ErrInvalidDirs)
	}
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	s.a.dirs[s.id], s.a.sets = dirs, s.a.sets+1
	return nil
}

// TestAdditionalDirectories: the capability is advertised only by an
// agent that takes the folders; session/new hands them to it, session/load
// and resume set the complete list (none when omitted); a relative
// folder, one the agent refuses, and any folder for an agent that takes
// none are -32602 naming the folder, and no session is made.
func TestAdditionalDirectories(t *testing.T) {
	t.Parallel()
	a := &dirsAgent{fakeAgent: newFakeAgent(chatTurn("", "hi")), dirs: map[string][]string{}}
	c := serve(t, a, Options{})
	m, _ := c.response(c.send("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	if !strings.Contains(string(m.Result), `"sessionCapabilities":{"additionalDirectories":{},`) {
		t.Errorf("initialize does not advertise additionalDirectories: %s", m.Result)
	}
	cwd := t.TempDir()
	refused := []struct {
		name   string
		method string
		params map[string]any
		msg    string
	}{
		{"relative", "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "additionalDirectories": []string{"src"}}, `additional directory "src" is not an absolute path`},
		{"refused by the agent", "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "additionalDirectories": []string{"/ok", "/bad"}}, "added folder /bad does not exist"},
	}
	for _, tc := range refused {
		m, _ := c.response(c.send(tc.method, tc.params))
		if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, tc.msg) {
			t.Errorf("%s: %+v, want -32602 naming %q", tc.name, m.Error, tc.msg)
		}
	}
	a.fakeAgent.mu.Lock()
	n := len(a.sessions)
	a.fakeAgent.mu.Unlock()
	if n != 0 {
		t.Errorf("%d sessions made by refused requests", n)
	}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	c.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "additionalDirectories": []string{"/srv/a"}}, &created)
	a.mu.Lock()
	got := a.dirs[created.SessionID]
	a.mu.Unlock()
	if !slices.Equal(got, []string{"/srv/a"}) {
		t.Errorf("session/new gave the agent %q, want [/srv/a]", got)
	}
	c.call("session/close", map[string]any{"sessionId": created.SessionID}, nil)

	c2 := serve(t, a, Options{})
	for _, tc := range []struct {
		method string
		dirs   []string
		want   []string
		msg    string
	}{
		{method: "session/load", dirs: []string{"rel"}, msg: `additional directory "rel" is not an absolute path`},
		{method: "session/load", dirs: []string{"/srv/b", filepath.Join("/srv", "c")}, want: []string{"/srv/b", "/srv/c"}},
		{method: "session/resume", dirs: []string{"/bad"}, msg: "added folder /bad does not exist"},
		{method: "session/resume", want: nil},
	} {
		params := map[string]any{"sessionId": created.SessionID, "cwd": cwd, "mcpServers": []any{}}
		if tc.dirs != nil {
			params["additionalDirectories"] = tc.dirs
		}
		m, _ := c2.response(c2.send(tc.method, params))
		if tc.msg != "" {
			if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, tc.msg) {
				t.Errorf("%s %q: %+v, want -32602 naming %q", tc.method, tc.dirs, m.Error, tc.msg)
			}
			continue
		}
		if m.Error != nil {
			t.Fatalf("%s %q: %+v", tc.method, tc.dirs, m.Error)
		}
		a.mu.Lock()
		got := a.dirs[created.SessionID]
		a.mu.Unlock()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: the session's folders are %q, want %q", tc.method, tc.dirs, got, tc.want)
		}
	}

	// An agent that takes no folders does not advertise them and refuses them.
	plain := serve(t, newFakeAgent(chatTurn("", "hi")), Options{})
	m, _ = plain.response(plain.send("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "additionalDirectories": []string{"/srv/a"}}))
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "additionalDirectories is not supported") {
		t.Errorf("an agent without folders: %+v, want -32602", m.Error)
	}
}
