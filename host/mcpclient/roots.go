package mcpclient

import (
	"net/url"
	"path/filepath"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootList is a Set's roots, the folders its servers may work in (the
// session's folder and the folders it added), shared by the clients of
// its servers' current connections: a change is sent to each as
// notifications/roots/list_changed, and roots/list answers with it.
type rootList struct {
	mu      sync.Mutex
	dirs    []string
	clients map[*server]*mcp.Client // each server's current connection's
}

func newRootList(dirs []string) *rootList {
	return &rootList{dirs: cleanDirs(dirs), clients: map[*server]*mcp.Client{}}
}

// attach makes c server sv's client, holding the roots as they are now.
func (r *rootList) attach(sv *server, c *mcp.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.AddRoots(asRoots(r.dirs)...) // before Connect: notifies no one
	r.clients[sv] = c
}

// set makes dirs the roots; each connected server is told that the list
// changed (the SDK sends roots/list_changed to each session of a client
// whose list changed).
func (r *rootList) set(dirs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	dirs = cleanDirs(dirs)
	if slices.Equal(dirs, r.dirs) {
		return
	}
	var gone []string
	for _, d := range r.dirs {
		if !slices.Contains(dirs, d) {
			gone = append(gone, rootURI(d))
		}
	}
	var added []string
	for _, d := range dirs {
		if !slices.Contains(r.dirs, d) {
			added = append(added, d)
		}
	}
	r.dirs = dirs
	for _, c := range r.clients {
		c.RemoveRoots(gone...)
		c.AddRoots(asRoots(added)...)
	}
}

func (r *rootList) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.dirs)
}

// cleanDirs is dirs cleaned, without empty or repeated entries, in order.
func cleanDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func asRoots(dirs []string) []*mcp.Root {
	out := make([]*mcp.Root, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, &mcp.Root{URI: rootURI(d), Name: filepath.Base(d)})
	}
	return out
}

// rootURI is the file: URI of folder dir.
func rootURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// SetRoots makes dirs the roots the set's servers are offered (the
// session's folder, then the folders it added); servers that are up are
// sent notifications/roots/list_changed. Until it is called the roots are
// Options.Roots, else Options.Cwd.
func (s *Set) SetRoots(dirs []string) {
	if s == nil {
		return
	}
	s.roots.set(dirs)
}

// Roots returns the roots the set's servers are offered.
func (s *Set) Roots() []string {
	if s == nil {
		return nil
	}
	return s.roots.get()
}
