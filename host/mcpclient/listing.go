package mcpclient

import "context"

// ServerInfo is what a listing shows of one configured server: where it
// comes from, how it is reached and what it offers. It never holds the
// server's env or header values, its arguments, or a URL's credentials,
// query or fragment.
type ServerInfo struct {
	Name string
	// Transport is Stdio, HTTP or SSE.
	Transport string
	// Where is the command (without its arguments) or the URL (redacted).
	Where string
	// Source is where it was configured (a file's path, the editor).
	Source string
	// Sandbox says how a stdio server runs: "off" (with the user's
	// rights), or its policy and network ("workspace-write, network
	// off"); "" for an http or sse server.
	Sandbox string
	// Status is StatusStarting, StatusUp, StatusRestarting, StatusFailed,
	// StatusInvalid or StatusNotStarted; Err says why when it is not up.
	Status string
	Err    string
	// ServerName and ServerVersion are what it said in initialize.
	ServerName, ServerVersion string
	// Tools are its tools, as the model sees them: when it is up, and
	// its last list while it restarts or is down.
	Tools []ServerTool
}

// Statuses of ServerInfo.
const (
	StatusStarting   = "starting" // its first start is under way
	StatusUp         = "up"
	StatusRestarting = "restarting"  // started again after it failed or died
	StatusFailed     = "failed"      // did not start or died: started again on its next use, or down for the session (Err says which)
	StatusInvalid    = "invalid"     // its configuration was refused
	StatusNotStarted = "not started" // left out on purpose (an untrusted project's)
)

// Info is what a listing shows of c before it is started: its name,
// transport, command or redacted URL and source.
func (c ServerConfig) Info() ServerInfo {
	i := ServerInfo{Name: c.Name, Transport: c.transport(), Where: c.where(), Source: c.Source}
	if i.Transport == Stdio {
		i.Sandbox = c.SandboxSummary()
	}
	return i
}

// Servers describes the set's servers — those Start refused first, then
// the others in their configuration's order — waiting for those in their
// first start (each bounded by its start timeout).
func (s *Set) Servers() []ServerInfo {
	if s == nil {
		return nil
	}
	_ = s.Wait(context.Background())
	out := append([]ServerInfo(nil), s.invalid...)
	for _, sv := range s.servers {
		tools := sv.listTools()
		info := sv.cfg.Info()
		sv.mu.Lock()
		info.Status, info.Tools = sv.state, tools
		info.ServerName, info.ServerVersion = sv.prov.ServerName, sv.prov.ServerVersion
		switch {
		case sv.gaveUp:
			info.Err = sv.unavailable()
		case sv.cs == nil:
			info.Err = sv.why
		}
		sv.mu.Unlock()
		out = append(out, info)
	}
	return out
}
