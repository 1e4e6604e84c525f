package acpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// SessionMode is one mode a session can be in (ACP session modes); harness
// offers its permission modes.
type SessionMode struct {
	ID          string
	Name        string
	Description string
}

// ModeSession is a Session with a mode, one of Options.Modes. A Session
// that does not implement it, or a bridge without Options.Modes, has no
// modes: the responses carry none and session/set_mode is answered
// -32601.
type ModeSession interface {
	// Mode is the session's current mode id.
	Mode() string
	// SetMode switches the session to mode id, one of Options.Modes, and
	// records it; it may be called while a turn runs, and applies to what
	// the turn has not decided yet.
	SetMode(ctx context.Context, id string) error
}

// errModeUnavailable marks a mode the host refuses now (ModeUnavailable).
var errModeUnavailable = errors.New("mode unavailable")

// ModeUnavailable marks err, returned by ModeSession.SetMode, as the
// refusal of a known mode the host cannot hold now (harness's auto where
// the sandbox cannot hold it): the client gets -32602 with err's message,
// not an internal error, and the session keeps its mode.
func ModeUnavailable(err error) error { return unavailable{err} }

type unavailable struct{ error }

func (u unavailable) Unwrap() []error { return []error{u.error, errModeUnavailable} }

// modeState is the modes field of a session/new, load or resume answer;
// nil when the session has no modes.
func (b *bridge) modeState(s Session) *acp.SessionModeState {
	ms, ok := s.(ModeSession)
	if !ok || len(b.opts.Modes) == 0 {
		return nil
	}
	st := &acp.SessionModeState{CurrentModeId: acp.SessionModeId(ms.Mode()), AvailableModes: make([]acp.SessionMode, len(b.opts.Modes))}
	for i, m := range b.opts.Modes {
		st.AvailableModes[i] = acp.SessionMode{Id: acp.SessionModeId(m.ID), Name: m.Name}
		if m.Description != "" {
			st.AvailableModes[i].Description = acp.Ptr(m.Description)
		}
	}
	return st
}

// SetSessionMode switches a session's mode, then tells the client with a
// current_mode_update before it answers. It may come while a turn runs.
func (b *bridge) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	ls, ok := b.lookup(p.SessionId)
	if !ok {
		return acp.SetSessionModeResponse{}, notOpen(string(p.SessionId))
	}
	ms, ok := ls.s.(ModeSession)
	if !ok || len(b.opts.Modes) == 0 {
		return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
	}
	ids := make([]string, len(b.opts.Modes))
	known := false
	for i, m := range b.opts.Modes {
		ids[i] = m.ID
		known = known || m.ID == string(p.ModeId)
	}
	if !known {
		return acp.SetSessionModeResponse{}, invalidParams(fmt.Errorf("unknown mode %q: use one of %s", p.ModeId, strings.Join(ids, ", ")))
	}
	if ls.isClosed() {
		return acp.SetSessionModeResponse{}, notOpen(string(p.SessionId))
	}
	if err := ms.SetMode(ctx, string(p.ModeId)); err != nil {
		if errors.Is(err, errModeUnavailable) {
			return acp.SetSessionModeResponse{}, invalidParams(err)
		}
		return acp.SetSessionModeResponse{}, internal("set the mode of session "+quote(string(p.SessionId)), err)
	}
	b.log.Info("session mode set", "session", p.SessionId, "mode", p.ModeId)
	b.send(ls.s.ID(), acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{
		SessionUpdate: "current_mode_update", CurrentModeId: p.ModeId}})
	return acp.SetSessionModeResponse{}, nil
}
