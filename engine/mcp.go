package engine

import (
	"context"
	"os"
	"sync"

	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
)

// MCPStatus is a change of state of a session's MCP server, or a
// configuration of one refused (mcpclient.Status); Notice marks what a
// person is to be told.
type MCPStatus = mcpclient.Status

// MCPServer is one MCP server a front end connects to a session (the
// editor's, from session/new).
type MCPServer = mcpclient.ServerConfig

// MCPEnvVar is a variable of an MCPServer's env, or one of its headers.
type MCPEnvVar = mcpclient.EnvVar

// mcpSets are the sessions' MCP servers (mcpclient.Sessions).
type mcpSets struct{ *mcpclient.Sessions }

// of returns the MCP servers session id uses: its own, or its root's
// when it is a running child.
func (m mcpSets) of(id string) (*mcpclient.Set, bool) { return m.Of(id) }

// ConnectMCP connects the MCP servers of session s: the user's mcp.json
// (Config.MCPUserFile), the project's .mcp.json in the session's folder
// when Config.MCPProject trusts it, and servers (the editor's), a later
// source's server replacing an earlier one of the same name. They start in
// the background — the first step waits at most mcpclient.DefaultStartWait
// (2 s) for them, a slower one's tools join from the step after it is up
// — belong to s and stop when it is closed. A server that fails or dies
// is one warning line and a status to the session's watchers (WatchMCP),
// and is started again on its next use, within its restart budget; the
// session goes on without it. Calling it again replaces the servers.
func (r *Runtime) ConnectMCP(s *session.Session, servers []MCPServer) {
	r.mcp.Connect(s.ID(), s.Cwd(), servers)
	r.setMCPRoots(s)
}

// startMCP starts servers for a session in folder cwd, their statuses
// told to onStatus (nil: a listing's).
func (r *Runtime) startMCP(servers []MCPServer, cwd string, onStatus func(mcpclient.Status)) *mcpclient.Set {
	environ := r.cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return mcpclient.Start(servers, mcpclient.Options{
		Logger: r.log.Named("mcp"), Environ: environ, PassEnv: r.cfg.PluginEnv, Cwd: cwd,
		ClientName: "harness", ClientVersion: r.cfg.HostVersion, StartTimeout: r.cfg.MCPStartTimeout,
		StartWait: r.cfg.MCPStartWait, Confine: r.mcpConfiner(), OnStatus: onStatus,
		Elicit: r.elicitMCP, Sample: r.sampleMCP,
	})
}

// WatchMCP has f told of every status of session id's MCP servers (those
// of a subagent child are its root's) until stop is called; the notices
// that came while the session had no watcher (at most maxPendingNotices,
// the latest) are told to the first watcher first. f is called in order,
// one status at a time, and must not block: a front end shows a notice
// (the ACP bridge as a message, the terminal as a line), never writes it
// to the log, where the model would read it as its own words.
func (r *Runtime) WatchMCP(id string, f func(MCPStatus)) (stop func()) {
	return r.mcpWatch.watch(id, f)
}

// maxPendingNotices bounds the notices kept for a session's first watcher.
const maxPendingNotices = 32

// mcpWatchers are the sessions' watchers of their MCP statuses (WatchMCP)
// and the notices kept until one watches. They are connections, not
// session state.
type mcpWatchers struct {
	mu sync.Mutex // guards by and n, and orders the calls of the watchers
	by map[string]*mcpWatch
	n  int
}

type mcpWatch struct {
	fs      map[int]func(MCPStatus)
	pending []MCPStatus
}

func (w *mcpWatchers) entry(id string) *mcpWatch {
	if w.by == nil {
		w.by = map[string]*mcpWatch{}
	}
	e := w.by[id]
	if e == nil {
		e = &mcpWatch{fs: map[int]func(MCPStatus){}}
		w.by[id] = e
	}
	return e
}

func (w *mcpWatchers) watch(id string, f func(MCPStatus)) (stop func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.entry(id)
	for _, st := range e.pending {
		f(st)
	}
	e.pending = nil
	w.n++
	k := w.n
	e.fs[k] = f
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e := w.by[id]; e != nil {
			delete(e.fs, k)
		}
	}
}

// tell hands st to session id's watchers, or keeps it for the first when
// it is a notice and none watches.
func (w *mcpWatchers) tell(id string, st MCPStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.entry(id)
	if len(e.fs) == 0 {
		if st.Notice {
			e.pending = append(e.pending, st)
			if len(e.pending) > maxPendingNotices {
				e.pending = e.pending[len(e.pending)-maxPendingNotices:]
			}
		}
		return
	}
	for _, f := range e.fs {
		f(st)
	}
}

// forget drops session id's watchers and what was kept for them.
func (w *mcpWatchers) forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.by, id)
}

// MCPServers lists the MCP servers a session in folder cwd would have
// from the configuration files (the user's mcp.json; the project's
// .mcp.json, whose servers are listed as not started unless
// Config.MCPProject trusts it), each started to list its tools and
// stopped again (each start bounded by Config.MCPStartTimeout). What it
// returns holds no env or header values, no arguments and no URL
// credentials or query: see mcpclient.ServerInfo.
func (r *Runtime) MCPServers(cwd string) []mcpclient.ServerInfo { return r.mcp.List(cwd) }

// MCPTools lists the tools of session id's MCP servers once their first
// starts have ended (each bounded by its start timeout).
func (r *Runtime) MCPTools(id string) []mcpclient.ServerTool {
	set, _ := r.mcp.Own(id)
	_ = set.Wait(context.Background())
	return set.Tools()
}
