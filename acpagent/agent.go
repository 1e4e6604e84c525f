package acpagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
)

// New returns the Agent of rt. Call StartTools before serving.
func New(rt *engine.Runtime, log hclog.Logger) *Agent {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Agent{h: rt, log: log, toolsReady: make(chan struct{})}
}

// StartTools starts the runtime's plugins in the background, while the
// editor initializes; sessions wait for them when they are created or
// opened, and a failure to start them fails every session. The returned
// stop cancels a start still running (the editor left) and waits for it;
// call it once Serve has returned, before closing the runtime.
func (a *Agent) StartTools(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(a.toolsReady)
		a.toolsErr = a.h.StartTools(ctx)
	}()
	return func() {
		cancel()
		<-a.toolsReady
	}
}

// Agent serves the ACP bridge from a Runtime: its session store, its agent
// loop and its plugins. Build it with New.
type Agent struct {
	h   *engine.Runtime
	log hclog.Logger
	// toolsReady is closed once the plugins have started, or failed to:
	// toolsErr says which.
	toolsReady chan struct{}
	toolsErr   error
	// refused, when set, fails every session/new, load and resume.
	refused error
}

// Refuse makes every session the editor creates, loads or resumes fail
// with err, for a host that cannot run turns: it has no API key for its
// provider (providers.ErrNoAPIKey; answered as ACP's -32000 "Authentication
// required"), the reason it could not start its model. The connection
// still answers initialize and session/list. Call it before serving; it
// logs err.
func (a *Agent) Refuse(err error) {
	a.refused = err
	a.log.Error("harness acp refuses sessions until it is restarted", "error", err)
}

// refusal is the error of a refused session.
func (a *Agent) refusal() error {
	if a.refused == nil {
		return nil
	}
	if errors.Is(a.refused, providers.ErrNoAPIKey) {
		return noKey{a.refused}
	}
	return a.refused
}

// noKey refuses a session for want of an API key: the key's error, then
// where harness acp reads it from; it matches acpbridge.ErrAuthRequired.
type noKey struct{ err error }

func (e noKey) Error() string {
	return e.err.Error() + " (harness acp reads keys from the environment the editor starts it with; restart the agent once it has one)"
}
func (e noKey) Is(target error) bool { return target == acpbridge.ErrAuthRequired }
func (e noKey) Unwrap() error        { return e.err }

// NewSession implements acpbridge.Agent. Everything that can fail for this
// cwd (the directory, the plugins, the prompt and its AGENTS.md) is done
// before the session file is created: a failed session/new leaves no file.
func (a *Agent) NewSession(ctx context.Context, cwd string) (acpbridge.Session, error) {
	return a.NewSessionWithDirs(ctx, cwd, nil)
}

// NewSessionWithDirs implements acpbridge.DirsAgent: NewSession for a
// session whose bash commands may also write in dirs (the editor's
// additionalDirectories), checked like --add-dir before anything is made
// and logged in the session's first sandbox/policy.
func (a *Agent) NewSessionWithDirs(ctx context.Context, cwd string, dirs []string) (acpbridge.Session, error) {
	if err := a.refusal(); err != nil {
		return nil, err
	}
	if err := checkDirs(a.h, dirs); err != nil {
		return nil, err
	}
	cwd = filepath.Clean(cwd)
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cwd %s is not a directory: %w", cwd, acpbridge.ErrInvalidCwd)
	}
	if err := a.waitTools(ctx); err != nil {
		return nil, err
	}
	loop, err := a.h.Loop(cwd)
	if err != nil {
		return nil, err
	}
	s, err := a.h.CreateSessionWithDirs(cwd, dirs)
	if err != nil {
		return nil, err
	}
	return &acpSession{Session: s, h: a.h, loop: loop}, nil
}

// checkDirs checks additionalDirectories as --add-dir is checked; an
// error wraps acpbridge.ErrInvalidDirs.
func checkDirs(h *engine.Runtime, dirs []string) error {
	for _, d := range dirs {
		if _, err := h.CheckSessionDir(d); err != nil {
			return fmt.Errorf("additionalDirectories: %w (%w)", err, acpbridge.ErrInvalidDirs)
		}
	}
	return nil
}

// SetAdditionalDirectories implements acpbridge.DirsSession: the
// session's added folders from now on (logged in sandbox/policy when they
// change).
func (s *acpSession) SetAdditionalDirectories(_ context.Context, dirs []string) error {
	if err := checkDirs(s.h, dirs); err != nil {
		return err
	}
	return s.h.SetSessionDirs(s.Session, dirs)
}

// ready checks what opening or forking session id needs first: the
// agent serves sessions, id is a session id, the tools are ready.
func (a *Agent) ready(ctx context.Context, id string) error {
	if err := a.refusal(); err != nil {
		return err
	}
	if !session.ValidID(id) {
		return fmt.Errorf("%q is not a session id: %w", id, acpbridge.ErrSessionNotFound)
	}
	return a.waitTools(ctx)
}

// OpenSession implements acpbridge.Agent.
func (a *Agent) OpenSession(ctx context.Context, id string) (acpbridge.Session, error) {
	if err := a.ready(ctx, id); err != nil {
		return nil, err
	}
	s, err := a.h.OpenSession(id)
	if errors.Is(err, eventlog.ErrLocked) {
		// Another process (another host, on a shared store) is writing it:
		// the editor follows its turns live, read-only.
		a.log.Info("session held elsewhere: loaded read-only, following its writer", "session", id, "holder", err.Error())
		s, err = a.h.MirrorSession(id, err)
	}
	if errors.Is(err, session.ErrNotFound) {
		return nil, fmt.Errorf("no session %s in %s: %w", id, a.h.SessionsDir(), acpbridge.ErrSessionNotFound)
	}
	if err != nil {
		return nil, err
	}
	if rec := s.Recovery(); !rec.IsZero() {
		a.log.Info("session recovered", "session", id, "recovery", rec.String())
	}
	return a.wrap(s)
}

// waitTools waits for the plugins to have started; a failure to start them
// fails every session.
func (a *Agent) waitTools(ctx context.Context) error {
	select {
	case <-a.toolsReady:
		return a.toolsErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wrap pairs an open session with a loop for its turns.
func (a *Agent) wrap(s *session.Session) (acpbridge.Session, error) {
	loop, err := a.h.Loop(s.Cwd())
	if err != nil {
		a.h.CloseSession(s)
		return nil, err
	}
	return &acpSession{Session: s, h: a.h, loop: loop}, nil
}

// ListSessions implements acpbridge.Agent: the store's sessions but those
// started from another (subagents), whose files cannot be read skipped.
func (a *Agent) ListSessions(context.Context) ([]acpbridge.SessionInfo, error) {
	list, err := a.h.ListSessions()
	if err != nil {
		return nil, err
	}
	out := make([]acpbridge.SessionInfo, 0, len(list))
	for _, s := range list {
		if s.Err != nil {
			a.log.Warn("session not listed", "session", s.ID, "error", s.Err)
			continue
		}
		if s.Parent != "" {
			continue
		}
		out = append(out, acpbridge.SessionInfo{ID: s.ID, Cwd: s.Cwd, Title: s.FirstPrompt, UpdatedAt: s.UpdatedAt,
			AdditionalDirectories: s.Sandbox.AddDirs}) // as its log last says
	}
	return out, nil
}

// acpSession is an open session with the loop that runs its turns.
type acpSession struct {
	*session.Session
	h    *engine.Runtime
	loop *agent.Loop

	mu     sync.Mutex
	notify func(acpbridge.Notice) // WatchNotices' f; nil before
	warned bool                   // the fixed-part warning was sent as a notice
}

// Prompt implements acpbridge.Session. Tools that need permission are asked
// about in the editor (session/request_permission), per the policy.
func (s *acpSession) Prompt(ctx context.Context, prompt []event.Content, live acpbridge.Live) (event.Reason, error) {
	var asker permission.Asker // this turn's: it asks through this turn's live
	if a, ok := live.(acpbridge.Asker); ok {
		asker = editorAsker{a}
		if e, ok := live.(acpbridge.Elicitor); ok {
			asker = editorQuestions{editorAsker{a}, e} // MCP servers' questions too
		}
	}
	out := s.h.Prompt(ctx, s.Session, s.loop, prompt, live, asker)
	if errors.Is(out.Err, engine.ErrImagesUnsupported) {
		return out.Reason, invalidPrompt{out.Err} // -32602: nothing ran
	}
	return out.Reason, out.Err
}

// editorAsker asks the editor through the bridge.
type editorAsker struct{ a acpbridge.Asker }

// Ask implements permission.Asker. The question about a call touching a
// protected path offers no "always" and its title says why.
func (e editorAsker) Ask(ctx context.Context, req permission.Request) (event.Decision, error) {
	return e.a.AskPermission(ctx, req.CallID, req.Tool, askTitle(req), req.AlwaysCovers())
}

// askTitle is the title of the question about req: its own ("": the
// call's tool_call title), or, for a call touching a protected path, what
// it is and the note saying why there is no "always".
func askTitle(req permission.Request) string {
	note := req.ProtectedNote()
	if note == "" {
		return req.Title
	}
	what := req.Title
	if what == "" {
		what = req.Tool + " " + req.Protected
	}
	return what + " — " + note
}

// BridgeOptions are the ACP bridge's options for harness at version with
// runtime rt (nil for an Unavailable agent: no model, no images).
func BridgeOptions(log hclog.Logger, version string, rt *engine.Runtime) acpbridge.Options {
	o := acpbridge.Options{Name: "harness", Title: "harness", Version: version, Logger: log.Named("acp"), Modes: Modes()}
	if rt != nil {
		o.Images = DefaultTakesImages(rt.Models())
	}
	return o
}

// Modes are the permission modes, as ACP session modes (acpbridge.Options.Modes).
func Modes() []acpbridge.SessionMode {
	var out []acpbridge.SessionMode
	for _, m := range permission.Modes() {
		out = append(out, acpbridge.SessionMode{ID: string(m.ID), Name: m.Name, Description: m.Description})
	}
	return out
}

// Mode implements acpbridge.ModeSession: the session's permission mode.
func (s *acpSession) Mode() string { return string(s.h.SessionMode(s.Session)) }

// SetMode implements acpbridge.ModeSession: the switch is logged, and the
// running turn, if any, decides its next calls with it.
func (s *acpSession) SetMode(_ context.Context, id string) error {
	m, err := permission.ParseMode(id)
	if err != nil {
		return err
	}
	err = s.h.SetSessionMode(s.Session, m, event.ByClient)
	if errors.Is(err, confine.ErrAutoUnavailable) {
		return acpbridge.ModeUnavailable(err) // the editor shows why
	}
	return err
}

// Close implements acpbridge.Session.
func (s *acpSession) Close() error { return s.h.CloseSession(s.Session) }
