package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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

// callSandbox is the sandbox a call of tool t with arguments args runs
// under in a session whose cwd is cwd, for its tool/call: set for the
// bash plugin's tools of kind execute (bash, which runs each command in
// it, and bash_kill, which stops one started there), nil for every other
// tool — a third-party plugin's execute tool is not run in this sandbox,
// so the kind alone does not say it. The roots are sandbox.Build's
// writable roots for cwd (the cwd and its repository's git folder); the
// private temp folder the plugin makes is not among them. A bash call
// that escalates (see escalates) runs with sandbox off: that is what it
// records, once allowed.
func (r *Runtime) callSandbox(t agent.Tool, cwd, args string) *event.CallSandbox {
	if t.Plugin == nil || t.Plugin.Name != bashPlugin || t.Kind != "execute" {
		return nil
	}
	sb := r.Sandbox()
	if v, _ := sandboxArg(args); sb.Mode != sandbox.Off && t.Spec.Name == bashTool && v == string(sandbox.Off) {
		return &event.CallSandbox{Mode: string(sandbox.Off), Network: string(sandbox.NetworkOn)}
	}
	p := sandbox.Build(sandbox.Setup{Mode: sb.Mode, Network: sb.Network, Cwd: cwd})
	return &event.CallSandbox{Mode: string(sb.Mode), Network: string(sb.Network), Roots: p.WritableRoots}
}

// bashPlugin is the name the built-in bash plugin describes itself by,
// bashTool the name of its tool that runs a command.
const (
	bashPlugin = "bash"
	bashTool   = "bash"
)

// sandboxArg is the bash tool's "sandbox" argument in args, read as the
// plugin reads it (encoding/json into a string field: case-insensitive
// names, the last of repeated names); ok is false when args do not
// decode so.
func sandboxArg(args string) (value string, ok bool) {
	var a struct {
		Sandbox string `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", false
	}
	return a.Sandbox, true
}

// escalates reports whether the bash tool's arguments args ask to run the
// command outside the sandbox, on the safe side: arguments that do not
// decode, or any "sandbox" value at all, count as asking — then the user
// is asked, and the plugin refuses what it cannot read. callSandbox
// records sandbox off only for the value the plugin runs so ("off").
func escalates(args string) bool {
	v, ok := sandboxArg(args)
	return !ok || v != ""
}

// justification is the bash tool's "justification" argument, read as
// the plugin reads it; "" when there is none.
func justification(args string) string {
	var a struct {
		Justification string `json:"justification"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	return a.Justification
}

// ErrAutoUnavailable marks the refusal of the auto permission mode where
// the sandbox cannot hold it (see AutoRefusal).
var ErrAutoUnavailable = errors.New("the auto mode is unavailable")

// AutoRefusal says, in one line with what to do, why the auto permission
// mode cannot run under the Runtime's sandbox setting on this kernel; nil
// when it can. auto runs commands unasked because they run in the
// sandbox, so it needs the sandbox on and these rows of
// sandbox.Kernel.Enforceable enforced: the writes, the network when it is
// off, the protected paths inside the roots (a git hook written unasked
// runs outside the sandbox later) and the hidden credential stores. The
// kernel is probed once per Runtime. The error wraps ErrAutoUnavailable.
func (r *Runtime) AutoRefusal() error {
	r.probe.once.Do(func() { r.probe.kernel = sandbox.Probe() })
	return autoRefusal(r.Sandbox(), r.probe.kernel)
}

// kernelProbe is the Runtime's sandbox.Probe, made on first use.
type kernelProbe struct {
	once   sync.Once
	kernel sandbox.Kernel
}

// autoRefusal is AutoRefusal for setting sb on kernel k.
func autoRefusal(sb Sandbox, k sandbox.Kernel) error {
	sb = sb.withDefaults()
	if sb.Mode == sandbox.Off {
		return fmt.Errorf("%w: it runs commands without asking because they run in the sandbox, and the sandbox is off; "+
			"drop --sandbox off (HARNESS_SANDBOX, config key sandbox) or choose another --mode", ErrAutoUnavailable)
	}
	need := []string{"writes outside", "credential stores"}
	if sb.Mode == sandbox.WorkspaceWrite {
		need = append(need, "protected paths inside the roots")
	}
	if sb.Network == sandbox.NetworkOff {
		need = append(need, "network off")
	}
	rows := k.Enforceable(sandbox.Policy{Mode: sb.Mode, Network: sb.Network})
	for _, n := range need {
		i := slices.IndexFunc(rows, func(r sandbox.Row) bool { return strings.HasPrefix(r.What, n) })
		if i < 0 {
			return fmt.Errorf("%w: harness cannot tell whether this kernel enforces the sandbox's %q row; choose another --mode", ErrAutoUnavailable, n)
		}
		if !rows[i].Enforced {
			return fmt.Errorf("%w: this kernel does not enforce the sandbox's %q (%s), and auto runs commands unasked only because they run in the sandbox; "+
				"see harness sandbox, and choose another --mode", ErrAutoUnavailable, rows[i].What, rows[i].How)
		}
	}
	return nil
}
