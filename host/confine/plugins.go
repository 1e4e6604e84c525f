package confine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/host/pluginlock"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/sandbox"
)

// Plugins is the host's toolbox.Confiner: every plugin runs under
// its keeper confined to a sandbox.Profile made from the capabilities it
// is granted — the default for one that declares nothing more; what it
// declares for a built-in (a plugin dir in BuiltinPluginDirs) or a binary
// the user trusted with them (`harness plugins trust`, recorded with its
// sha256 in the dir's lock); refused otherwise.
type Plugins struct {
	// unconfined says why plugins cannot be confined here (not Linux, no
	// Landlock, no keeper); "" when they can. Trust is still asked for;
	// the processes run with the user's rights, said once in the log.
	unconfined string
	warnOnce   sync.Once
	log        hclog.Logger
	builtin    []string // plugin dirs of the plugins that ship with harness
	home       string
	// own are harness's own config and state: never readable by a
	// plugin through "home".
	own []string
}

// NewPlugins is the confiner of the plugins of the plugin dirs builtin,
// which ship with harness, and of the others; own are harness's config
// and state folders, which no plugin reads. It logs to log.
func NewPlugins(builtin, own []string, log hclog.Logger) *Plugins {
	home, _ := os.UserHomeDir()
	c := &Plugins{builtin: builtin, home: home, own: own, log: log}
	switch {
	case !keeper.CanConfine():
		c.unconfined = "no keeper runs here (not Linux, or a binary whose main does not call keeper.Main)"
	case sandbox.LandlockABI() == 0:
		c.unconfined = "this kernel has no Landlock"
	}
	return c
}

// trustHint is the command that trusts the plugin file name.
func trustHint(name string) string { return "harness plugins trust " + name }

// Grant implements toolbox.Confiner.
func (c *Plugins) Grant(dir, name, sum string, declared *pluginapi.Capabilities) (pluginapi.Capabilities, error) {
	if slices.Contains(c.builtin, dir) {
		if declared == nil {
			return pluginapi.Capabilities{}, nil
		}
		return *declared, nil
	}
	t, ok, err := pluginlock.Trusted(dir, name)
	if err != nil {
		return pluginapi.Capabilities{}, fmt.Errorf("plugin %s: %w; it is not started", name, err)
	}
	trusted := ok && t.SHA256 == sum
	granted := pluginapi.Capabilities{}
	if trusted {
		granted = capsFromTrust(t.Capabilities)
	}
	switch {
	case declared == nil || granted.Covers(*declared):
		return granted, nil
	case trusted:
		return granted, fmt.Errorf("plugin %s asks for %s, more than you trusted it with (%s); it is not started: if you trust it, run %s",
			name, declared, granted, trustHint(name))
	case ok:
		return granted, fmt.Errorf("plugin %s changed since you trusted it (sha256 %s, was %s) and asks for %s; it is not started: if you trust the new binary, run %s",
			name, shortSum(sum), shortSum(t.SHA256), declared, trustHint(name))
	}
	return granted, fmt.Errorf("plugin %s asks for %s beyond the default confinement; it is not started: if you trust it, run %s",
		name, declared, trustHint(name))
}

// Supervisor implements toolbox.Confiner.
func (c *Plugins) Supervisor(caps pluginapi.Capabilities, cwd string) (pluginhost.Supervisor, error) {
	if caps.Sandboxes {
		return Supervise, nil // it confines what it starts itself
	}
	if c.unconfined != "" {
		c.warnOnce.Do(func() {
			c.log.Warn("plugins run unconfined, with your rights: " + c.unconfined + "; those asking for more than the default still need harness plugins trust")
		})
		return Supervise, nil
	}
	p := PluginProfile(caps, cwd, c.home, c.own)
	temp := slices.Contains(caps.Write, pluginapi.CapTemp)
	return func(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.WrapConfined(cmd, p, temp) }, nil
}

// PluginProfile is the sandbox profile of a plugin granted caps, whose
// "cwd" is cwd: the default reads cwd (and the system folders, which
// sandbox.ConfineThread adds); "home" reads the home folder but its
// credential stores and own (harness's config and state); "cwd" and
// absolute paths in Write are writable. Program is left for the keeper.
func PluginProfile(caps pluginapi.Capabilities, cwd, home string, own []string) sandbox.Profile {
	var p sandbox.Profile
	p.Network, p.Exec = caps.Network, caps.Exec
	add := func(list *[]string, path string) {
		if path != "" && filepath.IsAbs(path) && !slices.Contains(*list, filepath.Clean(path)) {
			*list = append(*list, filepath.Clean(path))
		}
	}
	p.Hide = sandbox.PluginHidden(home, os.Getenv("XDG_RUNTIME_DIR"), own).DenyRead
	add(&p.Read, cwd)
	for _, r := range caps.Read {
		if r == pluginapi.CapHome {
			for _, h := range sandbox.HomeReads(home, own) {
				add(&p.Read, h)
			}
			continue
		}
		add(&p.Read, r)
	}
	for _, w := range caps.Write {
		switch w {
		case pluginapi.CapCwd:
			add(&p.Write, cwd)
		case pluginapi.CapTemp: // the keeper makes it
		default:
			add(&p.Write, w)
		}
	}
	return p
}

func capsFromTrust(t pluginlock.Capabilities) pluginapi.Capabilities {
	return pluginapi.Capabilities{Network: t.Network, Write: t.Write, Read: t.Read, Exec: t.Exec, Sandboxes: t.Sandboxes}
}

// CapsToTrust is caps as a trust record holds them.
func CapsToTrust(c pluginapi.Capabilities) pluginlock.Capabilities {
	return pluginlock.Capabilities{Network: c.Network, Write: c.Write, Read: c.Read, Exec: c.Exec, Sandboxes: c.Sandboxes}
}

var _ toolbox.Confiner = (*Plugins)(nil)

func shortSum(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// DescribeConfined starts the plugin binary at path confined to the
// default profile (its "cwd" an empty temp folder; unconfined where
// plugins cannot be confined, as they all run there), asks for its
// description and stops it: what `harness plugins trust` shows before it
// records anything. Nothing it declares is granted here.
func DescribeConfined(ctx context.Context, path string) (pluginapi.Description, error) {
	cwd, err := os.MkdirTemp("", "harness-describe-")
	if err != nil {
		return pluginapi.Description{}, fmt.Errorf("describe %s: %w", path, err)
	}
	defer os.RemoveAll(cwd)
	p := PluginProfile(pluginapi.Capabilities{}, cwd, "", nil)
	sup := func(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.WrapConfined(cmd, p, false) }
	if !keeper.CanConfine() || sandbox.LandlockABI() == 0 {
		// Nothing is confined here: it would run so anyway.
		sup = Supervise
	}
	c, err := pluginhost.Launch(ctx, pluginhost.LaunchConfig{Path: path, Supervisor: sup})
	if err != nil {
		return pluginapi.Description{}, fmt.Errorf("start %s confined: %w", filepath.Base(path), err)
	}
	defer c.Close()
	d, err := c.Describe(ctx)
	if err != nil {
		return d, fmt.Errorf("describe %s: %w", filepath.Base(path), err)
	}
	if err := d.Capabilities.Validate(); err != nil {
		return d, fmt.Errorf("describe %s: %w", filepath.Base(path), err)
	}
	return d, nil
}

// FileGate implements toolbox.GateConfiner: it bounds the host's text files for a plugin of dir granted caps
// to what its profile lets it read and write itself; nil for a built-in
// (plugins/fs writes through the host, outside the project too once the
// user allowed it) and for a plugin that sandboxes itself.
func (c *Plugins) FileGate(dir string, caps pluginapi.Capabilities, cwd string) *toolbox.FileGate {
	if slices.Contains(c.builtin, dir) || caps.Sandboxes {
		return nil
	}
	p := PluginProfile(caps, cwd, c.home, c.own)
	// A hidden tree holding a path it declared by name is shown to it
	// (sandbox.HideThread): the host may read there too.
	named := append(slices.Clone(p.Read), p.Write...)
	deny := slices.DeleteFunc(slices.Clone(p.Hide), func(h string) bool {
		return slices.ContainsFunc(named, func(n string) bool { return n == h || strings.HasPrefix(n, h+"/") })
	})
	return &toolbox.FileGate{Read: append(slices.Clone(sandbox.SystemReads), p.Read...), Write: p.Write, Deny: deny}
}

var _ toolbox.GateConfiner = (*Plugins)(nil)
