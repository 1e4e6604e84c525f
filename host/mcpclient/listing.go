package mcpclient

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
	// Status is StatusUp, StatusFailed, StatusInvalid or StatusNotStarted;
	// Err says why when it is not up.
	Status string
	Err    string
	// ServerName and ServerVersion are what it said in initialize.
	ServerName, ServerVersion string
	// Tools are its tools, as the model sees them, when it is up.
	Tools []ServerTool
}

// Statuses of ServerInfo.
const (
	StatusUp         = "up"
	StatusFailed     = "failed"      // did not start, or disabled after crashes
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
// the others in their configuration's order — waiting for those still
// starting, as Tools does.
func (s *Set) Servers() []ServerInfo {
	if s == nil {
		return nil
	}
	out := append([]ServerInfo(nil), s.invalid...)
	for _, sv := range s.servers {
		tools := sv.listTools() // waits for the first start
		info := sv.cfg.Info()
		sv.mu.Lock()
		switch {
		case sv.cs != nil:
			info.Status, info.Tools = StatusUp, tools
			info.ServerName, info.ServerVersion = sv.prov.ServerName, sv.prov.ServerVersion
		case sv.disabled != "":
			info.Status, info.Err = StatusFailed, sv.disabled
		default:
			info.Status, info.Err = StatusFailed, "not running (it stopped); it is started again on its next use"
		}
		sv.mu.Unlock()
		out = append(out, info)
	}
	return out
}
