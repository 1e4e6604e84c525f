package acpagent

import (
	"context"
	"fmt"

	"github.com/harness-dev/harness/acpbridge"
)

// Unavailable is the agent of a harness acp whose settings are broken (a
// bad value in the environment the editor passes, a config or permissions
// file that does not parse): it has no runtime, and refuses every
// session/new, load, resume and list with err, saying to fix it and
// restart the agent. The connection still answers initialize, so the
// editor shows the reason where an agent that exited at start would be a
// crash without one.
func Unavailable(err error) acpbridge.Agent { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) refuse() error {
	return fmt.Errorf("harness cannot serve sessions: %w (fix it and restart the agent)", u.err)
}

func (u unavailable) NewSession(context.Context, string) (acpbridge.Session, error) {
	return nil, u.refuse()
}

func (u unavailable) OpenSession(context.Context, string) (acpbridge.Session, error) {
	return nil, u.refuse()
}

func (u unavailable) ListSessions(context.Context) ([]acpbridge.SessionInfo, error) {
	return nil, u.refuse()
}
