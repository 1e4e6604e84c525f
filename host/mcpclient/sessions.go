package mcpclient

import (
	"sync"

	"github.com/hashicorp/go-hclog"
)

// Sessions are the MCP servers of a host's sessions, by session id: each
// session's own, gathered from Sources and the front end's list and
// started with Start (Connect), and those lent to its running child
// sessions, which use their root session's (Lend): a child's end does not
// stop them. A session's servers stop when it closes (Close). Start is
// required; it is safe for concurrent use.
type Sessions struct {
	Sources Sources
	// Start starts servers for a session in folder cwd, telling onStatus
	// (nil for a listing) of their changes (Options.OnStatus).
	Start func(servers []ServerConfig, cwd string, onStatus func(Status)) *Set
	// Logger gets one warning line for what the files left out and for
	// the project's servers not trusted (nil: discarded).
	Logger hclog.Logger
	// OnStatus is told of the changes of session id's servers, and of
	// what its configuration files left out (StatusInvalid, a Notice) by
	// Connect (nil: nobody); it must not block.
	OnStatus func(id string, st Status)

	mu   sync.Mutex // guards own and lent
	own  map[string]*Set
	lent map[string]*Set
}

// Connect starts the servers of session id in folder cwd: the Sources',
// then servers (the editor's), a later source's server replacing an
// earlier one of the same name; they replace the session's servers, if
// any, which stop. What a file left out is one warning line and one
// Status each (StatusInvalid, Notice).
func (m *Sessions) Connect(id, cwd string, servers []ServerConfig) {
	var onStatus func(Status)
	if m.OnStatus != nil {
		onStatus = func(st Status) { m.OnStatus(id, st) }
	}
	all, untrusted, warnings := m.Sources.Gather(cwd, servers)
	for _, w := range warnings {
		m.log().Warn(w)
		if onStatus != nil {
			onStatus(Status{State: StatusInvalid, Err: w, Notice: true})
		}
	}
	if len(untrusted) > 0 {
		m.log().Warn(m.Sources.Untrusted(untrusted))
	}
	m.Close(id)
	if len(all) == 0 {
		return
	}
	set := m.Start(all, cwd, onStatus)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.own == nil {
		m.own = map[string]*Set{}
	}
	m.own[id] = set
}

// List lists the servers a session in folder cwd would have from the
// Sources, each started to list its tools and stopped again; the
// project's untrusted servers are listed not started (NotTrusted).
func (m *Sessions) List(cwd string) []ServerInfo {
	all, untrusted := m.gather(cwd, nil)
	var out []ServerInfo
	if len(all) > 0 {
		set := m.Start(all, cwd, nil)
		out = set.Servers()
		_ = set.Close()
	}
	for _, c := range untrusted {
		out = append(out, NotTrusted(c))
	}
	return out
}

func (m *Sessions) gather(cwd string, servers []ServerConfig) (all, untrusted []ServerConfig) {
	all, untrusted, warnings := m.Sources.Gather(cwd, servers)
	for _, w := range warnings {
		m.log().Warn(w)
	}
	return all, untrusted
}

func (m *Sessions) log() hclog.Logger {
	if m.Logger == nil {
		return hclog.NewNullLogger()
	}
	return m.Logger
}

// Own returns session id's own servers.
func (m *Sessions) Own(id string) (*Set, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	set, ok := m.own[id]
	return set, ok
}

// Of returns the servers session id uses: its own, or its root's when it
// is a running child.
func (m *Sessions) Of(id string) (*Set, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if set, ok := m.own[id]; ok {
		return set, true
	}
	set, ok := m.lent[id]
	return set, ok
}

// Lend has child use set, its root session's servers (Of the parent),
// until unlend.
func (m *Sessions) Lend(child string, set *Set) (unlend func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lent == nil {
		m.lent = map[string]*Set{}
	}
	m.lent[child] = set
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.lent, child)
	}
}

// Close stops session id's own servers, if any.
func (m *Sessions) Close(id string) {
	m.mu.Lock()
	set, ok := m.own[id]
	delete(m.own, id)
	m.mu.Unlock()
	if ok {
		_ = set.Close()
	}
}

// CloseAll stops every session's servers.
func (m *Sessions) CloseAll() {
	m.mu.Lock()
	sets := m.own
	m.own = nil
	m.mu.Unlock()
	for _, set := range sets {
		_ = set.Close()
	}
}
