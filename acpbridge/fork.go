package acpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"
)

// ForkSession serves session/fork (unstable in ACP; a ForkAgent's): the
// agent makes a new session with the history of p.SessionId up to its
// last closed turn, which is opened on this connection with the MCP
// servers and folders given, and answered as session/new is: its id,
// modes and config options. The source session may be open here, even
// running a turn; it is not touched. The fork keeps its source's cwd; a
// different p.Cwd is noted in the log.
func (b *bridge) ForkSession(ctx context.Context, p acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error) {
	fa := b.agent.(ForkAgent) // route serves the method only then
	if !filepath.IsAbs(p.Cwd) {
		return acp.UnstableForkSessionResponse{}, invalidParams(fmt.Errorf("cwd %q is not an absolute path", p.Cwd))
	}
	if err := b.checkDirs(p.AdditionalDirectories); err != nil {
		return acp.UnstableForkSessionResponse{}, err
	}
	var servers []acp.McpServer
	if err := sameJSON(p.McpServers, &servers); err != nil {
		return acp.UnstableForkSessionResponse{}, invalidParams(fmt.Errorf("mcpServers: %w", err))
	}
	b.openMu.Lock()
	defer b.openMu.Unlock()
	s, err := fa.ForkSession(ctx, string(p.SessionId))
	if err != nil {
		if errors.Is(err, ErrSessionNotFound) || errors.Is(err, ErrAuthRequired) {
			return acp.UnstableForkSessionResponse{}, openError(string(p.SessionId), err)
		}
		return acp.UnstableForkSessionResponse{}, internal("fork session "+quote(string(p.SessionId)), err)
	}
	if filepath.Clean(p.Cwd) != s.Cwd() {
		b.log.Info("session forked from another directory; the fork keeps its source's", "session", s.ID(), "cwd", s.Cwd(), "asked", p.Cwd)
	}
	b.connectMCP(ctx, s, servers)
	ls := newLiveSession(s)
	b.mu.Lock()
	b.sessions[s.ID()] = ls
	b.mu.Unlock()
	if err := b.setDirs(ctx, s, p.AdditionalDirectories); err != nil {
		return acp.UnstableForkSessionResponse{}, err
	}
	b.log.Debug("session forked", "session", s.ID(), "from", p.SessionId)
	resp := acp.UnstableForkSessionResponse{SessionId: acp.SessionId(s.ID()), Modes: b.modeState(s)}
	if err := sameJSON(configOptions(s), &resp.ConfigOptions); err != nil {
		return acp.UnstableForkSessionResponse{}, internal("describe the config options of session "+quote(s.ID()), err)
	}
	return resp, nil
}

// sameJSON copies from into to, a type of the same JSON shape (the SDK's
// unstable twins of its stable types).
func sameJSON(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
