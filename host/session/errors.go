package session

import (
	"errors"
	"fmt"

	"github.com/harness-dev/harness/host/event"
)

// Sentinels for errors.Is.
var (
	// ErrNotFound: no session has that id.
	ErrNotFound = errors.New("session not found")
	// ErrClosed: the session was closed.
	ErrClosed = errors.New("session is closed")
	// ErrInvalid: an event would break the log's structure. See InvalidError.
	ErrInvalid = errors.New("invalid event")
)

// InvalidError reports an event that breaks the turn structure or whose
// payload is unusable. Append returns it with nothing written; on replay it
// is wrapped in an *eventlog.CorruptError.
type InvalidError struct {
	Type   event.Type
	Reason string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("%s: %s", e.Type, e.Reason) }

// Is reports whether target is [ErrInvalid].
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(t event.Type, format string, args ...any) error {
	return &InvalidError{Type: t, Reason: fmt.Sprintf(format, args...)}
}
