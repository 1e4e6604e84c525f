package eventlog

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Sentinels for errors.Is.
var (
	// ErrLocked: another writer holds the log. See [LockedError].
	ErrLocked = errors.New("eventlog: log is locked by another writer")
	// ErrCorrupt: the file is damaged beyond its tail. See [CorruptError].
	ErrCorrupt = errors.New("eventlog: log is corrupt")
	// ErrVersion: the header names a format version this package cannot read.
	ErrVersion = errors.New("unsupported log format version")
	// ErrClosed: the log was closed, or broken by a failed write.
	ErrClosed = errors.New("eventlog: log is closed")
	// ErrNotRegular: the path names a symbolic link, FIFO, device,
	// directory or socket, not a regular file.
	ErrNotRegular = errors.New("not a regular file")
)

// notRegular is the error for a log path that is not a regular file.
func notRegular(path string, mode fs.FileMode) error {
	what := "a " + mode.Type().String()
	switch {
	case mode&fs.ModeSymlink != 0:
		what = "a symbolic link (not followed)"
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case mode&fs.ModeDevice != 0 || mode&fs.ModeCharDevice != 0:
		what = "a device"
	case mode.IsDir():
		what = "a directory"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%s is %s, %w: move it away, a log must be a regular file", path, what, ErrNotRegular)
}

// LockedError reports that another writer — another harness process, or
// this one — holds the log at Path.
type LockedError struct {
	Path string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("session %s is open in another harness process; close it there first (%s)",
		idOf(e.Path), e.Path)
}

// Unwrap returns [ErrLocked].
func (e *LockedError) Unwrap() error { return ErrLocked }

// CorruptError reports damage that recovery must not paper over: a bad
// header, or a bad record that is not the last line. Line counts from 1 (the
// header); record seq N is line N+2.
type CorruptError struct {
	Path string
	Line int
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrCorrupt].
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// idOf returns the session id a log path names: its base name without .jsonl.
func idOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}
