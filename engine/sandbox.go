package engine

import (
	"fmt"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/sandbox"
)

// Sandbox is the sandbox setting every bash command of the Runtime runs
// under (package sandbox; the bash plugin builds each command's policy
// from it and the call's cwd). The zero value is the default:
// workspace-write, network off.
type Sandbox struct {
	Mode    sandbox.Mode
	Network sandbox.Network
}

// The plugin environment variables that carry the setting (the bash
// plugin reads them; see plugins/bash).
const (
	EnvSandbox        = "HARNESS_SANDBOX"
	EnvSandboxNetwork = "HARNESS_SANDBOX_NETWORK"
)

// withDefaults fills what s leaves unset.
func (s Sandbox) withDefaults() Sandbox {
	if s.Mode == "" {
		s.Mode = sandbox.WorkspaceWrite
	}
	if s.Network == "" {
		s.Network = sandbox.NetworkOff
	}
	if s.Mode == sandbox.Off {
		s.Network = sandbox.NetworkOn // nothing confines it
	}
	return s
}

// String is the setting as the header of harness run shows it:
// "workspace-write, network off", "read-only, network on",
// "workspace-write, network allow-list a.org,*.b.com", "off".
func (s Sandbox) String() string {
	s = s.withDefaults()
	if s.Mode == sandbox.Off {
		return "off"
	}
	return string(s.Mode) + ", network " + s.Network.Describe()
}

// env is the setting as the plugins' environment carries it; it comes
// after the allow-listed variables, so it wins over a HARNESS_SANDBOX
// passed with --plugin-env.
func (s Sandbox) env() []string {
	s = s.withDefaults()
	return []string{EnvSandbox + "=" + string(s.Mode), EnvSandboxNetwork + "=" + string(s.Network)}
}

// Sandbox is the sandbox setting the Runtime's bash commands run under.
func (r *Runtime) Sandbox() Sandbox { return r.cfg.Sandbox.withDefaults() }

// logSandbox logs the sandbox s's commands run under now, By host, unless
// the log's last sandbox/policy says the same: at creation, and when a
// session is continued under another setting.
func (r *Runtime) logSandbox(s *session.Session) error {
	sb := r.Sandbox()
	if last := s.Sandbox(); last.Mode == string(sb.Mode) && last.Network == string(sb.Network) {
		return nil
	}
	if _, err := s.Append(event.SandboxPolicy{Mode: string(sb.Mode), Network: string(sb.Network), By: ModeByHost}); err != nil {
		return fmt.Errorf("log the sandbox of session %s: %w", s.ID(), err)
	}
	return nil
}

// callSandbox is the sandbox a call of tool t runs under in a session
// whose cwd is cwd, for its tool/call: set for the bash plugin's tools of
// kind execute (bash, which runs each command in it, and kill_shell, which
// stops one started there), nil for every other tool — a third-party
// plugin's execute tool is not run in this sandbox, so the kind alone
// does not say it. The roots are sandbox.Build's writable roots for cwd
// (the cwd and its repository's git folder); the private temp folder the
// plugin makes is not among them.
func (r *Runtime) callSandbox(t agent.Tool, cwd string) *event.CallSandbox {
	if t.Plugin == nil || t.Plugin.Name != bashPlugin || t.Kind != "execute" {
		return nil
	}
	sb := r.Sandbox()
	p := sandbox.Build(sandbox.Setup{Mode: sb.Mode, Network: sb.Network, Cwd: cwd})
	return &event.CallSandbox{Mode: string(sb.Mode), Network: string(sb.Network), Roots: p.WritableRoots}
}

// bashPlugin is the name the built-in bash plugin describes itself by.
const bashPlugin = "bash"
