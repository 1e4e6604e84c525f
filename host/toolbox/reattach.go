package toolbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// reattachPrefix starts the Path of a plugin of Config.Reattach, which has
// no file: "reattach:<name>".
const reattachPrefix = "reattach:"

// ReattachPath is the Path under which Plugins and Failures list the
// reattached plugin name.
func ReattachPath(name string) string { return reattachPrefix + name }

// isReattachPath reports whether path names a reattached plugin.
func isReattachPath(path string) bool { return strings.HasPrefix(path, reattachPrefix) }

// errReattachedName refuses a plugin file whose plugin is reattached for
// debugging: the reattached plugin wins over the file.
var errReattachedName = errors.New("reattached for debugging")

// reattachedName returns errReattachedName, worded, when Config.Reattach
// names the plugin name.
func (tb *Toolbox) reattachedName(name string) error {
	if _, ok := tb.cfg.Reattach[name]; ok {
		return fmt.Errorf("plugin %s is %w; skipping its file", name, errReattachedName)
	}
	return nil
}

// skipReattached logs, at info, that the file at path is not used because
// its plugin is reattached for debugging.
func (tb *Toolbox) skipReattached(path, name string) {
	tb.log.Info(fmt.Sprintf("plugin %s is reattached for debugging; skipping its file", name), "path", path)
}

// attached is the outcome of attaching to one plugin of Config.Reattach.
type attached struct {
	name string
	plug *plugin
	err  error
}

// attachAll attaches to the plugins of Config.Reattach concurrently and
// returns the outcomes in name order.
func (tb *Toolbox) attachAll(ctx context.Context) []attached {
	names := make([]string, 0, len(tb.cfg.Reattach))
	for name := range tb.cfg.Reattach {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]attached, len(names))
	done := make(chan struct{}, len(names))
	for i, name := range names {
		go func() {
			defer func() { done <- struct{}{} }()
			p, err := tb.attach(ctx, name, tb.cfg.Reattach[name])
			out[i] = attached{name: name, plug: p, err: err}
		}()
	}
	for range names {
		<-done
	}
	return out
}

// attach connects to the plugin name serving in debug mode at rc, asks for
// its description, checks it as Open checks a discovered plugin's, and
// configures it with the host's services. Nothing of it is stopped on
// failure: the process belongs to its developer.
func (tb *Toolbox) attach(ctx context.Context, name string, rc pluginapi.ReattachConfig) (*plugin, error) {
	begin := time.Now()
	ctx, cancel := context.WithTimeout(ctx, tb.cfg.StartTimeout)
	defer cancel()
	c, err := pluginhost.Attach(ctx, name, rc, tb.log)
	if err != nil {
		return nil, err
	}
	desc, err := c.Describe(ctx)
	if err == nil {
		err = validateDescription(desc)
	}
	if err == nil && desc.Name != name {
		err = fmt.Errorf("the plugin at pid %d describes itself as %q: name it so in $%s", rc.Pid, desc.Name, pluginapi.EnvReattach)
	}
	if err == nil {
		err = c.Configure(ctx, pluginapi.ConfigureRequest{
			HostVersion: tb.cfg.HostVersion,
			LogLevel:    tb.cfg.LogLevel,
			StateDir:    tb.cfg.StateDir,
			Host:        tb.cfg.Services,
		})
		if err != nil {
			err = fmt.Errorf("configure: %w", err)
		}
	}
	if err != nil {
		c.Close() // detaches
		return nil, err
	}
	inst := &instance{
		client: c,
		exited: c.Exited(),
		// Client.PID is 0 for an attached plugin: the pid is the one its
		// reattach line gave.
		ref:   event.Plugin{Name: desc.Name, Version: desc.Version, PID: rc.Pid},
		calls: newFlight(),
	}
	p := tb.supervisor(ReattachPath(name), "", "", desc, inst)
	p.attached = true
	go p.watch(inst)
	p.log.Info("plugin reattached for debugging", "pid", rc.Pid, "addr", rc.Addr.Network+":"+rc.Addr.String,
		"version", desc.Version, "tools", toolNames(desc), "elapsed", time.Since(begin))
	return p, nil
}

// goneError is the error of a call to an attached plugin whose process
// ended.
func (p *plugin) goneError() error {
	return fmt.Errorf("plugin %s (reattached for debugging) is gone; restart it and harness", p.desc.Name)
}
