package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/ownership"
)

// Transport kinds of a ServerConfig.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
)

// ServerConfig is one MCP server to connect: a command to run (stdio) or
// a URL to reach (http: streamable HTTP; sse: the older HTTP+SSE).
type ServerConfig struct {
	// Name is the server's name in its source; its tools are
	// mcp__<Name>__<tool>.
	Name string
	// Type is Stdio, HTTP or SSE ("" is Stdio).
	Type string
	// Command, Args and Env start a stdio server. Env is added to the
	// allow-listed part of the host's environment; its values are passed
	// to the server and never logged.
	Command string
	Args    []string
	Env     []EnvVar
	// URL and Headers reach an http or sse server. Header values are sent
	// and never logged.
	URL     string
	Headers []EnvVar
	// Sandbox confines a stdio server: SandboxWorkspaceWrite,
	// SandboxReadOnly, or SandboxOff ("" is off: it runs with the user's
	// rights, as before the key existed). Network is NetworkOn or
	// NetworkOff ("" is off) and only means something when sandboxed.
	// An http or sse server may set neither: nothing of it runs here.
	Sandbox string
	Network string
	// Sampling lets the server sample the session's model
	// (sampling/createMessage), the user asked each time; false refuses
	// it with a line saying how to allow it. mcp.json's "sampling": true.
	Sampling bool
	// StartTimeout bounds its start (launch, initialize, the first
	// tools/list); 0: Options.StartTimeout. mcp.json's "startTimeout",
	// in seconds.
	StartTimeout time.Duration
	// Source says where the server was configured, for messages: "the
	// editor (session/new)", a file's path.
	Source string
}

// Values of ServerConfig.Sandbox and ServerConfig.Network, as mcp.json
// spells them.
const (
	SandboxOff            = "off"
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	NetworkOff            = "off"
	NetworkOn             = "on"
)

// Sandboxed reports whether c asks to be confined.
func (c ServerConfig) Sandboxed() bool {
	return c.Sandbox == SandboxReadOnly || c.Sandbox == SandboxWorkspaceWrite
}

// SandboxSummary says how c runs, for listings and the log:
// "workspace-write, network off", or "off".
func (c ServerConfig) SandboxSummary() string {
	if !c.Sandboxed() {
		return SandboxOff
	}
	net := NetworkOff
	if c.Network == NetworkOn {
		net = NetworkOn
	}
	return c.Sandbox + ", network " + net
}

// EnvVar is a name and a value: an environment variable or a header.
type EnvVar struct{ Name, Value string }

// transport is c's type, "" read as Stdio.
func (c ServerConfig) transport() string {
	if c.Type == "" {
		return Stdio
	}
	return c.Type
}

// where names how the server is reached, for messages and provenance: the
// command without its arguments, or the URL without credentials, query
// and fragment (either may hold a token).
func (c ServerConfig) where() string {
	if c.transport() == Stdio {
		return c.Command
	}
	return RedactURL(c.URL)
}

// RedactURL returns u without user info, query and fragment.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	return p.String()
}

// check says what is wrong with c, if anything: one line, naming the
// server, never a value of its environment or headers.
func (c ServerConfig) check() error {
	if !validServerName(c.Name) {
		return fmt.Errorf("MCP server name %q: use letters, digits, - and _ only", c.Name)
	}
	switch c.transport() {
	case Stdio:
		if c.Command == "" {
			return fmt.Errorf("MCP server %s: no command", c.Name)
		}
		switch c.Sandbox {
		case "", SandboxOff, SandboxReadOnly, SandboxWorkspaceWrite:
		default:
			return fmt.Errorf("MCP server %s: sandbox %q is not %q, %q or %q", c.Name, c.Sandbox, SandboxWorkspaceWrite, SandboxReadOnly, SandboxOff)
		}
		switch c.Network {
		case "", NetworkOff:
		case NetworkOn:
			if !c.Sandboxed() {
				return fmt.Errorf("MCP server %s: network %q has no effect without a sandbox; set sandbox to %q or %q, or drop network", c.Name, c.Network, SandboxWorkspaceWrite, SandboxReadOnly)
			}
		default:
			return fmt.Errorf("MCP server %s: network %q is not %q or %q", c.Name, c.Network, NetworkOff, NetworkOn)
		}
	case HTTP, SSE:
		if c.Sandbox != "" || c.Network != "" {
			return fmt.Errorf("MCP server %s: sandbox and network apply to stdio servers only (a %s server runs elsewhere: nothing here to confine); drop them", c.Name, c.transport())
		}
		p, err := url.Parse(c.URL)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("MCP server %s: url %q is not an http(s) URL", c.Name, RedactURL(c.URL))
		}
	default:
		return fmt.Errorf("MCP server %s: type %q is not stdio, http or sse", c.Name, c.Type)
	}
	return nil
}

// validServerName: ^[a-zA-Z0-9_-]{1,}$, so that mcp__<server>__<tool> is
// a tool name the providers take.
func validServerName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
}

// maxStartTimeout bounds mcp.json's startTimeout: an hour.
const maxStartTimeout = time.Hour

// fileServer is one entry of a .mcp.json file, in Claude Code's shape.
type fileServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Sandbox string            `json:"sandbox"`
	Network string            `json:"network"`

	Sampling bool `json:"sampling"` // harness's own
	// StartTimeout is in seconds; a pointer, to tell 0 from absent
	StartTimeout *float64 `json:"startTimeout"`
}

// ParseFile reads servers from the text of an mcp.json file in Claude
// Code's shape:
//
//	{"mcpServers": {
//	  "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
//	  "docs":   {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
//	  "files":  {"command": "npx", "args": ["-y", "some-server"], "sandbox": "workspace-write", "network": "off"}
//	}}
//
// sandbox ("workspace-write", "read-only", "off"; absent is off) and
// network ("off", "on"; absent is off) are harness's own keys, for stdio
// servers only; they are not expanded. "sampling": true (harness's too,
// any transport) lets the server sample the session's model, asked each
// time; absent or false refuses it. startTimeout (seconds, more than 0
// and at most maxStartTimeout; absent: the host's --mcp-start-timeout)
// bounds the server's start, for any transport.
//
// ${NAME} and ${NAME:-default} in command, args, env, url and headers are
// replaced with getenv(NAME) (Claude Code's expansion), so that a file can
// name a secret without holding it. source names the file in messages.
// The servers come sorted by name.
func ParseFile(b []byte, source string, getenv func(string) string) ([]ServerConfig, error) {
	var f struct {
		MCPServers map[string]fileServer `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read %s: %w (want {\"mcpServers\": {NAME: {\"command\": …} | {\"type\": \"http\", \"url\": …}}})", source, err)
	}
	names := make([]string, 0, len(f.MCPServers))
	for n := range f.MCPServers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []ServerConfig
	var errs []error
	x := func(s string) string { return expand(s, getenv) }
	for _, n := range names {
		fs := f.MCPServers[n]
		c := ServerConfig{Name: n, Type: fs.Type, Command: x(fs.Command), URL: x(fs.URL), Source: source,
			Sandbox: fs.Sandbox, Network: fs.Network, Sampling: fs.Sampling}
		if c.Type == "" && fs.URL != "" && fs.Command == "" {
			c.Type = HTTP
		}
		for _, a := range fs.Args {
			c.Args = append(c.Args, x(a))
		}
		c.Env = sortedVars(fs.Env, x)
		c.Headers = sortedVars(fs.Headers, x)
		err := c.check()
		if t := fs.StartTimeout; err == nil && t != nil {
			if !(*t > 0 && *t <= maxStartTimeout.Seconds()) {
				err = fmt.Errorf("MCP server %s: startTimeout %v is not a number of seconds above 0 and at most %d", n, *t, int(maxStartTimeout.Seconds()))
			} else {
				c.StartTimeout = time.Duration(*t * float64(time.Second))
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", source, err))
			continue
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

func sortedVars(m map[string]string, x func(string) string) []EnvVar {
	var out []EnvVar
	for k, v := range m {
		out = append(out, EnvVar{Name: k, Value: x(v)})
	}
	slices.SortFunc(out, func(a, b EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// expand replaces ${NAME} and ${NAME:-default}; a lone $ stays as it is.
func expand(s string, getenv func(string) string) string {
	if getenv == nil || !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(ref, ":-")
		if v := getenv(name); v != "" || !hasDef {
			b.WriteString(v)
		} else {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// LoadFile reads the servers of the mcp.json file at path; a missing file
// has none. A file another user could have written (owned by a user other
// than this one or root, or writable by group or others) is refused with
// an *ownership.Error: its servers are commands harness would run.
func LoadFile(path string, getenv func(string) string) ([]ServerConfig, error) {
	b, err := ownership.ReadFile("MCP servers file", path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, ownership.ErrUntrusted) {
		return nil, err // one line naming file, owner, mode and fix
	}
	if err != nil {
		return nil, fmt.Errorf("read MCP servers: %w", err)
	}
	return ParseFile(b, path, getenv)
}

// ProjectFile is the project's .mcp.json in cwd, where Claude Code keeps a
// project's servers.
func ProjectFile(cwd string) string { return filepath.Join(cwd, ".mcp.json") }

// Merge returns the servers of lists, a later list's server replacing an
// earlier one of the same name (user file < project file < editor).
func Merge(lists ...[]ServerConfig) []ServerConfig {
	var out []ServerConfig
	idx := map[string]int{}
	for _, l := range lists {
		for _, c := range l {
			if i, ok := idx[c.Name]; ok {
				out[i] = c
				continue
			}
			idx[c.Name] = len(out)
			out = append(out, c)
		}
	}
	return out
}
