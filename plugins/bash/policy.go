//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/sandbox"
)

// The plugin-level sandbox settings, read from the plugin's environment
// (the host passes them; commands never see HARNESS_* variables):
// HARNESS_SANDBOX is the mode (workspace-write, the default; read-only;
// off), HARNESS_SANDBOX_NETWORK the network (off, the default; on; or an
// allow-list of hosts, comma-separated: sandbox.ParseNetwork). They
// are the fallback for a call that carries no sandbox (a host before
// protocol minor 4, a conformance check): a call's own
// (pluginapi.CallRequest.Sandbox, the host's decision, which it logs on
// the tool/call) wins.
const (
	envSandbox        = "HARNESS_SANDBOX"
	envSandboxNetwork = "HARNESS_SANDBOX_NETWORK"
)

// sandboxConfig is what every command's policy is built from, besides
// its call.
type sandboxConfig struct {
	mode      sandbox.Mode
	network   sandbox.Network
	home      string // its credential stores are hidden
	runtime   string // $XDG_RUNTIME_DIR: its D-Bus, systemd and container sockets are hidden
	configDir string // harness's config folder: hidden, never writable
	pidsLimit int    // 0: sandbox.DefaultPidsLimit

	tempMu sync.Mutex
	temps  map[string]string // private temp folder by session
}

// newSandboxConfig reads the settings from environ. A value it does not
// know is reported on stderr (the host's log) and the default, the
// stricter, is kept.
func newSandboxConfig(environ []string) *sandboxConfig {
	c := &sandboxConfig{mode: sandbox.WorkspaceWrite, network: sandbox.NetworkOff, temps: map[string]string{}}
	get := func(name string) string {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	}
	if v := get(envSandbox); v != "" {
		if m, err := sandbox.ParseMode(v); err != nil {
			fmt.Fprintf(os.Stderr, "bash: %s: %v; commands run in workspace-write\n", envSandbox, err)
		} else {
			c.mode = m
		}
	}
	if n, err := sandbox.ParseNetwork(get(envSandboxNetwork)); err != nil {
		fmt.Fprintf(os.Stderr, "bash: %s: %v; the network stays off\n", envSandboxNetwork, err)
	} else {
		c.network = n
	}
	c.home = get("HOME")
	c.runtime = get("XDG_RUNTIME_DIR")
	if x := get("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		c.configDir = filepath.Join(x, "harness")
	} else if filepath.IsAbs(c.home) {
		c.configDir = filepath.Join(c.home, ".config", "harness")
	}
	return c
}

// policy is the sandbox of a command the call runs: the writable roots
// the call's sandbox names (the session's cwd, the added folders and
// their git folders; without one, the cwd and its git folder) with their
// protected paths read-only, the session's private temp folder under
// tmpRoot, the credential stores, the call's deny-read paths, harness's
// config and state hidden — the session's own folder (its spill files)
// shown read-only. A call's sandbox this plugin does not understand is an
// error: the command does not run rather than run less confined.
// escalated is the call's sandbox "off": the command runs unsandboxed only
// when the host sent mode off with it (it asked the user); a call without
// the host's sandbox cannot escalate.
func (c *sandboxConfig) policy(call *pluginapi.Call, cwd, tmpRoot string, escalated bool) (sandbox.Policy, error) {
	mode, network, pids := c.mode, c.network, c.pidsLimit
	var roots, deny []string
	sent := call.Sandbox != nil
	if sent {
		sb := call.Sandbox
		m, err := sandbox.ParseMode(sb.Mode)
		if err != nil {
			return sandbox.Policy{}, fmt.Errorf("the host's sandbox for this call: %w", err)
		}
		n, err := sandbox.ParseNetwork(sb.Network)
		if err != nil {
			return sandbox.Policy{}, fmt.Errorf("the host's sandbox for this call: %w", err)
		}
		network = n
		mode, roots, deny = m, sb.WritableRoots, sb.DenyRead
		if sb.PidsLimit > 0 {
			pids = sb.PidsLimit
		}
	}
	if escalated && !sent {
		return sandbox.Policy{}, errors.New(`sandbox "off" needs a host that asks the user first and says so with the call (plugin protocol minor 4); this one did not, so the command did not run`)
	}
	if mode == sandbox.Off {
		return sandbox.Policy{Mode: sandbox.Off, Network: sandbox.NetworkOn}, nil
	}
	temp, err := c.tempDir(call.SessionID, tmpRoot)
	if err != nil {
		return sandbox.Policy{}, err
	}
	s := sandbox.Setup{
		Mode: mode, Network: network, Cwd: cwd, TempDir: temp, Home: c.home, RuntimeDir: c.runtime,
		Harness: []string{c.configDir, call.StateDir}, Show: []string{call.SessionDir()},
		PidsLimit: pids, DenyRead: deny,
	}
	if sent { // the host's roots, exactly: it computed them for this cwd
		if err := checkRoots(roots); err != nil {
			return sandbox.Policy{}, err
		}
		s.Cwd, s.AddDirs = "", roots
	}
	p := sandbox.Build(s)
	if err := p.Validate(); err != nil {
		return sandbox.Policy{}, fmt.Errorf("sandbox policy: %w", err)
	}
	return p, nil
}

// checkRoots refuses a writable root that is no longer the folder the
// host resolved: the host sends roots with their links resolved, so a
// root that now resolves elsewhere was replaced by a link (a command
// writing in a folder that holds an added one could aim it at ~) and
// would open the link's target to writes.
func checkRoots(roots []string) error {
	for _, r := range roots {
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return fmt.Errorf("writable root %s: %w", r, err)
		}
		if real != r {
			return fmt.Errorf("writable root %s is now a link to %s: the sandbox refuses to open it to writes; the user should check it", r, real)
		}
	}
	return nil
}

// tempDir makes (once) the private temp folder of session under root,
// which ensurePrivate made.
func (c *sandboxConfig) tempDir(session, root string) (string, error) {
	c.tempMu.Lock()
	defer c.tempMu.Unlock()
	if d := c.temps[session]; d != "" {
		if _, err := os.Stat(d); err == nil {
			return d, nil
		}
	}
	if err := ensurePrivate(root); err != nil {
		return "", err
	}
	d, err := os.MkdirTemp(root, "tmp-"+fileName(session, "no-session")+"-")
	if err != nil {
		return "", fmt.Errorf("make the command's temp folder: %w", err)
	}
	if err := os.Chmod(d, 0o700); err != nil { // whatever the umask (0277 leaves 0500)
		return "", fmt.Errorf("make the command's temp folder: %w", err)
	}
	c.temps[session] = d
	return d, nil
}

// removeTemps removes the temp folder of session, or of every session
// when all.
func (c *sandboxConfig) removeTemps(session string, all bool) {
	c.tempMu.Lock()
	defer c.tempMu.Unlock()
	for s, d := range c.temps {
		if all || s == session {
			_ = os.RemoveAll(d)
			delete(c.temps, s)
		}
	}
}

// refusedRE matches what a refused write or connection prints.
var refusedRE = regexp.MustCompile(`(?i)permission denied|read-only file system|operation not permitted|network is unreachable|` +
	`connection refused|couldn't connect|failed to connect|resource busy|could not resolve|name resolution|resource temporarily unavailable|cannot fork`)

// sandboxNote is the line added to the result of a command that failed
// in a sandbox printing what a refusal prints (a refused write, fork or
// connection), so that the model knows what refused it and how to ask
// for more in one step (escalation: sandbox "off", which the user is
// asked about); "" for another failure (grep finding nothing is no news).
func sandboxNote(p sandbox.Policy, output string) string {
	if !refusedRE.MatchString(output) {
		return ""
	}
	what := "writes only in " + rootsText(p.WritableRoots) + " and $TMPDIR (.git's hooks and config, .vscode and the like read-only)"
	if p.Mode == sandbox.ReadOnly {
		what = "writes only in $TMPDIR"
	}
	what += ", credential stores read as empty"
	switch {
	case p.Network == sandbox.NetworkOff:
		what += ", no network but loopback"
	case p.Network.IsAllowList() && p.Proxy != "":
		what += ", the network only to " + string(p.Network) + " through the proxy in $HTTPS_PROXY"
	case p.Network.IsAllowList():
		what += ", no network: the allow-list " + string(p.Network) + " needs a network namespace of its own, which this system refused"
	}
	what += fmt.Sprintf(", at most %d processes", p.Pids())
	return "[the sandbox (" + p.String() + ") may have refused this: " + what +
		". If the task needs more, retry with sandbox: \"off\" and a one-line justification; the user will be asked.]"
}

// maxNoteRoots is how many writable roots sandboxNote names.
const maxNoteRoots = 8

// rootsText names the writable roots for sandboxNote: the working
// directory, the folders the user added and their git folders, as the
// host sent them.
func rootsText(roots []string) string {
	if len(roots) == 0 {
		return "nowhere else"
	}
	names := roots
	if len(names) > maxNoteRoots {
		names = names[:maxNoteRoots]
	}
	out := strings.Join(names, ", ")
	if len(roots) > len(names) {
		out += fmt.Sprintf(" (and %d more)", len(roots)-len(names))
	}
	return out
}

// missingProtected lists the protected names of p that do not exist: in
// the fallback (no mount namespace, no placeholder) a command can create
// them; in a namespace they get placeholders and are dropped from it.
func missingProtected(p sandbox.Policy) []string {
	if !p.Enabled() {
		return nil
	}
	var out []string
	for _, ro := range p.ReadOnly {
		switch filepath.Base(ro) {
		case ".vscode", ".idea", ".zed", ".mcp.json": // git's own hooks and info the sandbox makes
		default:
			continue
		}
		if _, err := os.Lstat(ro); err != nil {
			out = append(out, ro)
		}
	}
	return out
}

// createdNote is the result's line naming the protected paths of missing
// that exist now; "" when none does.
func createdNote(missing []string) string {
	var made []string
	for _, m := range missing {
		if _, err := os.Lstat(m); err == nil {
			made = append(made, m)
		}
	}
	if len(made) == 0 {
		return ""
	}
	return "[this command created " + strings.Join(made, ", ") + ": protected paths (they steer editors, git or harness) " +
		"the sandbox could not keep read-only because they did not exist; the user should review them]"
}
