package session_test

import (
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/session"
)

// The agent loop records into a *session.Session.
var _ agent.SessionLog = (*session.Session)(nil)
