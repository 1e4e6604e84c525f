package acpagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/host/session"
)

// ForkSession implements acpbridge.ForkAgent: a fork of session id as of
// its last closed turn (engine.Runtime.ForkSession), opened for turns.
func (a *Agent) ForkSession(ctx context.Context, id string) (acpbridge.Session, error) {
	if err := a.ready(ctx, id); err != nil {
		return nil, err
	}
	s, err := a.h.ForkSession(id, 0)
	if errors.Is(err, session.ErrNotFound) {
		return nil, fmt.Errorf("no session %s in %s: %w", id, a.h.SessionsDir(), acpbridge.ErrSessionNotFound)
	}
	if err != nil {
		return nil, err
	}
	return a.wrap(s)
}
