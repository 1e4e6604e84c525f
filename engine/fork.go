package engine

import "github.com/harness-dev/harness/host/session"

// ForkSession forks session id at seq at (session.Store.Fork; 0: all of
// it) and returns the fork open, known to the host services until
// CloseSession. The fork's log holds the parent's mode, sandbox and model
// events up to the point, so it goes on as the parent was then.
func (r *Runtime) ForkSession(id string, at int64) (*session.Session, error) {
	if err := r.ensureStateDir(); err != nil {
		return nil, err
	}
	s, err := r.store.Fork(id, at)
	if err != nil {
		return nil, err
	}
	r.sessions.add(s)
	return s, nil
}
