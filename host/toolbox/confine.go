package toolbox

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Confiner launches plugins confined by the capabilities they are granted
// (Config.Confiner; the engine passes one built on host/keeper and
// package sandbox). See "Confinement" in the package doc.
type Confiner interface {
	// Grant says what the plugin file name in dir, of sha256 sum, may do
	// when it declares declared (nil: not known yet, before its first
	// Describe): the capabilities it is launched with, or an error naming
	// what the user must do (`harness plugins trust NAME`) when it asks
	// for more than it may have.
	Grant(dir, name, sum string, declared *pluginapi.Capabilities) (pluginapi.Capabilities, error)
	// Supervisor returns the supervisor that launches a process with caps
	// granted, cwd being the working directory the profile's "cwd"
	// stands for.
	Supervisor(caps pluginapi.Capabilities, cwd string) (pluginhost.Supervisor, error)
}

// cwdKey carries the working directory of the call that starts a plugin
// (its profile's "cwd") through a start.
type cwdKey struct{}

// WithCwd returns ctx carrying cwd, the working directory of the session
// for which a start through it ([Toolbox.StartTool]) is made: a confined
// plugin's profile "cwd" stands for it. [Toolbox.Call] sets its call's.
func WithCwd(ctx context.Context, cwd string) context.Context { return withCwd(ctx, cwd) }

func withCwd(ctx context.Context, cwd string) context.Context {
	if cwd == "" {
		return ctx
	}
	return context.WithValue(ctx, cwdKey{}, cwd)
}

// cwdOf is the call's working directory a start was asked for, else
// the toolbox's Config.Cwd.
func (tb *Toolbox) cwdOf(ctx context.Context) string {
	if cwd, ok := ctx.Value(cwdKey{}).(string); ok && cwd != "" {
		return cwd
	}
	return tb.cfg.Cwd
}

// grant is what a start launches the plugin file path with: nil
// supervisor settings when the toolbox confines nothing.
type grant struct {
	caps pluginapi.Capabilities
	cwd  string
	sup  pluginhost.Supervisor
	gate *FileGate // nil: the host's text files unbounded
}

// grantFor asks the Confiner what path may do when it declares declared,
// and makes its supervisor.
func (tb *Toolbox) grantFor(ctx context.Context, path, sum string, declared *pluginapi.Capabilities) (*grant, error) {
	c := tb.cfg.Confiner
	caps, err := c.Grant(filepath.Dir(path), filepath.Base(path), sum, declared)
	if err != nil {
		return nil, err
	}
	g := &grant{caps: caps, cwd: tb.cwdOf(ctx)}
	if g.sup, err = c.Supervisor(caps, g.cwd); err != nil {
		return nil, fmt.Errorf("confine plugin %s: %w", filepath.Base(path), err)
	}
	if gc, ok := c.(GateConfiner); ok {
		g.gate = gc.FileGate(filepath.Dir(path), caps, g.cwd)
	}
	return g, nil
}

// cwdBound reports whether caps ties the process to its profile's cwd:
// it writes there ("cwd"), so that a call of a session elsewhere would
// fail on every write. (The default reads the cwd it started in; a call
// from elsewhere runs, and its reads there are refused.) Never for a
// plugin that sandboxes itself: it runs unconfined.
func cwdBound(caps pluginapi.Capabilities) bool {
	return !caps.Sandboxes && slices.Contains(caps.Write, pluginapi.CapCwd)
}

// outsideCwd is the error of a call whose cwd lies outside the one the
// plugin's confined process was started for; "" when it lies inside.
func outsideCwd(name string, inst *instance, cwd string) string {
	if inst.confinedTo == "" || cwd == "" || within(cwd, inst.confinedTo) {
		return ""
	}
	return fmt.Sprintf("plugin %s runs confined to the working directory %s, and this session's is %s: "+
		"one process per working directory is not supported yet; start another harness there", name, inst.confinedTo, cwd)
}

func within(path, root string) bool {
	return path == root || root == "/" || strings.HasPrefix(path, root+string(filepath.Separator))
}

// FileGate bounds the host's text files (pluginapi.TextFiles) for a
// confined plugin: the host reads and writes for it only what its
// confinement lets it read and write itself, so that the host's services
// are no way around it. Paths are absolute and clean.
type FileGate struct {
	Read  []string // readable trees (Write's are too)
	Write []string // writable trees
	Deny  []string // trees neither read nor written (hidden ones)
}

// GateConfiner is a Confiner that bounds the host's text files for the
// plugins it confines; nil from FileGate: not bounded (a built-in).
type GateConfiner interface {
	Confiner
	FileGate(dir string, caps pluginapi.Capabilities, cwd string) *FileGate
}

func (g *FileGate) allows(path string, write bool) bool {
	path = filepath.Clean(path)
	for _, d := range g.Deny {
		if within(path, d) {
			return false
		}
	}
	trees := g.Write
	if !write {
		trees = append(slices.Clone(g.Read), g.Write...)
	}
	return slices.ContainsFunc(trees, func(t string) bool { return within(path, t) })
}

// gatedServices are the host's services as a confined plugin gets them:
// the text files bounded by its gate, the rest as they are.
type gatedServices struct {
	pluginapi.HostServices
	name string
	gate *FileGate
}

func (s gatedServices) RequestPermission(ctx context.Context, req pluginapi.PermissionRequest) (pluginapi.PermissionResponse, error) {
	p, ok := s.HostServices.(pluginapi.Permissions)
	if !ok {
		return pluginapi.PermissionResponse{}, fmt.Errorf("request permission: %w", pluginapi.ErrUnimplemented)
	}
	return p.RequestPermission(ctx, req)
}

func (s gatedServices) SpawnSubagent(ctx context.Context, req pluginapi.SubagentRequest, progress pluginapi.Progress) (pluginapi.SubagentResult, error) {
	sa, ok := s.HostServices.(pluginapi.Subagents)
	if !ok {
		return pluginapi.SubagentResult{}, fmt.Errorf("spawn subagent: %w", pluginapi.ErrUnimplemented)
	}
	return sa.SpawnSubagent(ctx, req, progress)
}

func (s gatedServices) ReadTextFile(ctx context.Context, req pluginapi.ReadTextFileRequest) (pluginapi.TextFile, error) {
	tf, ok := s.HostServices.(pluginapi.TextFiles)
	if !ok {
		return pluginapi.TextFile{}, fmt.Errorf("read text file: %w", pluginapi.ErrUnimplemented)
	}
	if !filepath.IsAbs(req.Path) || !s.gate.allows(req.Path, false) {
		return pluginapi.TextFile{}, fmt.Errorf("read %s: plugin %s may not read it (outside what it declared: the host reads for it only what it could itself)", req.Path, s.name)
	}
	return tf.ReadTextFile(ctx, req)
}

func (s gatedServices) WriteTextFile(ctx context.Context, req pluginapi.WriteTextFileRequest) (pluginapi.TextFile, error) {
	tf, ok := s.HostServices.(pluginapi.TextFiles)
	if !ok {
		return pluginapi.TextFile{}, fmt.Errorf("write text file: %w", pluginapi.ErrUnimplemented)
	}
	if !filepath.IsAbs(req.Path) || !s.gate.allows(req.Path, true) {
		return pluginapi.TextFile{}, fmt.Errorf("write %s: plugin %s may not write it (outside what it declared: the host writes for it only what it could itself)", req.Path, s.name)
	}
	return tf.WriteTextFile(ctx, req)
}
