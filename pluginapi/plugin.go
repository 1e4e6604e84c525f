package pluginapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// Plugin is what a plugin binary serves: its name and version (shown to
// users and recorded with every call) and its tools.
type Plugin struct {
	Name    string
	Version string
	Tools   []Tool
	// EventTypes are the event types the plugin's results may carry (e.g.
	// "todo/write"). A result carrying another type is turned into an
	// error result by Serve, and rejected by the host.
	EventTypes []string
	// SessionClosed, if set, is called when the host says a session ended
	// (no call of that session follows), so that the plugin releases what
	// it holds for it, e.g. the session's background processes. The host
	// waits for it: it should return within a few seconds. It may run
	// concurrently with calls of other sessions.
	SessionClosed func(ctx context.Context, sessionID string)
	// HoldsState, if set, is asked after every call whether the plugin now
	// holds state for the session in its process (bash: background tasks
	// of the session, running or with output left to read); its answer
	// goes in Result.HoldsState, and the host does not stop an idle plugin
	// that holds state for a session until SessionClosed. It must be quick.
	HoldsState func(sessionID string) bool
	// StartEarly asks the host to run the plugin for as long as it runs:
	// started when the host opens its tools rather than on the first call
	// to one of them, and never stopped for being idle. Hosts start
	// plugins on first use and stop idle ones to start fast and idle
	// small, so set it only for a plugin that keeps work of its own going
	// (a watch, a connection, a cache worth keeping warm). Hosts before
	// protocol minor 3 ignore it.
	StartEarly bool
	// Capabilities is what the plugin's process needs beyond the default
	// confinement hosts launch plugins under (see [Capabilities]). A
	// third-party plugin asking for more than the default is not started
	// until the user trusts it (`harness plugins trust NAME`). Hosts before
	// protocol minor 4 ignore it.
	Capabilities Capabilities
	// OnExit, if set, is called once when the plugin stops serving: before
	// the process exits because the host shut it down, closed its stdin or
	// went away, or because it got SIGTERM; and when an in-process server
	// (plugintest) stops. It is the place to kill the processes the plugin
	// started. Calls may still be running when it is called (their contexts
	// are cancelled); it should return within a second, since the host
	// kills the plugin's process group 2 s after asking it to stop. It is
	// not called when the plugin is SIGKILLed (or gets a second SIGTERM).
	OnExit func()
}

// Tool is one tool: its spec and its handler.
type Tool struct {
	Spec ToolSpec
	// Run handles one call. A failure the model can act on is a Result with
	// IsError (see [ErrorResult]); a Go error is for a failure of the tool
	// itself and becomes the error Result "Error: <err>". A panic becomes
	// the error Result "Error: tool <name> panicked: <value>". Run may be
	// called concurrently. It should return promptly once ctx is done.
	Run func(ctx context.Context, call *Call) (Result, error)
	// Preview, if set, says what a call would do, before it runs and
	// before the user is asked about it: its title, the files it touches
	// and, for a change, the diff (see [WithPreview]). It must not change
	// anything nor ask the user, and should return quickly; it may read
	// through call.Host. Describe says which tools have one
	// ([ToolSpec.HasPreview], set from this field): the host asks for a
	// preview before every call of such a tool, and only of such a tool
	// (since minor 5), logs the answer with the call and shows it in the
	// permission question. Since minor 2.
	Preview func(ctx context.Context, call *Call) Meta
}

// WithPreview gives t a Preview whose function receives the call's
// arguments decoded into A; arguments that do not decode preview nothing
// (Run reports them).
func WithPreview[A any](t Tool, fn func(ctx context.Context, call *Call, args A) Meta) Tool {
	t.Preview = func(ctx context.Context, call *Call) Meta {
		var args A
		raw := call.Args
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = json.RawMessage("{}")
		}
		if decodeStrict(raw, &args) != nil {
			return Meta{}
		}
		return fn(ctx, call, args)
	}
	return t
}

// Call is one call as a handler sees it.
type Call struct {
	CallRequest
	// Progress sends live output to the host; it is never nil.
	Progress Progress
	// Host reaches the host's services. It is never nil; before the host
	// configured the plugin, or when it offers none, its methods fail with
	// an error wrapping ErrUnimplemented.
	Host HostServices
	// Logger logs into the host's log (as the plugin's, at the level the
	// host asked for), with the tool's name and the call id. It is never nil.
	Logger hclog.Logger
	// StateDir is the host's state folder, as Configure gave it; empty
	// before Configure or when the host has none (or speaks minor 0).
	StateDir string
}

// SessionDir is the folder of the call's session,
// <StateDir>/sessions/<SessionID>, next to the session's log
// <StateDir>/sessions/<SessionID>.jsonl. A plugin may keep files belonging
// to the session there (spilled output, artifacts): the folder may not
// exist yet; create it 0700 and files 0600; never touch the log. It is ""
// when there is no StateDir, no session, or a session id that is not a
// plain name (an ASCII letter or digit, then up to 127 letters, digits,
// '.', '_' or '-', as the host's ids are).
func (c *Call) SessionDir() string {
	if c.StateDir == "" || !plainName(c.SessionID) {
		return ""
	}
	return filepath.Join(c.StateDir, "sessions", c.SessionID)
}

// plainName reports whether s can name a session folder: an ASCII letter
// or digit, then up to 127 letters, digits, '.', '_' or '-'.
func plainName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// ConfigureRequest is what the host tells a plugin once, before any call.
type ConfigureRequest struct {
	HostVersion string
	// LogLevel is the level of the plugin's log (trace, debug, info, warn,
	// error); empty leaves it as it is.
	LogLevel string
	// Host, when non-nil, is served to the plugin as its HostServices.
	Host HostServices
	// StateDir is the host's state folder (absolute), where the sessions'
	// logs and folders live (see [Call.SessionDir]); empty when it has
	// none.
	StateDir string
}

// ErrorResult is the error Result "Error: <message>", the form the model
// sees every tool failure in.
func ErrorResult(format string, a ...any) Result {
	return Result{Content: "Error: " + fmt.Sprintf(format, a...), IsError: true}
}

// Typed makes a tool whose handler receives its arguments decoded into A.
//
// Before fn runs, the arguments are checked against spec.Schema (the
// subset of JSON Schema described at [CheckSchema]: types, required and
// unknown properties, enums, array items) and then decoded into A with
// unknown fields disallowed. A failure of either is the error Result
// "Error: invalid arguments: <what>", which the model can correct; fn is not
// called. Go errors returned by fn are for failures of the tool itself; they
// become the error Result "Error: <err>".
func Typed[A any](spec ToolSpec, fn func(ctx context.Context, call *Call, args A) (Result, error)) Tool {
	s, schemaErr := compileSchema(spec.Schema)
	return Tool{
		Spec: spec,
		Run: func(ctx context.Context, call *Call) (Result, error) {
			if schemaErr != nil {
				return Result{}, fmt.Errorf("tool %s has an invalid schema: %w", spec.Name, schemaErr)
			}
			raw := call.Args
			if len(bytes.TrimSpace(raw)) == 0 {
				raw = json.RawMessage("{}")
			}
			if err := s.validateJSON(raw); err != nil {
				return ErrorResult("invalid arguments: %v", err), nil
			}
			var args A
			if err := decodeStrict(raw, &args); err != nil {
				return ErrorResult("invalid arguments: %v", err), nil
			}
			return fn(ctx, call, args)
		},
	}
}

// decodeStrict decodes one JSON value into v, refusing unknown fields and
// trailing data, with messages that name JSON types rather than Go ones.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return fmt.Errorf("expected %s, got %s", jsonKind(te.Type.Kind().String()), te.Value)
			}
			return fmt.Errorf("%s: expected %s, got %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the arguments object")
	}
	return nil
}

// jsonKind names the JSON type a Go kind decodes from.
func jsonKind(kind string) string {
	switch kind {
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "bool":
		return "boolean"
	case "string":
		return "string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	}
	return kind
}
