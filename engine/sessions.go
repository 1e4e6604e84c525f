package engine

import (
	"errors"
	"fmt"
	"os"

	"github.com/harness-dev/harness/host/session"
)

// OpenOrCreateSession opens session id, or creates one in cwd ("": the
// current directory) when id is "". An unknown id is one error naming the
// sessions folder.
func (r *Runtime) OpenOrCreateSession(id, cwd string) (*session.Session, error) {
	if id != "" {
		s, err := r.OpenSession(id)
		if errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("no session %q in %s: list them with harness sessions", id, r.SessionsDir())
		}
		return s, err
	}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the current directory: %w", err)
		}
		cwd = wd
	}
	return r.CreateSession(cwd)
}
