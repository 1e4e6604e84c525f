package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/buildinfo"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/ownership"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/prompt"
	"github.com/harness-dev/harness/host/services"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/sandbox"
)

// Config is everything a Runtime is built from. Zero values are safe
// defaults except where noted.
type Config struct {
	// StateDir holds the sessions (StateDir/sessions) and the plugin cache
	// and reload history (StateDir/plugins). Required. New refuses one
	// another user could write (owned by a user other than this one or
	// root, or writable by group or others; see host/ownership), and the
	// store refuses such a sessions folder or log; a missing one is
	// created 0700 whatever the umask when first needed. Nothing is ever
	// chmodded.
	StateDir string
	// Sessions, when set, keeps the session logs instead of the files of
	// StateDir/sessions (a shared store: package host/session/natsstore);
	// SessionsWhere names it for people ("nats://host:4222").
	Sessions      session.Backend
	SessionsWhere string
	// PluginDirs are the folders whose plugins StartTools starts.
	PluginDirs []string
	// Model answers the turns; nil for a Runtime that runs no turn (one
	// that only lists plugins). ModelName is the model to request.
	Model     agent.Model
	ModelName string
	// Models are the models a session may switch to (SetOption), the
	// default (ModelName) first, with their context windows, prices and
	// reasoning efforts; nil: ModelName only.
	Models []llm.ModelInfo
	// OpenProvider opens the provider of a model in Models served by
	// another provider than the default's, on first use; nil: Model
	// serves them all.
	OpenProvider func(m llm.ModelInfo) (agent.Model, error)
	// Instructions, when set, replace the default base instructions of the
	// system prompt.
	Instructions string
	// MaxSteps bounds the model steps of one turn (0: the loop's default).
	MaxSteps int
	// Policy decides on tools that need permission. Its Mode is the mode
	// a new session is created with (logged as permission/mode); a session
	// keeps the mode its log holds (see SessionMode). New adds harness's
	// own files to its Protected paths (see ConfigDir).
	Policy permission.Policy
	// ConfigDir is harness's config folder ("": paths.ConfigDir) and
	// ConfigFile its config file (--config; "": none besides the folder's).
	// With Policy.File (else paths.PermissionsFile), MCPUserFile,
	// StateDir and PluginDirs with their lock files they are protected
	// paths: a call writing to them is asked in every mode but allow-all
	// (host/permission).
	ConfigDir  string
	ConfigFile string
	// SubagentDepth and SubagentBudget bound child sessions.
	SubagentDepth  int
	SubagentBudget subagent.Budget
	// Logger receives the runtime's and the plugins' logs; nil discards.
	Logger hclog.Logger
	// LogLevel is the level the plugins log at.
	LogLevel string
	// HostVersion is told to the plugins ("": buildinfo.Version("")).
	HostVersion string
	// Watch hot-reloads plugins whose binaries change.
	Watch bool
	// Reattach is the value of $HARNESS_REATTACH_PLUGINS: plugins running
	// in debug mode that StartTools attaches to instead of launching.
	Reattach string
	// PluginEnv names host environment variables the plugins get besides
	// pluginhost.DefaultPassEnv.
	PluginEnv []string
	// Sandbox is the sandbox every bash command runs under (zero:
	// workspace-write, network off). The plugins get it in their
	// environment (HARNESS_SANDBOX, HARNESS_SANDBOX_NETWORK), set by the
	// host whatever PluginEnv passes.
	Sandbox confine.Setting
	// ContextWindow is the model's context window in tokens (0: unknown, no
	// automatic compaction); CompactAt the share of it, in percent, a
	// request may fill before the history is compacted first (0: 80);
	// CompactTarget the share, in percent, the request after a compaction
	// may fill at most (0: 50); KeepTokens the budget of recent messages a
	// compaction keeps verbatim (0: agent.Loop's default). Child sessions
	// compact the same way. See agent.Loop.
	ContextWindow int
	CompactAt     int
	CompactTarget int
	KeepTokens    int
	// ToolBudget is the share of the context window, in percent, the
	// tools' schemas may take before the tools beyond the built-in
	// plugins' are deferred behind tool_search (0: DefaultToolBudget;
	// negative: never deferred). See toolbudget.go.
	ToolBudget int
	// MCPUserFile is the user's mcp.json (ConfigFile's mcp.json), read by
	// ConnectMCP; "" reads none. MCPProject trusts the session folder's
	// .mcp.json too: its servers are commands from the repository.
	MCPUserFile string
	MCPProject  bool
	// MCPStartTimeout bounds starting one MCP server (0:
	// mcpclient.DefaultStartTimeout, 60 s); a server's startTimeout in
	// mcp.json replaces it.
	MCPStartTimeout time.Duration
	// MCPStartWait is how long a session's first step waits for its MCP
	// servers still starting (0: mcpclient.DefaultStartWait, 2 s); a
	// slower server's tools join from the step after it is up.
	MCPStartWait time.Duration
	// Getenv expands ${VAR} in the mcp.json files, and Environ is the
	// environment whose allow-listed part the MCP servers get, as the
	// plugins do (nil: the process's).
	Getenv  func(string) string
	Environ []string
	// PluginIdle stops a plugin that has been idle that long — no call in
	// flight, no step of a turn holding it, no session state in it (bash's
	// background tasks) — until its next call starts it again (0: never).
	// Plugins start on the first call to one of their tools either way
	// (toolbox.Config.StartOnUse).
	PluginIdle time.Duration
	// ConfinePlugins launches every plugin confined by the capabilities it
	// declares (pluginapi.Capabilities; see the README's "Plugin
	// capabilities"): a plugin declaring more than the default runs only
	// when it is a built-in (BuiltinPluginDirs) or the user trusted its
	// binary (`harness plugins trust`). It is off with Sandbox off.
	ConfinePlugins bool
	// BuiltinPluginDirs are the plugin dirs whose plugins ship with
	// harness (the plugins/ folder next to the executable): trusted with
	// what they declare.
	BuiltinPluginDirs []string
}

// Runtime runs turns of sessions with the plugins' tools. Build it with New.
type Runtime struct {
	cfg   Config
	log   hclog.Logger
	store *session.Store
	// sessions are the sessions open in this process, for the host services.
	sessions openSessions
	// sessionDirs are the folders a session added to the Runtime's
	// (SetSessionDirs), by session id: the editor's, given again on each
	// session/load; every change is logged (sandbox/policy).
	sessionDirs registry[[]string]
	// tools are the plugins' tools, nil until StartTools.
	tools *toolbox.Toolbox
	// approvers are the running turns' approvers, for their subagents.
	approvers approvers
	// editors are the running turns' editors, for the plugins' text files.
	editors editors
	// subagents runs child sessions for the subagent tool.
	subagents *subagent.Runner
	// mcp are the sessions' MCP servers, mcpWatch the front ends
	// watching their statuses.
	mcp      mcpSets
	mcpWatch mcpWatchers
	// frontEnds are the running turns' front ends, for their MCP servers'
	// questions (mcpcaps.go).
	frontEnds registry[frontEnd]
	// bg counts background work Close waits for.
	bg sync.WaitGroup
	// providers serve each model from its provider.
	providers *providers.Set
	// kernel is what this kernel offers a sandbox, for AutoRefusal.
	kernel confine.Kernel
}

// New checks cfg and returns a Runtime with no plugins started.
func New(cfg Config) (*Runtime, error) {
	if cfg.StateDir == "" {
		return nil, errors.New("engine: no state dir: set Config.StateDir")
	}
	if err := ownership.CheckDir(stateWhat, cfg.StateDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if cfg.HostVersion == "" {
		cfg.HostVersion = buildinfo.Version("")
	}
	cfg.Policy.Protected = append(slices.Clip(cfg.Policy.Protected), protectedPaths(cfg)...)
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	r := &Runtime{cfg: cfg, log: log, store: &session.Store{Dir: filepath.Join(cfg.StateDir, "sessions"), Backend: cfg.Sessions}}
	r.providers = &providers.Set{Default: cfg.Model, DefaultProvider: r.Models()[0].Provider}
	if cfg.OpenProvider != nil {
		r.providers.Open = func(m llm.ModelInfo) (providers.Model, error) { return cfg.OpenProvider(m) }
	}
	r.mcp = mcpSets{&mcpclient.Sessions{Start: r.startMCP, Logger: log, OnStatus: r.mcpWatch.tell,
		Sources: mcpclient.Sources{UserFile: cfg.MCPUserFile, TrustProject: cfg.MCPProject, Getenv: cfg.Getenv}}}
	r.subagents = &subagent.Runner{Store: r.store, Loop: r.Loop, Logger: log.Named("subagent"),
		MaxDepth: cfg.SubagentDepth, Budget: cfg.SubagentBudget}
	return r, nil
}

// stateWhat is what Config.StateDir is called in a refusal.
const stateWhat = "state folder"

// ensureStateDir creates the state folder if it is missing (0700 whatever
// the umask, as are its missing parents) and refuses one another user
// could write; one that exists is never chmodded.
func (r *Runtime) ensureStateDir() error {
	if err := ownership.MkdirAll(r.cfg.StateDir); err != nil {
		return fmt.Errorf("create the state folder: %w", err)
	}
	return ownership.CheckDir(stateWhat, r.cfg.StateDir)
}

// SessionsDir is the folder of the session logs, or what Config.
// SessionsWhere calls the store that keeps them.
func (r *Runtime) SessionsDir() string {
	if r.cfg.Sessions != nil {
		return r.cfg.SessionsWhere
	}
	return r.store.Dir
}

// Policy is the permission policy the Runtime was built with.
func (r *Runtime) Policy() permission.Policy { return r.cfg.Policy }

// Loop returns the agent loop for a session whose cwd is cwd: its system
// prompt is built now (AGENTS.md read), its tools are the plugins' as of
// each step.
func (r *Runtime) Loop(cwd string) (*agent.Loop, error) {
	res, err := prompt.Build(prompt.Env{Cwd: cwd, OS: runtime.GOOS, Date: time.Now(), Base: r.cfg.Instructions})
	if err != nil {
		return nil, err
	}
	if res.ProjectTruncated {
		r.log.Warn("project instructions cut", "file", res.Project, "kept_bytes", prompt.MaxProjectBytes)
	}
	// The prompt as the first request will carry it (SystemFor), so that
	// the loop's token accounting counts it as sent.
	system := res.Text
	if r.tools != nil {
		var names []string
		for _, t := range r.tools.Tools() {
			names = append(names, t.Spec.Name)
		}
		system = res.ForTools(names)
	}
	return &agent.Loop{
		Tools:     sessionTools{r: r},
		Model:     sessionModel{r: r}, // Run gives it the session
		ModelName: r.cfg.ModelName,
		System:    system,
		SystemFor: res.ForTools,
		MaxSteps:  r.cfg.MaxSteps,
		Logger:    r.log.Named("agent"),

		ContextWindow: r.cfg.ContextWindow,
		WindowOf:      r.windowOf,
		CompactAt:     r.cfg.CompactAt,
		CompactTarget: r.cfg.CompactTarget,
		KeepTokens:    r.cfg.KeepTokens,
		Sandbox:       r.callSandbox,
	}, nil
}

// Compact compacts the history of s now, in a turn of its own, with loop
// (nil: a loop built now for s's cwd), streaming the summary to live (a
// Live that implements agent.CompactionLive shows it). The editor's
// /compact and `harness run --compact` use it.
func (r *Runtime) Compact(ctx context.Context, s *session.Session, loop *agent.Loop, live agent.Live) agent.Outcome {
	if err := r.logModel(s); err != nil {
		return agent.Outcome{Reason: event.ReasonError, Err: err}
	}
	if loop == nil {
		l, err := r.Loop(s.Cwd())
		if err != nil {
			return agent.Outcome{Reason: event.ReasonError, Err: err}
		}
		loop = l
	}
	return loop.Compact(ctx, s, live)
}

// Run runs one turn of s on prompt with loop (nil: a loop built now for
// s's cwd), streaming deltas to live. Tools that need permission are
// decided by the policy, which asks asker (nil: nobody, so what needs
// asking is rejected); while the turn runs, its subagents' and plugins'
// questions go the same way. Images in prompt are stored as blobs of s
// first (or refused, nothing logged, when s's model takes none:
// ErrImagesUnsupported).
func (r *Runtime) Run(ctx context.Context, s *session.Session, loop *agent.Loop, prompt []event.Content, live agent.Live, asker permission.Asker) agent.Outcome {
	prompt, err := r.storeImages(s, prompt)
	if err != nil {
		return agent.Outcome{Reason: event.ReasonError, Err: err}
	}
	if err := r.logModel(s); err != nil {
		return agent.Outcome{Reason: event.ReasonError, Err: err}
	}
	// A session continued under another sandbox setting logs it: the log
	// tells what its commands could touch.
	if err := r.logSandbox(s); err != nil {
		return agent.Outcome{Reason: event.ReasonError, Err: err}
	}
	if loop == nil {
		l, err := r.Loop(s.Cwd())
		if err != nil {
			return agent.Outcome{Reason: event.ReasonError, Err: err}
		}
		loop = l
	}
	turn := *loop // this turn's: its approver asks through this turn's asker
	if m, ok := turn.Model.(sessionModel); ok {
		m.s = s // the session's model, as of each step
		turn.Model = m
	}
	checker := permission.Checker{Policy: r.cfg.Policy}
	if asker != nil {
		checker.Asker = asker
	}
	turn.Approver = loopApprover{c: checker, s: s, r: r}
	defer r.approvers.set(s.ID(), turn.Approver)()
	defer r.setFrontEnd(s.ID(), live, asker)()
	turn.SystemFor = r.withMCPInstructions(s.ID(), turn.SystemFor, turn.System)
	if ed, ok := live.(EditorFiles); ok {
		defer r.editors.set(s.ID(), ed)()
	}
	return turn.Run(ctx, s, prompt, live)
}

// loopApprover adapts a permission checker to the loop's Approver. It
// decides with the session's mode as the log holds it when the call is
// decided, so a switch during a turn applies to the calls not yet decided.
type loopApprover struct {
	c permission.Checker
	s *session.Session
	r *Runtime
}

// Approve implements agent.Approver.
func (a loopApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	c := a.c
	c.Policy.Mode = a.r.SessionMode(a.s)
	if c.Policy.Mode == permission.ModeAuto {
		if err := a.r.AutoRefusal(); err != nil {
			// A session in auto continued where the sandbox cannot hold
			// it: asked as in ask, never less.
			a.r.log.Warn("session is in auto mode but the sandbox cannot hold it; asking", "session", a.s.ID(), "error", err)
			c.Policy.Mode = permission.ModeAsk
		}
	}
	if req.Kind == permission.KindRead && (req.MCP != nil || req.Tool == mcpclient.ReadResourceTool) {
		// An MCP tool its server annotated readOnlyHint (the only MCP
		// tools of kind read: mcpclient.ServerTool.AsTool) is treated as a
		// read: where the session's mode would ask, it runs (in read-only,
		// ask and accept-edits mode alike, as a plugin's read tools do).
		// The hint is the server's word, not a promise: deny and ask rules
		// and "always reject" answers still apply. mcp_read_resource is
		// such a read too: resources/read changes nothing, by the protocol.
		c.Policy.Mode = permission.ModeAllowAll
	}
	preq := permission.Request{SessionID: req.SessionID, CallID: req.CallID, Tool: req.Tool, Kind: req.Kind,
		Cwd: a.s.Cwd(), Args: []byte(req.Args), Title: cmp.Or(req.Title, req.ToolTitle), Always: req.Always, Once: req.Once, NoAlways: req.Once}
	// The bash plugin's calls: run inside an enforced sandbox, or asking
	// to leave it (the sandbox its tool/call records says which).
	if sb := req.Sandbox; sb != nil && a.r.Sandbox().Mode != sandbox.Off {
		preq.Escalate = confine.Escalates(req.Args)
		preq.Sandboxed = !preq.Escalate && sb.Mode != string(sandbox.Off)
		if preq.Escalate {
			preq.Justification = confine.Justification(req.Args)
		}
	}
	if req.Kind != "" {
		preq.AlwaysKind = a.s.AlwaysKind(req.Kind)
	}
	v, err := c.Check(ctx, preq)
	return agent.Approval{Decision: v.Decision, Source: v.Source, Reason: v.Reason, Scope: v.Scope, Kind: v.Kind}, err
}

// SessionMode is the permission mode of s: the last one its log holds,
// else (a log written before modes) the configured one. A mode this host
// does not know (a newer host's) is taken as ask.
func (r *Runtime) SessionMode(s *session.Session) permission.Mode {
	m := s.Mode()
	if m == "" {
		if r.cfg.Policy.Mode == "" {
			return permission.ModeAsk
		}
		return r.cfg.Policy.Mode
	}
	pm, err := permission.ParseMode(m)
	if err != nil {
		r.log.Warn("session has an unknown permission mode; asking", "session", s.ID(), "mode", m)
		return permission.ModeAsk
	}
	return pm
}

// SetSessionMode switches s to mode m, set by by (event.ByClient, …), and
// logs it; a mode the log already holds is not logged again. It may be
// called while a turn runs: the calls not yet decided get the new mode.
func (r *Runtime) SetSessionMode(s *session.Session, m permission.Mode, by event.By) error {
	if _, err := permission.ParseMode(string(m)); err != nil {
		return err
	}
	if m == permission.ModeAuto {
		if err := r.AutoRefusal(); err != nil {
			return err // one line: why and what to do
		}
	}
	if s.Mode() == string(m) {
		return nil
	}
	if _, err := s.Append(event.PermissionMode{Mode: string(m), By: by}); err != nil {
		return fmt.Errorf("set the mode of session %s: %w", s.ID(), err)
	}
	return nil
}

// CreateSession creates a session whose cwd is cwd, known to the host
// services until CloseSession, and logs its permission mode (the
// configured one) and its model (the default, By host).
func (r *Runtime) CreateSession(cwd string) (*session.Session, error) {
	return r.CreateSessionWithDirs(cwd, nil)
}

// CreateSessionWithDirs is CreateSession for a session that adds the
// folders dirs to the Runtime's (SetSessionDirs; ACP's
// additionalDirectories), logged in its first sandbox/policy. A bad
// folder is an error naming it, and no session is made.
func (r *Runtime) CreateSessionWithDirs(cwd string, dirs []string) (*session.Session, error) {
	checked, err := r.checkSessionDirs(dirs)
	if err != nil {
		return nil, err
	}
	if err := r.ensureStateDir(); err != nil {
		return nil, err
	}
	s, err := r.store.Create(session.CreateOptions{Cwd: cwd})
	if err != nil {
		return nil, err
	}
	if len(checked) > 0 {
		r.sessionDirs.set(s.ID(), checked)
	}
	// The log alone tells the mode: the configured one is its first event;
	// and the model it starts on, which prices it in a listing.
	if err := r.SetSessionMode(s, r.SessionMode(s), event.ByHost); err != nil {
		s.Close()
		return nil, err
	}
	if err := r.logSandbox(s); err != nil {
		r.sessionDirs.remove(s.ID())
		s.Close()
		return nil, err
	}
	if err := r.logModel(s); err != nil {
		r.sessionDirs.remove(s.ID())
		s.Close()
		return nil, err
	}
	r.sessions.add(s)
	return s, nil
}

// OpenSession opens session id, known to the host services until
// CloseSession. A missing session is session.ErrNotFound.
func (r *Runtime) OpenSession(id string) (*session.Session, error) {
	s, err := r.store.Open(id)
	if err != nil {
		return nil, err
	}
	r.sessions.add(s)
	return s, nil
}

// MirrorSession opens session id read-only while another process holds
// it (OpenSession failed with held, an error matching
// eventlog.ErrLocked): it follows what the writer appends, and a turn on
// it fails at its first event with a line quoting held
// (session.Store.Mirror).
func (r *Runtime) MirrorSession(id string, held error) (*session.Session, error) {
	s, err := r.store.Mirror(id, held)
	if err != nil {
		return nil, err
	}
	r.sessions.add(s)
	return s, nil
}

// ListSessions lists the store's sessions, newest first.
func (r *Runtime) ListSessions() ([]session.Summary, error) { return r.store.List() }

// CloseSession closes s and forgets it, and tells the plugins, in the
// background, so that they drop what they hold for it (bash's background
// tasks).
func (r *Runtime) CloseSession(s *session.Session) error {
	r.sessions.remove(s.ID())
	r.sessionDirs.remove(s.ID())
	r.mcp.Close(s.ID())
	r.mcpWatch.forget(s.ID())
	if r.tools != nil {
		r.bg.Add(1)
		go func() {
			defer r.bg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := r.tools.SessionClosed(ctx, s.ID()); err != nil {
				r.log.Warn("plugins not told a session ended", "session", s.ID(), "error", err)
			}
		}()
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("close session %s: %w", s.ID(), err)
	}
	return nil
}

// Close waits for background work and stops the plugins.
func (r *Runtime) Close() error {
	r.mcp.CloseAll()
	if r.tools == nil {
		return nil
	}
	r.bg.Wait()
	if err := r.tools.Close(); err != nil {
		return fmt.Errorf("stop plugins: %w", err)
	}
	return nil
}

// StartTools registers the plugins of the configured plugin dirs, and
// attaches to the plugins running in debug mode that Config.Reattach names.
// A plugin's tools come from its description cached by the binary's
// sha256; its process starts on the first call to one of them (a binary
// not seen before is started once to be described), and stops after
// Config.PluginIdle without use.
func (r *Runtime) StartTools(ctx context.Context) error {
	reattach, err := pluginhost.ParseReattach(r.cfg.Reattach)
	if err != nil {
		return err // "parse HARNESS_REATTACH_PLUGINS: …"
	}
	if err := r.ensureStateDir(); err != nil {
		return err
	}
	// The cache's folders are made here, 0700 whatever the umask (a plain
	// mkdir of plugins/ under umask 0277 would be 0500).
	if err := ownership.MkdirAll(filepath.Join(r.cfg.StateDir, "plugins", "cache")); err != nil {
		return fmt.Errorf("start plugins: %w", err)
	}
	cwd, _ := os.Getwd() // a confined plugin's "cwd" when no call starts it
	tb, err := toolbox.Open(ctx, toolbox.Config{
		Dirs:        r.cfg.PluginDirs,
		CacheDir:    filepath.Join(r.cfg.StateDir, "plugins", "cache"),
		Logger:      r.log.Named("toolbox"),
		HostVersion: r.cfg.HostVersion,
		LogLevel:    r.cfg.LogLevel,
		StateDir:    r.cfg.StateDir,
		Services:    &services.Host{Sessions: &r.sessions, Approvers: &r.approvers, Editors: &r.editors, Subagents: children{r}},
		Watch:       r.cfg.Watch,
		ReloadsFile: filepath.Join(r.cfg.StateDir, "plugins", "reloads.json"),
		Reattach:    reattach,
		PluginEnv:   r.cfg.PluginEnv,
		Env:         r.cfg.Sandbox.Env(),
		StartOnUse:  true,
		IdleTimeout: r.cfg.PluginIdle,
		Supervisor:  confine.Supervise,
		Confiner:    r.confiner(),
		Cwd:         cwd,
	})
	if err != nil {
		return fmt.Errorf("start plugins: %w", err)
	}
	r.tools = tb
	r.subagents.Tools = sessionTools{r: r}
	return nil
}

// Plugins describes the plugins found, started or failed; nil before
// StartTools.
func (r *Runtime) Plugins() []toolbox.PluginInfo {
	if r.tools == nil {
		return nil
	}
	return r.tools.Plugins()
}

// Tools lists the plugins' tools; nil before StartTools.
func (r *Runtime) Tools() []tool.Tool {
	if r.tools == nil {
		return nil
	}
	return r.tools.Tools()
}

// HasTool reports whether the plugins offer a tool named name.
func (r *Runtime) HasTool(name string) bool {
	for _, t := range r.Tools() {
		if t.Spec.Name == name {
			return true
		}
	}
	return false
}
