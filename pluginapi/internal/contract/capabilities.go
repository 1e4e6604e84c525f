package contract

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Capabilities is what a plugin's process needs beyond the default
// confinement a host launches every plugin under. The default (the zero
// value): read the session's working directory and the system folders
// (/usr, /lib*, /bin, /sbin, /etc, /opt, /proc, /sys, /dev), its own
// binary and its socket folder; write nothing but its socket folder and
// /dev/null; no network (Unix sockets by path, the host's among them,
// stay); execute nothing but its own binary and its interpreter. Since
// minor 4.
type Capabilities struct {
	// Network: the host's network.
	Network bool `json:"network,omitempty"`
	// Write lists where the plugin may write (and read): [CapCwd] (the
	// session's working directory), [CapTemp] (a private temp folder, its
	// TMPDIR, removed when the process ends), or absolute paths.
	Write []string `json:"write,omitempty"`
	// Read lists what more it may read: [CapHome] (the home folder, its
	// credential stores and harness's own files excepted) or absolute
	// paths.
	Read []string `json:"read,omitempty"`
	// Exec: it may execute the programs it can read; without it, an exec
	// of anything but its own binary fails (EACCES).
	Exec bool `json:"exec,omitempty"`
	// Sandboxes: the plugin confines what it starts itself, with
	// namespaces, mounts and cgroups of its own (the bash plugin's
	// per-command sandbox), which the host's confinement would refuse: the
	// host launches it unconfined. A host grants it only to a plugin it
	// trusts.
	Sandboxes bool `json:"sandboxes,omitempty"`
}

// The words of Capabilities' Write and Read lists besides absolute paths.
const (
	CapCwd  = "cwd"
	CapTemp = "temp"
	CapHome = "home"
)

// maxCapPaths bounds each list of Capabilities.
const maxCapPaths = 64

// IsDefault reports whether c asks for nothing beyond the default.
func (c Capabilities) IsDefault() bool {
	return !c.Network && len(c.Write) == 0 && len(c.Read) == 0 && !c.Exec && !c.Sandboxes
}

// Validate checks c: Write holds "cwd", "temp" or absolute clean paths,
// Read "home" or absolute clean paths, no NUL, at most 64 each.
func (c Capabilities) Validate() error {
	check := func(list string, words []string, paths []string) error {
		if len(paths) > maxCapPaths {
			return fmt.Errorf("capabilities: %d %s entries, at most %d", len(paths), list, maxCapPaths)
		}
		for _, p := range paths {
			switch {
			case slices.Contains(words, p):
			case strings.ContainsRune(p, 0):
				return fmt.Errorf("capabilities: %s entry %q holds a NUL", list, p)
			case !filepath.IsAbs(p) || filepath.Clean(p) != p:
				return fmt.Errorf("capabilities: %s entry %q is neither %s nor an absolute clean path", list, p, strings.Join(words, " nor "))
			}
		}
		return nil
	}
	if err := check("write", []string{CapCwd, CapTemp}, c.Write); err != nil {
		return err
	}
	return check("read", []string{CapHome}, c.Read)
}

// Covers reports whether c grants everything d asks for.
func (c Capabilities) Covers(d Capabilities) bool {
	return (c.Network || !d.Network) && (c.Exec || !d.Exec) && (c.Sandboxes || !d.Sandboxes) &&
		subset(d.Write, c.Write) && subset(d.Read, c.Read)
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// Equal reports whether c and d ask for the same, in any order.
func (c Capabilities) Equal(d Capabilities) bool { return c.Covers(d) && d.Covers(c) }

// String is c in a few words, as `harness plugins` shows it: "default
// (read cwd, no network)" or "network, write cwd temp, read home, exec".
func (c Capabilities) String() string {
	if c.IsDefault() {
		return "default (reads the cwd, writes nothing, no network)"
	}
	var parts []string
	if c.Sandboxes {
		parts = append(parts, "sandboxes its commands (unconfined)")
	}
	if c.Network {
		parts = append(parts, "network")
	}
	if len(c.Write) > 0 {
		parts = append(parts, "write "+strings.Join(c.Write, " "))
	}
	if len(c.Read) > 0 {
		parts = append(parts, "read "+strings.Join(c.Read, " "))
	}
	if c.Exec {
		parts = append(parts, "exec")
	}
	return strings.Join(parts, ", ")
}
