//go:build unix

package main

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"time"
)

// readRecord is what a session saw of a file when it last read it (or
// wrote it): its modification time, size and the sha256 of its contents.
type readRecord struct {
	ModTime time.Time
	Size    int64
	Sum     [sha256.Size]byte
}

func recordOf(data []byte, modTime time.Time) readRecord {
	return readRecord{ModTime: modTime, Size: int64(len(data)), Sum: sha256.Sum256(data)}
}

// maxTrackedPerSession bounds the memory one session's reads take.
const maxTrackedPerSession = 10000

// readTracker remembers, per session and resolved path, what the session
// last read, so that write and edit refuse to overwrite a file the model
// has not seen as it is now. It lives in the plugin process only: after a
// restart of the plugin, the model reads again before it writes.
type readTracker struct {
	mu       sync.Mutex
	sessions map[string]map[string]readRecord
}

func newReadTracker() *readTracker {
	return &readTracker{sessions: map[string]map[string]readRecord{}}
}

func (r *readTracker) record(session, path string, rec readRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.sessions[session]
	if m == nil {
		m = map[string]readRecord{}
		r.sessions[session] = m
	}
	if _, ok := m[path]; !ok && len(m) >= maxTrackedPerSession {
		for k := range m { // forget an arbitrary one: the model reads it again
			delete(m, k)
			break
		}
	}
	m[path] = rec
}

func (r *readTracker) lookup(session, path string) (readRecord, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.sessions[session][path]
	return rec, ok
}

func (r *readTracker) forget(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sessions, session)
}

// checkFresh says why the session may not overwrite the existing file
// path whose contents are now data, or nil when it may: the session read
// (or wrote) exactly these contents last.
func (r *readTracker) checkFresh(session, path string, data []byte, modTime time.Time) error {
	rec, ok := r.lookup(session, path)
	if !ok {
		return fmt.Errorf("%s exists and this session has not read it; read it first, then write or edit it", quoteName(path))
	}
	if rec.Sum != sha256.Sum256(data) {
		return fmt.Errorf("%s changed since this session last read it (now %d bytes, modified %s); read it again, then write or edit it",
			quoteName(path), len(data), modTime.Format("15:04:05"))
	}
	return nil
}
