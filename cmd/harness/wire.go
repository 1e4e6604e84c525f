package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/prompt"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/host/toolbox"
)

// parseFlags parses args into fs. It returns done when the command should
// stop: after -h (code 0) or a bad flag, which fs has already reported.
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return exitOK, true
	default:
		return exitUsage, true
	}
}

// host is the wiring shared by the commands that run turns.
type host struct {
	cfg       *config
	log       hclog.Logger
	stateDir  string
	store     *session.Store
	model     agent.Model
	modelName string
	// base replaces the default instructions (--system-prompt-file).
	base string
	// color allows ANSI styles on a terminal: NO_COLOR unset, TERM not dumb.
	color bool
	// sessions are the sessions open in this process, for HostServices.
	sessions openSessions
	// tools are the plugins' tools, nil until startTools.
	tools *toolbox.Toolbox
	// policy decides on tools that need permission.
	policy permission.Policy
	// approvers are the running turns' approvers, for their subagents.
	approvers approvers
	// subagents runs child sessions for the subagent tool.
	subagents *subagent.Runner
	// bg counts background work close waits for.
	bg sync.WaitGroup
}

// newHost checks the configuration and builds the logger, the session store
// and the model provider; a non-nil model is used instead of the configured
// provider (the demo brings its own script).
func newHost(c *config, e env, std stdio, model agent.Model) (*host, error) {
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", err, errUsage)
	}
	log, err := newLogger(std.err, c.LogLevel, false)
	if err != nil {
		return nil, err
	}
	dir, err := c.stateDir(e)
	if err != nil {
		return nil, err
	}
	h := &host{cfg: c, log: log, stateDir: dir, store: &session.Store{Dir: filepath.Join(dir, "sessions")},
		color: e.get("NO_COLOR") == "" && e.get("TERM") != "dumb"}
	if h.policy, err = c.policy(e); err != nil {
		return nil, err
	}
	if c.SystemPromptFile != "" {
		b, err := os.ReadFile(c.SystemPromptFile)
		if err != nil {
			return nil, fmt.Errorf("read --system-prompt-file: %w", err)
		}
		h.base = string(b)
	}
	if model != nil {
		h.model, h.modelName = model, c.Provider
	} else if h.model, h.modelName, err = newModel(c, e, log); err != nil {
		return nil, err
	}
	h.subagents = &subagent.Runner{Store: h.store, Loop: h.loop, Logger: log.Named("subagent"),
		MaxDepth: c.SubagentDepth, Budget: subagent.Budget{Steps: c.SubagentSteps, Wall: c.SubagentTime, Tokens: c.SubagentTokens}}
	return h, nil
}

// loop returns the agent loop for a session whose cwd is cwd.
func (h *host) loop(cwd string) (*agent.Loop, error) {
	res, err := prompt.Build(prompt.Env{Cwd: cwd, OS: runtime.GOOS, Date: time.Now(), Base: h.base})
	if err != nil {
		return nil, err
	}
	if res.ProjectTruncated {
		h.log.Warn("project instructions cut", "file", res.Project, "kept_bytes", prompt.MaxProjectBytes)
	}
	var tools agent.Toolbox
	if h.tools != nil {
		tools = loopTools{h.tools}
	}
	return &agent.Loop{
		Tools:     tools,
		Model:     toolPrompt{Model: h.model, prompt: res},
		ModelName: h.modelName,
		System:    res.Text,
		MaxSteps:  h.cfg.MaxSteps,
		Logger:    h.log.Named("agent"),
	}, nil
}

// toolPrompt sends every request with the system prompt naming the tools
// of that request: the tool list can change between steps (hot reload), so
// a prompt built once would name tools no longer sent, or miss new ones.
type toolPrompt struct {
	agent.Model
	prompt prompt.Result
}

// Stream implements agent.Model.
func (m toolPrompt) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	req.System = m.prompt.ForTools(names)
	return m.Model.Stream(ctx, req)
}

// openSession opens session id, or creates one in the current directory
// when id is empty. The session is known to HostServices until closeSession.
func (h *host) openSession(id string) (*session.Session, error) {
	var s *session.Session
	var err error
	if id != "" {
		s, err = h.store.Open(id)
		if errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("no session %q in %s: list them with harness sessions", id, h.store.Dir)
		}
	} else {
		cwd, werr := os.Getwd()
		if werr != nil {
			return nil, fmt.Errorf("find the current directory: %w", werr)
		}
		s, err = h.store.Create(session.CreateOptions{Cwd: cwd})
	}
	if err != nil {
		return nil, err
	}
	h.sessions.add(s)
	return s, nil
}

// closeSession closes s and forgets it, and tells the plugins, in the
// background, so that they drop what they hold for it (bash's background
// tasks).
func (h *host) closeSession(s *session.Session) error {
	h.sessions.remove(s.ID())
	if h.tools != nil {
		h.bg.Add(1)
		go func() {
			defer h.bg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := h.tools.SessionClosed(ctx, s.ID()); err != nil {
				h.log.Warn("plugins not told a session ended", "session", s.ID(), "error", err)
			}
		}()
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("close session %s: %w", s.ID(), err)
	}
	return nil
}

// close stops the plugins.
func (h *host) close() error {
	if h.tools == nil {
		return nil
	}
	h.bg.Wait()
	if err := h.tools.Close(); err != nil {
		return fmt.Errorf("stop plugins: %w", err)
	}
	return nil
}
