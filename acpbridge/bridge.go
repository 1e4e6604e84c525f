package acpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/acpbridge/internal/jsonrpc"
	"github.com/harness-dev/harness/host/event"
)

// DefaultShutdownGrace bounds how long Serve waits, once the client has gone,
// for running turns to end before it closes their sessions.
const DefaultShutdownGrace = 500 * time.Millisecond

// DefaultMaxMessageBytes bounds one inbound message unless
// Options.MaxMessageBytes says otherwise.
const DefaultMaxMessageBytes = jsonrpc.DefaultMaxMessageBytes

// answerGrace bounds how long Serve waits, once the input has ended, for
// the answers to requests other than session/prompt (initialize,
// session/new, session/load…) before it closes the sessions.
const answerGrace = 5 * time.Second

// Options configure Serve.
type Options struct {
	// Name, Title and Version describe the agent in initialize's agentInfo.
	// Name defaults to "harness", Version to "dev".
	Name, Title, Version string
	// Logger receives the bridge's diagnostics; nil discards them.
	Logger hclog.Logger
	// MaxMessageBytes bounds one inbound message; 0 means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// ShutdownGrace bounds the wait for running turns when the client goes;
	// 0 means DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// Modes are the modes a session may be in (see ModeSession); none:
	// sessions have no modes.
	Modes []SessionMode
	// Images is initialize's promptCapabilities.image: the default model
	// takes images. Image blocks reach Session.Prompt either way (a
	// session may have switched models); the Session refuses them for a
	// model without image input (ErrInvalidPrompt).
	Images bool
	// Terminal runs the bash calls of a client that offers terminal in
	// the client's terminals (terminal/create: the editor shows a real
	// terminal), outside the host's sandbox; see engine.EditorTerminal.
	Terminal bool
	// KeyVars are the environment variables the agent reads API keys
	// from, one per provider that needs one: initialize lists an auth
	// method for each (see authMethods).
	KeyVars []KeyVar
}

// KeyVar is an environment variable an API key is read from.
type KeyVar struct {
	// Var is the variable (DEEPSEEK_API_KEY); Providers the providers
	// that read it.
	Var       string
	Providers []string
	// Missing says the agent refuses sessions for want of it.
	Missing bool
}

// Serve speaks ACP with the client whose messages arrive on in and whose
// replies go to out, on behalf of agent. It returns once in ends or ctx is
// done: the prompts running are cancelled, the other requests already read
// are answered first (up to 5 s), running turns are given
// Options.ShutdownGrace to end and answer, then every session the
// connection opened is closed; nothing is written to out after it
// returns. The error reports a failure to read in or to close a session.
func Serve(ctx context.Context, agent Agent, in io.Reader, out io.Writer, opts Options) error {
	if opts.Name == "" {
		opts.Name = "harness"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}

	rpcLog, stopRPCLog := newSlogger(opts.Logger.Named("jsonrpc"))
	defer stopRPCLog()
	conn := jsonrpc.NewConn(in, out, jsonrpc.Options{MaxMessageBytes: opts.MaxMessageBytes, Logger: rpcLog})
	b := &bridge{agent: agent, opts: opts, log: opts.Logger, conn: conn,
		sessions: make(map[string]*liveSession), prompts: make(map[string]*promptRun)}
	readErr := conn.Serve(ctx, b.handle)
	if errors.Is(readErr, context.Canceled) || errors.Is(readErr, context.DeadlineExceeded) {
		readErr = nil // ctx ended Serve: no failure of the input
	}
	// The input has ended: the prompts' turns are cancelled (their answers
	// come when they have ended), the other requests already read are
	// answered before the sessions close, then the prompts' answers go
	// out, and nothing more after that.
	conn.Cancel(jsonrpc.MethodIs(acp.AgentMethodSessionPrompt))
	b.waitAnswers(func(m string) bool { return m != acp.AgentMethodSessionPrompt }, answerGrace)
	err := b.shutdown()
	b.waitAnswers(jsonrpc.MethodIs(acp.AgentMethodSessionPrompt), b.opts.ShutdownGrace)
	conn.Close()
	if readErr != nil {
		err = errors.Join(fmt.Errorf("read the client's messages: %w", readErr), err)
	}
	return err
}

// waitAnswers waits up to d for the answers to the requests match selects
// and warns about those left unanswered.
func (b *bridge) waitAnswers(match func(method string) bool, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if n := b.conn.Wait(ctx, match); n > 0 {
		b.log.Warn("the input ended before some requests were answered; they go unanswered", "requests", n, "waited", d)
	}
}

// bridge is the agent side of one ACP connection.
type bridge struct {
	agent Agent
	opts  Options
	log   hclog.Logger
	conn  *jsonrpc.Conn

	// promptMu guards prompts: the session/prompt request being served
	// for each session, the one session/cancel cancels and a newer prompt
	// supersedes.
	promptMu sync.Mutex
	prompts  map[string]*promptRun

	// openMu serialises opening, registering and closing sessions, so that
	// one session is opened once.
	openMu   sync.Mutex
	mu       sync.Mutex // guards sessions and fs
	sessions map[string]*liveSession
	// compaction is set when the client advertised the session.compaction
	// capability (see compact.go).
	compaction atomic.Bool
	// elicitForm is set when the client advertised elicitation.form
	// (elicit.go).
	elicitForm atomic.Bool
	// notices is set when the client advertised session.notices (notices.go).
	notices atomic.Bool
	// fs is what the client's initialize offered of fs/read_text_file and
	// fs/write_text_file.
	fs acp.FileSystemCapabilities
	// terminal is set when Options.Terminal is and the client offered
	// terminal (terminal.go).
	terminal atomic.Bool
}

// clientFS is what the client offered of its file system.
func (b *bridge) clientFS() acp.FileSystemCapabilities {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fs
}

// liveSession is a session open on this connection.
type liveSession struct {
	s Session
	// turn is held by the running turn (and by close); capacity 1.
	turn chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc // of the running turn, nil between turns
	closed bool

	commands commandsState // commands.go
	// noticed watches the session's notices once (notices.go).
	noticed sync.Once
}

func newLiveSession(s Session) *liveSession {
	return &liveSession{s: s, turn: make(chan struct{}, 1)}
}

// acquire waits for the session's turn slot; it fails when ctx is done first.
func (ls *liveSession) acquire(ctx context.Context) error {
	select {
	case ls.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (ls *liveSession) release() { <-ls.turn }

// markClosed marks the session closed; false if it already was.
func (ls *liveSession) markClosed() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	was := ls.closed
	ls.closed = true
	return !was
}

// isClosed reports whether the session was closed on this connection.
func (ls *liveSession) isClosed() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.closed
}

// cancelTurn cancels the running turn, if any.
func (ls *liveSession) cancelTurn() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.cancel != nil {
		ls.cancel()
	}
}

func (b *bridge) lookup(id acp.SessionId) (*liveSession, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ls, ok := b.sessions[string(id)]
	return ls, ok
}

// Initialize answers with protocol version 1 whatever the client asked: the
// only one harness speaks; the client decides whether to go on.
func (b *bridge) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	if p.ProtocolVersion != acp.ProtocolVersionNumber {
		b.log.Info("client asked for another protocol version", "asked", p.ProtocolVersion, "answered", acp.ProtocolVersionNumber)
	}
	b.mu.Lock()
	b.fs = acp.FileSystemCapabilities{ReadTextFile: p.ClientCapabilities.Fs.ReadTextFile, WriteTextFile: p.ClientCapabilities.Fs.WriteTextFile}
	b.elicitForm.Store(p.ClientCapabilities.Elicitation != nil && p.ClientCapabilities.Elicitation.Form != nil)
	b.terminal.Store(b.opts.Terminal && p.ClientCapabilities.Terminal)
	b.mu.Unlock()
	info := &acp.Implementation{Name: b.opts.Name, Version: b.opts.Version}
	if b.opts.Title != "" {
		info.Title = acp.Ptr(b.opts.Title)
	}
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  acp.PromptCapabilities{EmbeddedContext: true, Image: b.opts.Images},
			McpCapabilities:     b.mcpCapabilities(),
			SessionCapabilities: b.sessionCapabilities(),
		},
		AgentInfo:   info,
		AuthMethods: b.authMethods(),
	}, nil
}

// authMethodPrefix starts the id of the auth method of a key variable.
const authMethodPrefix = "env:"

// authMethods are initialize's authMethods: one per key variable
// (Options.KeyVars), of ACP v1's agent type (the schema has no
// environment-variable type): its id is "env:" and the variable, its
// description says where to set it, and _meta.envVar names it for a
// client that sets it itself. A key comes from the agent's environment
// only, so authenticate can only say whether it is there.
func (b *bridge) authMethods() []acp.AuthMethod {
	out := []acp.AuthMethod{}
	for _, k := range b.opts.KeyVars {
		desc := fmt.Sprintf("harness reads the API key of %s from %s (or HARNESS_API_KEY) in the environment the editor starts `harness acp` with: set it there and restart the agent.",
			strings.Join(k.Providers, ", "), k.Var)
		out = append(out, acp.AuthMethod{Agent: &acp.AuthMethodAgent{Id: authMethodPrefix + k.Var, Name: k.Var,
			Description: &desc, Meta: map[string]any{"envVar": k.Var}}})
	}
	return out
}

// sessionCapabilities are the session methods and fields harness takes:
// additionalDirectories when the agent takes them (DirsAgent).
func (b *bridge) sessionCapabilities() acp.SessionCapabilities {
	c := acp.SessionCapabilities{
		List:   &acp.SessionListCapabilities{},
		Close:  &acp.SessionCloseCapabilities{},
		Resume: &acp.SessionResumeCapabilities{},
	}
	if _, ok := b.agent.(DirsAgent); ok {
		c.AdditionalDirectories = &acp.SessionAdditionalDirectoriesCapabilities{}
	}
	if _, ok := b.agent.(ForkAgent); ok {
		c.Fork = &acp.SessionForkCapabilities{}
	}
	return c
}

// checkDirs checks the additionalDirectories of a request: absolute
// paths, and an agent that takes them.
func (b *bridge) checkDirs(dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	if _, ok := b.agent.(DirsAgent); !ok {
		return invalidParams(errors.New("additionalDirectories is not supported by this agent (initialize does not advertise it)"))
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return invalidParams(fmt.Errorf("additional directory %q is not an absolute path", d))
		}
	}
	return nil
}

// setDirs gives an opened session the additionalDirectories of its
// session/load or session/resume: the complete list, none when empty.
func (b *bridge) setDirs(ctx context.Context, s Session, dirs []string) error {
	ds, ok := s.(DirsSession)
	if !ok {
		return nil // checkDirs refused a list for an agent without them
	}
	if err := ds.SetAdditionalDirectories(ctx, dirs); err != nil {
		if errors.Is(err, ErrInvalidDirs) {
			return invalidParams(err)
		}
		return internal("set the additional directories of session "+quote(s.ID()), err)
	}
	return nil
}

// Authenticate checks one of initialize's methods: it succeeds when the
// agent has the key of its variable, and is answered "Authentication
// required", naming the variable, when it has not (the editor sets it and
// restarts the agent). An id initialize did not list is invalid.
func (b *bridge) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	for _, k := range b.opts.KeyVars {
		if string(p.MethodId) != authMethodPrefix+k.Var {
			continue
		}
		if k.Missing {
			return acp.AuthenticateResponse{}, authRequired(fmt.Errorf("%s is not set in the environment of harness acp: set it where the editor starts the agent, then restart it", k.Var))
		}
		return acp.AuthenticateResponse{}, nil
	}
	return acp.AuthenticateResponse{}, invalidParams(fmt.Errorf("unknown auth method %q: initialize lists %d", string(p.MethodId), len(b.opts.KeyVars)))
}

// NewSession creates a session in the client's cwd.
func (b *bridge) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return acp.NewSessionResponse{}, invalidParams(fmt.Errorf("cwd %q is not an absolute path", p.Cwd))
	}
	if err := b.checkDirs(p.AdditionalDirectories); err != nil {
		return acp.NewSessionResponse{}, err
	}
	b.openMu.Lock()
	defer b.openMu.Unlock()
	var s Session
	var err error
	if da, ok := b.agent.(DirsAgent); ok && len(p.AdditionalDirectories) > 0 {
		s, err = da.NewSessionWithDirs(ctx, p.Cwd, p.AdditionalDirectories)
	} else {
		s, err = b.agent.NewSession(ctx, p.Cwd)
	}
	if errors.Is(err, ErrInvalidCwd) || errors.Is(err, ErrInvalidDirs) {
		return acp.NewSessionResponse{}, invalidParams(err)
	}
	if errors.Is(err, ErrAuthRequired) {
		return acp.NewSessionResponse{}, authRequired(err)
	}
	if err != nil {
		return acp.NewSessionResponse{}, internal("create a session", err)
	}
	b.connectMCP(ctx, s, p.McpServers)
	b.mu.Lock()
	b.sessions[s.ID()] = newLiveSession(s)
	b.mu.Unlock()
	b.log.Debug("session created", "session", s.ID(), "cwd", s.Cwd())
	return acp.NewSessionResponse{SessionId: acp.SessionId(s.ID()), ConfigOptions: configOptions(s), Modes: b.modeState(s)}, nil
}

// LoadSession opens a session and replays its whole conversation, then
// answers.
func (b *bridge) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if err := b.checkDirs(p.AdditionalDirectories); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	ls, err := b.open(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	if err := b.setDirs(ctx, ls.s, p.AdditionalDirectories); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	// Replay between turns, so that it is the whole log and nothing else.
	if err := ls.acquire(ctx); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	defer ls.release()
	if ls.isClosed() {
		return acp.LoadSessionResponse{}, notOpen(string(p.SessionId))
	}
	start := time.Now()
	if err := b.replay(ctx, ls.s); err != nil {
		return acp.LoadSessionResponse{}, fmt.Errorf("replay session %s: %w", p.SessionId, err)
	}
	if evs := ls.s.Events(); len(evs) > 0 {
		if u, ok := infoUpdate(ls.s, evs[len(evs)-1].Time); ok {
			b.send(ls.s.ID(), u)
		}
	}
	b.sendCommands(ls.s)
	b.watchNotices(ls)
	b.log.Debug("session loaded", "session", p.SessionId, "events", len(ls.s.Events()), "replay", time.Since(start))
	return acp.LoadSessionResponse{ConfigOptions: configOptions(ls.s), Modes: b.modeState(ls.s)}, nil
}

// ResumeSession opens a session without replaying it.
func (b *bridge) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	if err := b.checkDirs(p.AdditionalDirectories); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	ls, err := b.open(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	if err := b.setDirs(ctx, ls.s, p.AdditionalDirectories); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	b.sendCommands(ls.s) // the client named the session: it knows it
	b.watchNotices(ls)
	return acp.ResumeSessionResponse{ConfigOptions: configOptions(ls.s), Modes: b.modeState(ls.s)}, nil
}

// open returns the session id, opening it on this connection unless it
// already is (then with the MCP servers given).
func (b *bridge) open(ctx context.Context, id acp.SessionId, cwd string, servers []acp.McpServer) (*liveSession, error) {
	b.openMu.Lock()
	defer b.openMu.Unlock()
	if ls, ok := b.lookup(id); ok {
		return ls, nil
	}
	s, err := b.agent.OpenSession(ctx, string(id))
	if err != nil {
		return nil, openError(string(id), err)
	}
	if cwd != "" && filepath.Clean(cwd) != s.Cwd() {
		b.log.Info("session opened from another directory; it keeps its own", "session", id, "cwd", s.Cwd(), "asked", cwd)
	}
	b.connectMCP(ctx, s, servers)
	ls := newLiveSession(s)
	b.mu.Lock()
	b.sessions[s.ID()] = ls
	b.mu.Unlock()
	return ls, nil
}

// ListSessions lists the agent's sessions, those in p.Cwd only when given.
func (b *bridge) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	all, err := b.agent.ListSessions(ctx)
	if err != nil {
		return acp.ListSessionsResponse{}, internal("list sessions", err)
	}
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, s := range all {
		if p.Cwd != nil && filepath.Clean(*p.Cwd) != filepath.Clean(s.Cwd) {
			continue
		}
		info := acp.SessionInfo{SessionId: acp.SessionId(s.ID), Cwd: s.Cwd, AdditionalDirectories: s.AdditionalDirectories}
		if s.Title != "" {
			info.Title = acp.Ptr(s.Title)
		}
		if !s.UpdatedAt.IsZero() {
			info.UpdatedAt = acp.Ptr(s.UpdatedAt.UTC().Format(time.RFC3339Nano))
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// CloseSession cancels the session's turn, waits for it to end (its last
// updates go out first) and closes the session.
func (b *bridge) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	ls, ok := b.lookup(p.SessionId)
	if !ok {
		return acp.CloseSessionResponse{}, notOpen(string(p.SessionId))
	}
	ls.cancelTurn()
	if err := ls.acquire(ctx); err != nil {
		return acp.CloseSessionResponse{}, err
	}
	defer ls.release()
	b.openMu.Lock()
	defer b.openMu.Unlock()
	if !ls.markClosed() {
		return acp.CloseSessionResponse{}, notOpen(string(p.SessionId))
	}
	b.mu.Lock()
	delete(b.sessions, string(p.SessionId))
	b.mu.Unlock()
	if err := ls.s.Close(); err != nil {
		return acp.CloseSessionResponse{}, internal("close session "+quote(string(p.SessionId)), err)
	}
	return acp.CloseSessionResponse{}, nil
}

// Prompt runs one turn. Its updates are all written before it returns, so
// before the response. A cancelled turn answers stopReason cancelled, never
// an error; a failed turn answers a JSON-RPC error carrying the cause. A
// prompt for a session whose turn is running waits for that turn (serving
// the new prompt has cancelled it: a new prompt supersedes the running
// one; see servePrompt).
func (b *bridge) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	cancelled := acp.PromptResponse{StopReason: acp.StopReasonCancelled}
	ls, ok := b.lookup(p.SessionId)
	if !ok {
		return acp.PromptResponse{}, notOpen(string(p.SessionId))
	}
	content, err := promptContent(p.Prompt)
	if err != nil {
		return acp.PromptResponse{}, invalidParams(err)
	}
	if ls.acquire(ctx) != nil {
		return cancelled, nil
	}
	defer ls.release()
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ls.mu.Lock()
	closed := ls.closed
	ls.cancel = cancel
	ls.mu.Unlock()
	if closed {
		return acp.PromptResponse{}, notOpen(string(p.SessionId))
	}
	defer func() {
		ls.mu.Lock()
		ls.cancel = nil
		ls.mu.Unlock()
	}()

	ts := b.startStream(ctx, ls.s)
	reason, err := ls.s.Prompt(turnCtx, content, ts)
	ts.finish()
	if errors.Is(err, ErrInvalidPrompt) {
		return acp.PromptResponse{}, invalidParams(err)
	}
	if turnCtx.Err() != nil {
		return cancelled, nil // whatever the turn made of it
	}
	switch reason {
	case event.ReasonCompleted:
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	case event.ReasonMaxSteps, event.ReasonBudget:
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
	case event.ReasonMaxTokens:
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTokens}, nil
	case event.ReasonRefusal:
		return acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	case event.ReasonCancelled, event.ReasonInterrupted:
		return cancelled, nil
	case event.ReasonError:
		return acp.PromptResponse{}, turnFailed(string(p.SessionId), err)
	}
	if err != nil {
		return acp.PromptResponse{}, turnFailed(string(p.SessionId), err)
	}
	b.log.Warn("turn ended for an unknown reason; answering end_turn", "session", p.SessionId, "reason", reason)
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// Cancel cancels the session's running turn. serveCancel has already
// cancelled the pending prompt's context; this covers a turn started
// otherwise.
func (b *bridge) Cancel(_ context.Context, p acp.CancelNotification) error {
	if ls, ok := b.lookup(p.SessionId); ok {
		ls.cancelTurn()
	}
	return nil
}

// shutdown cancels every running turn, waits up to the grace period for
// them to end, then closes every session.
func (b *bridge) shutdown() error {
	b.mu.Lock()
	live := make([]*liveSession, 0, len(b.sessions))
	for _, ls := range b.sessions {
		live = append(live, ls)
	}
	b.sessions = map[string]*liveSession{}
	b.mu.Unlock()
	for _, ls := range live {
		ls.cancelTurn()
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.ShutdownGrace)
	defer cancel()
	var errs []error
	for _, ls := range live {
		if err := ls.acquire(ctx); err != nil {
			b.log.Warn("turn still running at shutdown; closing its session anyway", "session", ls.s.ID())
		}
		ls.markClosed()
		if err := ls.s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close session %s: %w", ls.s.ID(), err))
		}
	}
	return errors.Join(errs...)
}
