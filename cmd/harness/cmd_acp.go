package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
)

// cmdACP serves the Agent Client Protocol on stdin and stdout until stdin
// ends: an editor (Zed, …) runs `harness acp` and drives it. stdout carries
// ACP messages only; the log goes to stderr as JSON lines.
func cmdACP(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("acp", std.err, "harness acp [flags]   (an editor runs it: ACP on stdin/stdout, JSON log on stderr)")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if len(fs.Args()) > 0 {
		return exitUsage, fmt.Errorf("harness acp takes no arguments, got %q: %w", fs.Args(), errUsage)
	}
	if err := c.check(); err != nil {
		return exitUsage, fmt.Errorf("%w: %w", err, errUsage)
	}
	// An editor keeps the agent's stderr as its log: under ACP the default
	// level is info, so that reloads and recoveries are on record.
	if c.source("log-level") == "default" {
		c.LogLevel = "info"
	}
	log, err := newLogger(std.err, c.LogLevel, true)
	if err != nil {
		return exitUsage, err
	}
	h, err := newApp(c, e, log, nil)
	if err != nil {
		return exitFailed, err
	}

	// The plugins start while the editor initializes; a session waits for
	// them when it is created or opened. They stop after Serve has closed
	// every session, so they exit with the host.
	ah := &acpHost{h: h, log: log, toolsReady: make(chan struct{})}
	toolsCtx, stopStarting := context.WithCancel(ctx)
	defer stopStarting()
	go func() {
		defer close(ah.toolsReady)
		ah.toolsErr = h.StartTools(toolsCtx)
	}()
	err = acpbridge.Serve(ctx, ah, std.in, std.out, acpbridge.Options{
		Name: "harness", Title: "harness", Version: versionString(), Logger: log.Named("acp"), Modes: acpModes(),
		Images: defaultTakesImages(h.Models())})
	stopStarting() // if the editor left while they were starting
	<-ah.toolsReady
	if cerr := h.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}

// acpHost serves the ACP bridge from the session store, the agent loop and
// the plugins.
type acpHost struct {
	h   *app
	log hclog.Logger
	// toolsReady is closed once the plugins have started, or failed to:
	// toolsErr says which.
	toolsReady chan struct{}
	toolsErr   error
}

// NewSession implements acpbridge.Agent. Everything that can fail for this
// cwd (the directory, the plugins, the prompt and its AGENTS.md) is done
// before the session file is created: a failed session/new leaves no file.
func (a *acpHost) NewSession(ctx context.Context, cwd string) (acpbridge.Session, error) {
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
	s, err := a.h.CreateSession(cwd)
	if err != nil {
		return nil, err
	}
	return &acpSession{Session: s, h: a.h, loop: loop}, nil
}

// OpenSession implements acpbridge.Agent.
func (a *acpHost) OpenSession(ctx context.Context, id string) (acpbridge.Session, error) {
	if !session.ValidID(id) {
		return nil, fmt.Errorf("%q is not a session id: %w", id, acpbridge.ErrSessionNotFound)
	}
	if err := a.waitTools(ctx); err != nil {
		return nil, err
	}
	s, err := a.h.OpenSession(id)
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
func (a *acpHost) waitTools(ctx context.Context) error {
	select {
	case <-a.toolsReady:
		return a.toolsErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wrap pairs an open session with a loop for its turns.
func (a *acpHost) wrap(s *session.Session) (acpbridge.Session, error) {
	loop, err := a.h.Loop(s.Cwd())
	if err != nil {
		a.h.CloseSession(s)
		return nil, err
	}
	return &acpSession{Session: s, h: a.h, loop: loop}, nil
}

// ListSessions implements acpbridge.Agent: the store's sessions but those
// started from another (subagents), whose files cannot be read skipped.
func (a *acpHost) ListSessions(context.Context) ([]acpbridge.SessionInfo, error) {
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
		out = append(out, acpbridge.SessionInfo{ID: s.ID, Cwd: s.Cwd, Title: s.FirstPrompt, UpdatedAt: s.UpdatedAt})
	}
	return out, nil
}

// acpSession is an open session with the loop that runs its turns.
type acpSession struct {
	*session.Session
	h    *app
	loop *agent.Loop
}

// Prompt implements acpbridge.Session. Tools that need permission are asked
// about in the editor (session/request_permission), per the policy.
func (s *acpSession) Prompt(ctx context.Context, prompt []event.Content, live acpbridge.Live) (event.Reason, error) {
	var asker permission.Asker // this turn's: it asks through this turn's live
	if a, ok := live.(acpbridge.Asker); ok {
		asker = editorAsker{a}
	}
	out := s.h.Prompt(ctx, s.Session, s.loop, prompt, live, asker)
	if errors.Is(out.Err, engine.ErrImagesUnsupported) {
		return out.Reason, invalidPrompt{out.Err} // -32602: nothing ran
	}
	return out.Reason, out.Err
}

// editorAsker asks the editor through the bridge.
type editorAsker struct{ a acpbridge.Asker }

// Ask implements permission.Asker.
func (e editorAsker) Ask(ctx context.Context, req permission.Request) (event.Decision, error) {
	return e.a.AskPermission(ctx, req.CallID, req.Tool, req.Title, req.AlwaysCovers())
}

// acpModes are the permission modes, as ACP session modes.
func acpModes() []acpbridge.SessionMode {
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
	return s.h.SetSessionMode(s.Session, m, engine.ModeByClient)
}

// Close implements acpbridge.Session.
func (s *acpSession) Close() error { return s.h.CloseSession(s.Session) }
