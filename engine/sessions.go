package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/harness-dev/harness/host/event"
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

// SessionEvents reads session id's events as logged so far, without
// holding it: one another process (or host, on a shared store) is writing
// is read as it stands.
func (r *Runtime) SessionEvents(id string) ([]event.Event, error) { return r.store.Events(id) }

// WatchSession follows session id as it is written elsewhere, from seq
// from (session.Store.Watch).
func (r *Runtime) WatchSession(ctx context.Context, id string, from int64) iter.Seq2[event.Event, error] {
	return r.store.Watch(ctx, id, from)
}

// ExportSession writes session id's log to w as a JSONL file
// (session.Store.Export).
func (r *Runtime) ExportSession(id string, w io.Writer) error { return r.store.Export(id, w) }

// ExportSessionBlobs writes the images session id's log names into dir
// (session.Store.ExportBlobs): how many it wrote, how many the store
// lacks.
func (r *Runtime) ExportSessionBlobs(id, dir string) (written, missing int, err error) {
	return r.store.ExportBlobs(id, dir)
}

// ImportSession adds the session of the JSONL log file at path to the
// store and returns its id (session.Store.Import).
func (r *Runtime) ImportSession(path string) (string, error) { return r.store.Import(path) }
