package acpbridge

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/harness-dev/harness/host/event"
)

// ErrSessionNotFound is what an Agent returns, wrapped, when no session has the
// id asked for. The bridge answers it with ACP's -32002 "Resource not found".
var ErrSessionNotFound = errors.New("session not found")

// ErrInvalidCwd is what an Agent returns, wrapped, from NewSession when the
// cwd cannot hold a session (missing, not a directory). The bridge answers
// it with -32602 "Invalid params".
var ErrInvalidCwd = errors.New("invalid cwd")

// ErrAuthRequired is what an Agent returns, wrapped, from NewSession and
// OpenSession when it cannot serve sessions for want of a credential (no
// API key for its model provider). The bridge answers it with ACP's -32000
// "Authentication required", the agent's error as the message: editors
// show their authentication state with it, and the connection goes on.
var ErrAuthRequired = errors.New("authentication required")

// ErrInvalidDirs is what an Agent or a Session returns, wrapped, for
// additionalDirectories it cannot take (not absolute, missing, not a
// folder). The bridge answers it with -32602 "Invalid params".
var ErrInvalidDirs = errors.New("invalid additional directories")

// DirsAgent is an Agent whose sessions may add folders besides their cwd
// (ACP's additionalDirectories: harness's added writable roots). The
// bridge advertises sessionCapabilities.additionalDirectories only when
// its Agent implements it, and refuses the field otherwise.
type DirsAgent interface {
	Agent
	// NewSessionWithDirs is NewSession for a session that adds dirs,
	// absolute paths. A folder it cannot take is an error wrapping
	// ErrInvalidDirs, and no session is left behind.
	NewSessionWithDirs(ctx context.Context, cwd string, dirs []string) (Session, error)
}

// ForkAgent is an Agent that forks sessions: the bridge advertises
// sessionCapabilities.fork and serves session/fork (unstable in ACP) only
// when its Agent implements it.
type ForkAgent interface {
	Agent
	// ForkSession makes a new session that starts with the history of
	// session id up to its last closed turn (a turn running in it is left
	// out) and returns it open. The fork shares nothing mutable with id:
	// later turns of either touch only its own log. An unknown id yields
	// an error wrapping ErrSessionNotFound.
	ForkSession(ctx context.Context, id string) (Session, error)
}

// DirsSession is a Session of a DirsAgent: session/load and
// session/resume name its added folders again, the complete list (none
// when empty), which replaces what it had.
type DirsSession interface {
	// SetAdditionalDirectories makes dirs the session's added folders. A
	// folder it cannot take is an error wrapping ErrInvalidDirs, and
	// nothing changes.
	SetAdditionalDirectories(ctx context.Context, dirs []string) error
}

// Agent is what the bridge needs from the agent behind it: sessions to create,
// reopen and list. cmd/harness implements it with the session store and the
// agent loop.
type Agent interface {
	// NewSession creates a session whose working directory is cwd, an
	// absolute path, and returns it open. A NewSession that fails leaves
	// no session behind.
	NewSession(ctx context.Context, cwd string) (Session, error)
	// OpenSession reopens the session id (its log replayed and recovered)
	// and returns it open. An unknown id yields an error wrapping
	// ErrSessionNotFound.
	OpenSession(ctx context.Context, id string) (Session, error)
	// ListSessions describes every session the agent keeps, open or not.
	ListSessions(ctx context.Context) ([]SessionInfo, error)
}

// SessionInfo describes a session for session/list.
type SessionInfo struct {
	ID  string
	Cwd string
	// Title is a short human title, such as the first prompt; may be empty.
	Title string
	// UpdatedAt is the time of the last event; may be zero.
	UpdatedAt time.Time
	// AdditionalDirectories are the folders the session last ran with
	// besides its cwd (a DirsAgent's); none when empty.
	AdditionalDirectories []string
}

// Session is one open session. The bridge calls Prompt for one turn at a
// time per session, and Close once, after the last turn has returned.
type Session interface {
	// ID is the session id.
	ID() string
	// Cwd is the session's working directory.
	Cwd() string
	// Events returns every event logged so far. The caller does not modify
	// the slice.
	Events() []event.Event
	// Follow yields every event from seq from on, in order, then waits for
	// new ones until ctx is done or the session is closed.
	Follow(ctx context.Context, from int64) iter.Seq[event.Event]
	// Prompt runs one turn on the prompt and returns how it ended: the
	// reason of its turn/end, and the failure when the reason is
	// event.ReasonError. Text and reasoning deltas go to live as they
	// arrive; everything else is logged and reaches the bridge through
	// Events and Follow. Cancelling ctx stops the turn, which then ends
	// cancelled; Prompt must return promptly.
	Prompt(ctx context.Context, prompt []event.Content, live Live) (event.Reason, error)
	// Close releases the session.
	Close() error
}

// BlobSession is a Session that keeps the bytes of its images outside its
// log (event.ToolResult.Images name them by hash): the bridge reads them
// to send a tool result's images as ACP image content, live and on
// session/load. A Session without it shows them as text.
type BlobSession interface {
	// Blob returns the bytes of the blob hash.
	Blob(hash string) ([]byte, error)
}

// ReadOnlySession is a Session another process is writing (a session
// held elsewhere, loaded to be followed): after session/load the bridge
// sends what its writer logs as it is logged, and its turns fail.
type ReadOnlySession interface {
	Session
	ReadOnly() bool
}

// Live receives the deltas of a turn that are never logged. Its method set
// is that of agent.Live, so a Live can be handed to the agent loop as is.
type Live interface {
	// TextDelta is a piece of the model's answer text.
	TextDelta(sessionID, text string)
	// ReasoningDelta is a piece of the model's reasoning.
	ReasoningDelta(sessionID, text string)
}
