package llm

import (
	"fmt"
	"time"
)

// ErrorKind classifies a provider failure.
type ErrorKind string

// Error kinds.
const (
	ErrAuth       ErrorKind = "auth"        // 401, 403: the key is missing, wrong or lacks access
	ErrNotFound   ErrorKind = "not_found"   // 404: wrong base URL or unknown model
	ErrBadRequest ErrorKind = "bad_request" // 400, 413, 422: the request was refused as sent
	ErrRateLimit  ErrorKind = "rate_limit"  // 429
	ErrServer     ErrorKind = "server"      // 5xx, 529 overloaded
	ErrTransport  ErrorKind = "transport"   // the connection failed or dropped
	ErrMalformed  ErrorKind = "malformed"   // the stream could not be decoded
	// ErrContextLength: the prompt does not fit the model's context window;
	// sending it again cannot help, compacting the history can.
	ErrContextLength ErrorKind = "context_length"
)

// Error is a provider failure. Its message is one line meant for the user.
type Error struct {
	Kind     ErrorKind
	Provider string
	Status   int // HTTP status, 0 when none
	// Message is what went wrong, with what to do where there is something.
	Message string
	// RetryAfter is the provider's requested wait, when it sent one.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: %s (HTTP %d)", e.Provider, e.Message, e.Status)
	}
	return fmt.Sprintf("%s: %s", e.Provider, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed if sent again.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrRateLimit, ErrServer, ErrTransport:
		return true
	}
	return false
}
