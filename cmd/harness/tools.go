package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// loopTools adapts the plugin toolbox to the loop's Toolbox interface.
type loopTools struct{ tb *toolbox.Toolbox }

// Tools implements agent.Toolbox.
func (a loopTools) Tools() []agent.Tool { return agentTools(a.tb.Tools()) }

func agentTools(list []toolbox.Tool) []agent.Tool {
	out := make([]agent.Tool, len(list))
	for i, t := range list {
		p := t.Plugin
		out[i] = agent.Tool{Spec: t.Spec, ConcurrencySafe: t.ConcurrencySafe, NeedsPermission: t.NeedsPermission, Plugin: &p}
	}
	return out
}

// HoldTools implements agent.ToolHolder: the processes the list names
// serve the step's calls until it releases them, across a hot reload.
func (a loopTools) HoldTools() ([]agent.Tool, func()) {
	list, release := a.tb.HoldTools()
	return agentTools(list), release
}

// Call implements agent.Toolbox.
func (a loopTools) Call(ctx context.Context, c agent.Call) agent.Result {
	r := a.tb.Call(ctx, toolbox.Call{
		SessionID: c.SessionID, Caller: pluginapi.CallerAgent, Turn: c.Turn,
		CallID: c.CallID, Name: c.Name, Args: c.Args, Cwd: c.Cwd, Plugin: c.Plugin,
	}, c.Progress)
	out := agent.Result{Content: r.Content, IsError: r.IsError}
	for _, e := range r.Events {
		out.Events = append(out.Events, agent.Emitted{Type: event.Type(e.Type), Data: e.Data})
	}
	return out
}

// openSessions is the set of sessions this process has open, by id: what
// HostServices answers plugins from. Every answer is projected from the
// session's log; nothing here holds state of its own.
type openSessions struct {
	mu sync.Mutex // guards m
	m  map[string]*session.Session
}

func (o *openSessions) add(s *session.Session) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = make(map[string]*session.Session)
	}
	o.m[s.ID()] = s
}

func (o *openSessions) remove(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, id)
}

func (o *openSessions) get(id string) (*session.Session, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.m[id]
	return s, ok
}

// hostServices answers plugins' calls back into the host.
type hostServices struct{ host *host }

// ReadState implements pluginapi.HostServices: the session's todo list and
// cwd, from its log.
func (h hostServices) ReadState(_ context.Context, req pluginapi.ReadStateRequest) (pluginapi.ReadStateResponse, error) {
	s, ok := h.host.sessions.get(req.SessionID)
	if !ok {
		return pluginapi.ReadStateResponse{}, fmt.Errorf("read state: no open session %q", req.SessionID)
	}
	resp := pluginapi.ReadStateResponse{Cwd: s.Cwd()}
	for _, t := range s.Todos() {
		resp.Todos = append(resp.Todos, pluginapi.Todo{Content: t.Content, Status: string(t.Status)})
	}
	return resp, nil
}

// startTools starts the plugins of the configured plugin dirs, and
// attaches to the plugins running in debug mode that
// $HARNESS_REATTACH_PLUGINS names.
func (h *host) startTools(ctx context.Context) error {
	dirs, err := h.cfg.pluginDirs()
	if err != nil {
		return err
	}
	reattach, err := pluginhost.ParseReattach(h.cfg.Reattach)
	if err != nil {
		return err // "parse HARNESS_REATTACH_PLUGINS: …"
	}
	tb, err := toolbox.Open(ctx, toolbox.Config{
		Dirs:        dirs,
		CacheDir:    filepath.Join(h.stateDir, "plugins", "cache"),
		Logger:      h.log.Named("toolbox"),
		HostVersion: versionString(),
		LogLevel:    h.cfg.LogLevel,
		StateDir:    h.stateDir,
		Host:        hostServices{host: h},
		Watch:       h.cfg.Watch,
		ReloadsFile: filepath.Join(h.stateDir, "plugins", "reloads.json"),
		Reattach:    reattach,
		PluginEnv:   h.cfg.pluginEnv(),
	})
	if err != nil {
		return fmt.Errorf("start plugins: %w", err)
	}
	h.tools = tb
	if h.subagents != nil {
		h.subagents.Tools = loopTools{tb}
	}
	return nil
}

// hasTool reports whether the plugins offer a tool named name.
func (h *host) hasTool(name string) bool {
	if h.tools == nil {
		return false
	}
	for _, t := range h.tools.Tools() {
		if t.Spec.Name == name {
			return true
		}
	}
	return false
}

// RequestPermission implements pluginapi.Permissions: a plugin's own
// question goes to whoever answers for the session's running turn (the
// editor or the terminal), through its policy. The answer holds for this
// request only; it is not logged (the loop logs its own checks).
func (h hostServices) RequestPermission(ctx context.Context, req pluginapi.PermissionRequest) (pluginapi.PermissionResponse, error) {
	ap, ok := h.host.approvers.get(req.SessionID)
	if !ok {
		return pluginapi.PermissionResponse{Reason: "no one to ask: session " + req.SessionID + " has no running turn"}, nil
	}
	a, err := ap.Approve(ctx, agent.ApprovalRequest{SessionID: req.SessionID, CallID: req.CallID,
		Tool: req.Tool, Args: string(req.Args), Title: req.Title})
	if err != nil {
		return pluginapi.PermissionResponse{}, err
	}
	reason := a.Reason
	if !a.Decision.Allows() && reason == "" {
		reason = "permission denied by user"
	}
	return pluginapi.PermissionResponse{Allowed: a.Decision.Allows(), Reason: reason}, nil
}
