package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/sandbox"
)

// Sandbox is the sandbox setting every bash command of the Runtime runs
// under (package sandbox). The host computes each call's sandbox from it
// and the session's cwd (callSandbox), logs it on the call's tool/call and
// sends the same value with the call (pluginapi.CallRequest.Sandbox); the
// bash plugin builds each command's policy from what it is sent. The zero
// value is the default: workspace-write, network off, no added folder,
// 1,024 processes per command.
type Sandbox struct {
	Mode    sandbox.Mode
	Network sandbox.Network
	// AddDirs are more writable roots for every session (--add-dir),
	// absolute, existing folders (CheckAddDir); a session may add its own
	// (SetSessionDirs: ACP additionalDirectories).
	AddDirs []string
	// DenyRead are more paths to hide (deny-read), absolute
	// (CheckDenyRead).
	DenyRead []string
	// PidsLimit caps the processes of one command; 0:
	// sandbox.DefaultPidsLimit.
	PidsLimit int
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
	if s.PidsLimit <= 0 {
		s.PidsLimit = sandbox.DefaultPidsLimit
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
	out := string(s.Mode) + ", network " + s.Network.Describe()
	if len(s.AddDirs) > 0 && s.Mode == sandbox.WorkspaceWrite {
		out += ", added folders " + strings.Join(s.AddDirs, ", ")
	}
	return out
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

// sessionSandbox is the sandbox of session id: the Runtime's, with the
// folders the session added (SetSessionDirs) after the Runtime's.
func (r *Runtime) sessionSandbox(id string) Sandbox {
	sb := r.Sandbox()
	if extra, ok := r.sessionDirs.get(id); ok {
		sb.AddDirs = mergeDirs(sb.AddDirs, extra)
	}
	return sb
}

// mergeDirs is a then what of b a does not hold.
func mergeDirs(a, b []string) []string {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// SetSessionDirs makes dirs the folders session s adds to the Runtime's
// (ACP's additionalDirectories: the complete list for the session, none
// when empty), each checked by CheckAddDir, and logs the session's
// sandbox when that changes it. A bad folder is an error naming it, and
// nothing changes.
func (r *Runtime) SetSessionDirs(s *session.Session, dirs []string) error {
	var checked []string
	for _, d := range dirs {
		c, err := CheckAddDir(d, r.home())
		if err != nil {
			return err
		}
		checked = append(checked, c)
	}
	if len(checked) == 0 {
		r.sessionDirs.remove(s.ID())
	} else {
		r.sessionDirs.set(s.ID(), checked)
	}
	return r.logSandbox(s)
}

// SessionSandbox is the sandbox session s's commands run under now.
func (r *Runtime) SessionSandbox(s *session.Session) Sandbox { return r.sessionSandbox(s.ID()) }

// CheckAddDir checks a folder to add as a writable root: "~" or "~/…"
// expanded with home (when not empty), then absolute, an existing folder,
// not the root folder (that is --sandbox off) and, with home, not inside
// a path every sandbox hides (~/.ssh, ~/.aws, … and the daemons' sockets).
// It returns the folder with its symbolic links resolved, as Landlock and
// the mounts see it.
func CheckAddDir(dir, home string) (string, error) {
	d := expandHome(dir, home)
	if !filepath.IsAbs(d) {
		return "", fmt.Errorf("added folder %q is not an absolute path", dir)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("added folder %s does not exist", d)
		}
		return "", fmt.Errorf("added folder %s: %w", d, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("added folder %s: %w", d, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("added folder %s is not a folder", d)
	}
	if real == "/" {
		return "", fmt.Errorf("added folder %s is the root folder: to let commands write anywhere, use --sandbox off", d)
	}
	if home != "" {
		// A root inside a hidden path would show it (sandbox.Build drops a
		// hidden path that holds a root): ~/.ssh, ~/.aws and the like stay
		// out of reach.
		hidden := sandbox.Build(sandbox.Setup{Mode: sandbox.WorkspaceWrite, Home: home}).DenyRead
		if realHome, err := filepath.EvalSymlinks(home); err == nil && realHome != home {
			hidden = append(hidden, sandbox.Build(sandbox.Setup{Mode: sandbox.WorkspaceWrite, Home: realHome}).DenyRead...)
		}
		for _, h := range hidden {
			if real == h || strings.HasPrefix(real, h+string(filepath.Separator)) {
				return "", fmt.Errorf("added folder %s is inside %s, which the sandbox hides from commands: it cannot be added", d, h)
			}
		}
	}
	return real, nil
}

// CheckSessionDir is CheckAddDir with the user's home folder: how
// SetSessionDirs and CreateSessionWithDirs check a session's folders.
func (r *Runtime) CheckSessionDir(dir string) (string, error) { return CheckAddDir(dir, r.home()) }

// home is the user's home folder, for CheckAddDir.
func (r *Runtime) home() string {
	if r.cfg.Getenv != nil {
		return r.cfg.Getenv("HOME")
	}
	return os.Getenv("HOME")
}

// CheckDenyRead checks a path to hide: "~" expanded with home (when not
// empty), then absolute and not the root folder; it need not exist (only
// what exists when a command starts is hidden). It returns it cleaned.
func CheckDenyRead(path, home string) (string, error) {
	p := expandHome(path, home)
	switch {
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("deny-read path %q holds a NUL", path)
	case !filepath.IsAbs(p):
		return "", fmt.Errorf("deny-read path %q is not an absolute path", path)
	case filepath.Clean(p) == "/":
		return "", errors.New("deny-read path / would hide everything")
	}
	return filepath.Clean(p), nil
}

// expandHome replaces a leading "~" (alone or before a slash) with home.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// logSandbox logs the sandbox s's commands run under now, By host, unless
// the log's last sandbox/policy says the same: at creation, and when a
// session is continued under another setting (another mode, network,
// added folders, deny-read paths or pids limit).
func (r *Runtime) logSandbox(s *session.Session) error {
	sb := r.sessionSandbox(s.ID())
	ev := event.SandboxPolicy{Mode: string(sb.Mode), Network: string(sb.Network), AddDirs: sb.AddDirs,
		DenyRead: sb.DenyRead, PidsLimit: sb.PidsLimit, By: event.ByHost}
	if last := s.Sandbox(); last.Mode == ev.Mode && last.Network == ev.Network && slices.Equal(last.AddDirs, ev.AddDirs) &&
		slices.Equal(last.DenyRead, ev.DenyRead) && last.PidsLimit == ev.PidsLimit {
		return nil
	}
	if _, err := s.Append(ev); err != nil {
		return fmt.Errorf("log the sandbox of session %s: %w", s.ID(), err)
	}
	return nil
}

// callSandbox is the sandbox a call of tool t with arguments args runs
// under in session sessionID whose cwd is cwd, for its tool/call and, the same value, the
// call itself (pluginapi.CallRequest.Sandbox): set for the tools of kind
// execute of a plugin with the Sandboxes capability (the bash plugin's
// bash, which runs each command in it, and kill_shell, which stops one
// started there), nil for every other tool — a plugin that does not
// confine its commands is not run in this sandbox, so neither the kind
// nor a plugin's name ("bash") says it; only a built-in or a plugin the
// user trusted is started with Sandboxes. The roots are sandbox.Build's writable
// roots for cwd and the session's added folders (with the git folders of
// their repositories), their links resolved (the plugin refuses a root
// that no longer resolves to itself); the private temp folder the plugin
// makes is not among them. A bash call that escalates (see escalates)
// runs with sandbox off, and that is what it records and sends, once
// allowed: the plugin runs a command unsandboxed only when the host says so.
func (r *Runtime) callSandbox(t tool.Tool, sessionID, cwd, args string) *event.CallSandbox {
	if t.Plugin == nil || !t.Sandboxes || t.Kind != "execute" {
		return nil
	}
	sb := r.sessionSandbox(sessionID)
	if sb.Mode == sandbox.Off {
		return &event.CallSandbox{Mode: string(sb.Mode), Network: string(sb.Network)} // nothing else applies
	}
	if v, _ := sandboxArg(args); t.Spec.Name == bashTool && v == string(sandbox.Off) {
		return &event.CallSandbox{Mode: string(sandbox.Off), Network: string(sandbox.NetworkOn)}
	}
	p := sandbox.Build(sandbox.Setup{Mode: sb.Mode, Network: sb.Network, Cwd: cwd, AddDirs: sb.AddDirs})
	// With their links resolved, as the plugin checks them: one that
	// resolves elsewhere when the command starts was swapped for a link.
	var roots []string
	for _, r := range p.WritableRoots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	return &event.CallSandbox{Mode: string(sb.Mode), Network: string(sb.Network), Roots: roots,
		DenyRead: sb.DenyRead, PidsLimit: sb.PidsLimit}
}

// bashTool is the name of the bash plugin's tool that runs a command.
const bashTool = "bash"

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
