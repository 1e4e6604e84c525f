package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/sandbox"
)

// Setting is the sandbox setting every bash command of a host runs under
// (package sandbox). The host computes each call's sandbox from it and the
// session's cwd (Call), logs it on the call's tool/call and sends the same
// value with the call (pluginapi.CallRequest.Sandbox); the bash plugin
// builds each command's policy from what it is sent. The zero value is the
// default: workspace-write, network off, no added folder,
// sandbox.DefaultPidsLimit processes per command.
type Setting struct {
	Mode    sandbox.Mode
	Network sandbox.Network
	// AddDirs are more writable roots for every session (--add-dir),
	// absolute, existing folders (CheckAddDir); a session may add its own
	// (engine.Runtime.SetSessionDirs: ACP additionalDirectories).
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

// WithDefaults fills what s leaves unset.
func (s Setting) WithDefaults() Setting {
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
func (s Setting) String() string {
	s = s.WithDefaults()
	if s.Mode == sandbox.Off {
		return "off"
	}
	out := string(s.Mode) + ", network " + s.Network.Describe()
	if len(s.AddDirs) > 0 && s.Mode == sandbox.WorkspaceWrite {
		out += ", added folders " + strings.Join(s.AddDirs, ", ")
	}
	return out
}

// Env is the setting as the plugins' environment carries it
// (toolbox.Config.Env: after the allow-listed variables, so it wins over
// a HARNESS_SANDBOX passed with --plugin-env).
func (s Setting) Env() []string {
	s = s.WithDefaults()
	return []string{EnvSandbox + "=" + string(s.Mode), EnvSandboxNetwork + "=" + string(s.Network)}
}

// MergeDirs is a then what of b a does not hold.
func MergeDirs(a, b []string) []string {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

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

// Policy is the sandbox/policy event that records setting sb, by by
// (event.SandboxPolicy.By).
func Policy(sb Setting, by event.By) event.SandboxPolicy {
	return event.SandboxPolicy{Mode: string(sb.Mode), Network: string(sb.Network), AddDirs: sb.AddDirs,
		DenyRead: sb.DenyRead, PidsLimit: sb.PidsLimit, By: by}
}

// SamePolicy reports whether a and b record the same sandbox (who set it
// aside).
func SamePolicy(a, b event.SandboxPolicy) bool {
	return a.Mode == b.Mode && a.Network == b.Network && slices.Equal(a.AddDirs, b.AddDirs) &&
		slices.Equal(a.DenyRead, b.DenyRead) && a.PidsLimit == b.PidsLimit
}
