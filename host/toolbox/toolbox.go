package toolbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/plugincache"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Config configures a Toolbox. Dirs and CacheDir are required; the zero
// value of every other field picks the default named in its comment.
type Config struct {
	// Dirs are the plugin dirs, searched in order.
	Dirs []string
	// CacheDir holds the content-addressed copies that run
	// (<state-dir>/plugins/cache). It is created 0700.
	CacheDir string
	// CacheGrace is how long a cache entry no registered plugin uses is
	// kept after its last start (default 24 h); Open and every reload
	// prune older ones.
	CacheGrace time.Duration
	// Logger receives the toolbox's logs and the plugins' (default: none).
	Logger hclog.Logger
	// HostVersion is told to plugins at Configure.
	HostVersion string
	// StateDir is the host's state folder, told to plugins at Configure
	// (bash keeps full outputs in <StateDir>/sessions/<id>/).
	StateDir string
	// LogLevel is the plugins' log level, passed in HARNESS_PLUGIN_LOG_LEVEL
	// and at Configure (default: Logger's level).
	LogLevel string
	// PluginEnv names host environment variables plugins get besides
	// pluginhost.DefaultPassEnv (pluginhost.LaunchConfig.PassEnv); a plugin
	// never gets the host's whole environment.
	PluginEnv []string
	// Env are NAME=value variables every plugin gets, after those of
	// PluginEnv (so they win over a host variable of the same name);
	// engine passes the sandbox setting this way.
	Env []string
	// Services are the host services plugins may call back.
	Services pluginapi.HostServices
	// Supervisor runs every plugin process under a supervisor that kills
	// what the plugin left when it ends and everything when the host dies
	// (engine passes host/keeper's; pluginhost.LaunchConfig.Supervisor).
	// Default: none, the plugin is the host's child.
	Supervisor pluginhost.Supervisor
	// Confiner, if set, launches every plugin confined by the capabilities
	// it is granted (see "Confinement" in the package doc), in place of
	// Supervisor. Default: none, plugins run with the host's rights.
	Confiner Confiner
	// Cwd is the working directory a confined plugin's profile ("cwd")
	// stands for when no call starts it (described at Open, StartEarly,
	// reloads): the host's.
	Cwd string
	// StartTimeout bounds one start: launch, Describe, Configure
	// (default 10 s).
	StartTimeout time.Duration
	// DescribeTimeout bounds a plugin's answer to Describe, within
	// StartTimeout: a plugin that does not answer in time is a Failure
	// saying so (default 5 s). Plugins start in parallel, so a slow one
	// delays Open by at most this, not the others.
	DescribeTimeout time.Duration
	// StopTimeout bounds the graceful stop of a plugin before its process
	// group is killed (default 3 s).
	StopTimeout time.Duration
	// MaxCrashes crashes within CrashWindow disable a plugin (default 5
	// in 60 s).
	MaxCrashes  int
	CrashWindow time.Duration
	// RestartBackoff is the wait before restarting a plugin after its
	// first crash in the window; it doubles with each further crash, up to
	// MaxRestartBackoff (default 100 ms doubling to 5 s).
	RestartBackoff    time.Duration
	MaxRestartBackoff time.Duration
	// MaxRestartWait is the longest a call waits for a restart's backoff to
	// pass; a longer one fails the call with a clear error (default 2 s).
	MaxRestartWait time.Duration
	// Parallel is the number of plugins Open starts at once (default
	// max(4, GOMAXPROCS)).
	Parallel int

	// StartOnUse starts a plugin on the first call to one of its tools
	// instead of at Open: Open takes its tools from the description cached
	// by the binary's sha256 next to its cache entry (a binary seen for
	// the first time is started once to be described, then stopped). See
	// "Start on first use" in the package doc.
	StartOnUse bool
	// IdleTimeout stops a running plugin that has had no call in flight,
	// no step holding it and no session state for that long; the next call
	// starts it again (0: never). Reattached plugins are never stopped.
	IdleTimeout time.Duration

	// Reattach names plugins running in debug mode (under a debugger),
	// from $HARNESS_REATTACH_PLUGINS (pluginhost.ParseReattach): Open
	// attaches to them instead of launching a file, and they win over a
	// file in Dirs whose plugin has the same name. They are never
	// restarted, reloaded, pinned or stopped (see the package doc).
	Reattach map[string]pluginapi.ReattachConfig

	// Watch turns on hot reload: the toolbox watches Dirs and reloads a
	// plugin whose file changes, adds one that appears and withdraws one
	// that goes (see the package doc). The CLI sets it unless --watch=false.
	Watch bool
	// Debounce is how long a changed file must be quiet before it is
	// reloaded (default 150 ms); MaxDebounce caps the wait counted from the
	// first event of a burst (default 2 s).
	Debounce    time.Duration
	MaxDebounce time.Duration
	// DrainTimeout is how long a call in flight on a replaced or removed
	// process may go on after the swap before it is cancelled (default
	// 30 s).
	DrainTimeout time.Duration
	// OnReload, if set, is called after every reload attempt (a
	// replacement, an added or removed file, a failure), from the goroutine
	// reloading that file; it should return quickly.
	OnReload func(Reload)
	// ReloadsFile, if set, is a JSON file holding the last reload of each
	// plugin file (<state-dir>/plugins/reloads.json): a watching toolbox
	// rewrites it after each reload, and Open reads it, so that Plugins in
	// another process (`harness plugins`) shows the last reload a running
	// host did. Default: none, LastReload covers this process's reloads.
	ReloadsFile string
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.LogLevel == "" {
		c.LogLevel = c.Logger.GetLevel().String()
	}
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&c.StartTimeout, 10*time.Second)
	set(&c.StopTimeout, 3*time.Second)
	set(&c.DescribeTimeout, 5*time.Second)
	set(&c.CacheGrace, 24*time.Hour)
	set(&c.CrashWindow, 60*time.Second)
	set(&c.RestartBackoff, 100*time.Millisecond)
	set(&c.MaxRestartBackoff, 5*time.Second)
	set(&c.MaxRestartWait, 2*time.Second)
	set(&c.Debounce, 150*time.Millisecond)
	set(&c.MaxDebounce, 2*time.Second)
	set(&c.DrainTimeout, 30*time.Second)
	if c.MaxDebounce < c.Debounce {
		c.MaxDebounce = c.Debounce
	}
	if c.MaxCrashes <= 0 {
		c.MaxCrashes = 5
	}
	if c.Parallel <= 0 {
		c.Parallel = max(4, runtime.GOMAXPROCS(0))
	}
	return c
}

// Status is the state of a plugin in Plugins.
type Status string

// Plugin states.
const (
	StatusRunning Status = "running" // a process serves its tools
	StatusStopped Status = "stopped" // no process now; the next call starts one
	// StatusNotStarted: described from the cache (or stopped when idle);
	// the next call starts it.
	StatusNotStarted Status = "not started"
	StatusDisabled   Status = "disabled" // crashed too often; its calls fail
	StatusFailed     Status = "failed"   // never registered; see Err
)

// PluginInfo describes one discovered plugin file, for `harness plugins`.
type PluginInfo struct {
	Path    string // the discovered file
	Name    string
	Version string
	// SDK is the plugin SDK version the plugin says it was built with
	// (Describe's sdk_version); empty when it did not say.
	SDK    string
	SHA256 string
	Tools  []string
	// Capabilities are what the plugin declared beyond the default
	// confinement (its description's).
	Capabilities pluginapi.Capabilities
	PID          int // 0 when no process runs
	Status       Status
	// Err is why it failed, or its last crash.
	Err string
	// LastReload is the last reload attempt of this file (nil: none),
	// successful or not — a failed one left the previous version serving:
	// one of this toolbox, or of a running host read from
	// Config.ReloadsFile.
	LastReload *Reload
}

// Failure is a file or dir of the plugin dirs that yielded no plugin.
type Failure struct {
	Path string
	Err  error
}

// Error returns the one-line message naming the file.
func (f Failure) Error() string { return f.Path + ": " + f.Err.Error() }

// Unwrap returns Err.
func (f Failure) Unwrap() error { return f.Err }

// Toolbox runs the discovered plugins and routes tool calls to them. Its
// methods are safe for concurrent use.
type Toolbox struct {
	cfg Config
	log hclog.Logger

	// reg is the current registry snapshot; readers load it, writers build
	// a new one and store it while holding swapMu.
	reg    atomic.Pointer[registry]
	swapMu sync.Mutex

	dirRank map[string]int     // cleaned plugin dir → its rank in Dirs
	cache   *plugincache.Cache // the content-addressed copies that run
	watch   *watcher           // nil unless cfg.Watch
	fileMu  sync.Mutex         // serialises the rewrites of cfg.ReloadsFile

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error

	mu sync.Mutex
	// mu guards the fields below.
	retiring []*plugin         // replaced or removed by a reload, still draining
	reloads  map[string]Reload // plugin file → its last reload
}

// Open attaches to the plugins of cfg.Reattach, discovers the plugins in
// cfg.Dirs, starts them concurrently and registers their tools, the
// reattached ones first. A file or reattached plugin that yields no plugin
// is recorded as a Failure, logged and skipped; Open fails only when the
// cache dir cannot be created or ctx ends.
func Open(ctx context.Context, cfg Config) (*Toolbox, error) {
	if cfg.CacheDir == "" {
		return nil, errors.New("open toolbox: no plugin cache dir")
	}
	cfg = cfg.withDefaults()
	cache, err := plugincache.Open(cfg.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("open toolbox: create plugin cache: %w", err)
	}
	tb := &Toolbox{cfg: cfg, log: cfg.Logger, dirRank: map[string]int{}, reloads: loadReloads(cfg.ReloadsFile),
		cache: cache}
	for i, d := range cfg.Dirs {
		d = filepath.Clean(d)
		if _, ok := tb.dirRank[d]; !ok {
			tb.dirRank[d] = i
		}
	}
	begin := time.Now()
	if cfg.Watch {
		// Before discovery, so that no change after it goes unseen.
		w, err := newWatcher(tb)
		if err != nil {
			tb.log.Warn("cannot watch the plugin dirs; hot reload is off", "error", err)
		}
		tb.watch = w
	}
	reattached := tb.attachAll(ctx)
	entries := discover(cfg.Dirs, tb.log)
	loaded := tb.loadAll(ctx, entries)
	if err := tb.cache.SaveIndex(); err != nil {
		tb.log.Warn("could not save the plugin hash index", "error", err)
	}

	var (
		members  []member
		failures []Failure
		offered  = map[string]*plugin{} // tool name → plugin
		named    = map[string]*plugin{} // plugin name → plugin
	)
	for _, a := range reattached {
		p, err := a.plug, a.err
		if err == nil {
			if err = checkConflicts(p, offered, named); err != nil {
				p.close() // detaches
			}
		}
		if err != nil {
			f := Failure{Path: ReattachPath(a.name), Err: err}
			tb.log.Warn("reattached plugin skipped", "path", f.Path, "error", err)
			failures = append(failures, f)
			continue
		}
		named[p.desc.Name] = p
		for _, t := range p.desc.Tools {
			offered[t.Name] = p
		}
		members = append(members, member{plug: p, inst: p.current()})
	}
	for i, l := range loaded {
		if l.err == nil && tb.reattachedName(l.plug.desc.Name) != nil {
			// The plugin under the debugger wins over its file.
			tb.skipReattached(l.plug.path, l.plug.desc.Name)
			l.plug.close()
			loaded[i].plug, loaded[i].err = nil, errSkipped
		}
	}
	clashes := fileClashes(loaded)
	for i, l := range loaded {
		p, err := l.plug, l.err
		if errors.Is(err, errSkipped) {
			continue
		}
		if err == nil {
			err = clashes[i]
			if err == nil {
				err = checkConflicts(p, offered, named)
			}
			if err != nil {
				p.close()
			}
		}
		if err != nil {
			f := Failure{Path: entries[i].path, Err: err}
			tb.log.Warn("plugin skipped", "path", f.Path, "error", err)
			failures = append(failures, f)
			continue
		}
		named[p.desc.Name] = p
		for _, t := range p.desc.Tools {
			offered[t.Name] = p
		}
		members = append(members, member{plug: p, inst: p.current()})
	}
	reg := newRegistry(members, failures)
	tb.reg.Store(reg)
	if err := ctx.Err(); err != nil {
		tb.Close()
		return nil, fmt.Errorf("open toolbox: %w", err)
	}
	tb.pruneCache()
	if tb.watch != nil {
		tb.watch.start()
	}
	tb.log.Info("plugins started", "plugins", len(members), "tools", len(reg.list),
		"failures", len(failures), "watch", tb.watch != nil, "elapsed", time.Since(begin))
	return tb, nil
}

// loaded is the outcome of loading one discovered file.
type loaded struct {
	plug *plugin
	err  error
}

// loadAll loads every candidate, at most cfg.Parallel at once, and returns
// the outcomes in the order of entries. An entry that discovery could not
// read keeps its error.
func (tb *Toolbox) loadAll(ctx context.Context, entries []found) []loaded {
	out := make([]loaded, len(entries))
	sem := make(chan struct{}, tb.cfg.Parallel)
	var wg sync.WaitGroup
	for i, e := range entries {
		if e.err != nil {
			out[i] = loaded{err: e.err}
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := tb.load(ctx, e.path)
			out[i] = loaded{plug: p, err: err}
		})
	}
	wg.Wait()
	return out
}

// pathOrder orders plugin file paths as discovery lists them: by the rank
// of their dir in Config.Dirs, then by file name. Reattached plugins come
// first, in name order.
func (tb *Toolbox) pathOrder(a, b string) int {
	if ia, ib := isReattachPath(a), isReattachPath(b); ia || ib {
		switch {
		case ia && ib:
			return strings.Compare(a, b)
		case ia:
			return -1
		}
		return 1
	}
	ra, rb := tb.dirRank[filepath.Dir(a)], tb.dirRank[filepath.Dir(b)]
	if ra != rb {
		return ra - rb
	}
	return strings.Compare(filepath.Base(a), filepath.Base(b))
}

// errSkipped marks a loaded file that is neither a plugin nor a failure
// (its plugin is reattached for debugging).
var errSkipped = errors.New("skipped")

// fileClashes refuses, whatever the dir order, every plugin file whose
// plugin name or one of whose tool names another file's plugin also uses:
// neither registers, each error names the other file. So a plugin in an
// earlier dir cannot take over a tool of a later one (a third-party `bash`
// without a permission prompt): the clash disables both, loudly.
func fileClashes(loaded []loaded) map[int]error {
	tools := map[string][]int{}
	names := map[string][]int{}
	for i, l := range loaded {
		if l.err != nil {
			continue
		}
		names[l.plug.desc.Name] = append(names[l.plug.desc.Name], i)
		for _, t := range l.plug.desc.Tools {
			tools[t.Name] = append(tools[t.Name], i)
		}
	}
	out := map[int]error{}
	others := func(i int, all []int) string {
		var s []string
		for _, j := range all {
			if j != i {
				s = append(s, fmt.Sprintf("%s (plugin %s)", loaded[j].plug.path, loaded[j].plug.desc.Name))
			}
		}
		return strings.Join(s, ", ")
	}
	for i, l := range loaded {
		if l.err != nil {
			continue
		}
		if all := names[l.plug.desc.Name]; len(all) > 1 {
			out[i] = fmt.Errorf("plugin name %q is also used by %s; neither is used: remove or rename one",
				l.plug.desc.Name, others(i, all))
			continue
		}
		for _, t := range l.plug.desc.Tools {
			if all := tools[t.Name]; len(all) > 1 {
				out[i] = fmt.Errorf("tool %q is also offered by %s; neither is used: remove or rename one",
					t.Name, others(i, all))
				break
			}
		}
	}
	return out
}

// checkConflicts refuses a plugin whose name or a tool name an earlier
// plugin already took.
func checkConflicts(p *plugin, offered, named map[string]*plugin) error {
	if q := named[p.desc.Name]; q != nil {
		return fmt.Errorf("plugin name %q is already used by %s; refused", p.desc.Name, q.path)
	}
	for _, t := range p.desc.Tools {
		if q := offered[t.Name]; q != nil {
			return fmt.Errorf("tool %q is already offered by %s (plugin %s); refused plugin %s",
				t.Name, q.path, q.desc.Name, p.desc.Name)
		}
	}
	return nil
}

// Tools returns the tools of the current registry snapshot, sorted by
// name. The caller may keep and modify the slice.
func (tb *Toolbox) Tools() []tool.Tool {
	return listed(tb.reg.Load().list)
}

// listed is a copy of list whose entries name their processes in copies:
// a caller may change what it is given.
func listed(list []tool.Tool) []tool.Tool {
	out := slices.Clone(list)
	for i, t := range out {
		if t.Plugin != nil {
			p := *t.Plugin
			out[i].Plugin = &p
		}
	}
	return out
}

// HoldTools is Tools for one step of the agent loop: the processes its
// list names stay alive until release is called, even when a reload
// replaces them meanwhile, so that a call the step makes with Call.Plugin
// set from the list runs on the process the list (and the tool/call the
// loop logs from it) names. A reload's drain waits for every hold on the
// old process to be released before its drain timeout starts. release is
// idempotent; a caller that never calls it keeps replaced processes alive
// until Close.
func (tb *Toolbox) HoldTools() (tools []tool.Tool, release func()) {
	for {
		reg := tb.reg.Load()
		var held []*flight
		ok := true
		seen := map[*instance]bool{}
		for _, m := range reg.members {
			if m.inst == nil || seen[m.inst] {
				continue
			}
			seen[m.inst] = true
			if !m.inst.calls.hold() {
				ok = false // drained meanwhile: a newer snapshot is stored
				break
			}
			held = append(held, m.inst.calls)
		}
		var once sync.Once
		release = func() {
			once.Do(func() {
				for _, f := range held {
					f.unhold()
				}
			})
		}
		if ok || tb.closed.Load() {
			return listed(reg.list), release
		}
		release()
	}
}

// Plugins describes every discovered plugin in discovery order, then every
// failure.
func (tb *Toolbox) Plugins() []PluginInfo {
	reg := tb.reg.Load()
	out := make([]PluginInfo, 0, len(reg.members)+len(reg.failures))
	for _, m := range reg.members {
		out = append(out, m.plug.info())
	}
	for _, f := range reg.failures {
		out = append(out, PluginInfo{Path: f.Path, Status: StatusFailed, Err: f.Err.Error()})
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for i := range out {
		if r, ok := tb.reloads[out[i].Path]; ok {
			r.Stages = slices.Clone(r.Stages)
			out[i].LastReload = &r
		}
	}
	return out
}

// Failures returns the files and dirs that yielded no plugin, in discovery
// order, each with its one-line reason.
func (tb *Toolbox) Failures() []Failure {
	return slices.Clone(tb.reg.Load().failures)
}

// SessionClosed tells every running plugin that a session ended, so that
// they drop what they hold for it (bash kills its background tasks). It
// asks them concurrently and returns their errors joined; a plugin too old
// to know the call counts as done.
func (tb *Toolbox) SessionClosed(ctx context.Context, sessionID string) error {
	reg := tb.reg.Load()
	errs := make([]error, len(reg.members))
	var wg sync.WaitGroup
	for i, m := range reg.members {
		if m.inst == nil || !m.inst.alive() {
			continue
		}
		wg.Go(func() {
			if err := m.inst.client.SessionClosed(ctx, sessionID); err != nil {
				errs[i] = fmt.Errorf("tell plugin %s session %s ended: %w", m.plug.desc.Name, sessionID, err)
				return
			}
			// It released what it held for the session.
			m.plug.released(m.inst, sessionID)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close stops every plugin concurrently, each within its stop timeout, and
// returns their errors joined; it only detaches from reattached plugins,
// which run on. Calls after Close fail; Close is idempotent.
func (tb *Toolbox) Close() error {
	tb.closeOnce.Do(func() {
		tb.closed.Store(true)
		if tb.watch != nil {
			// Stops the reloads in progress: they stop what they started
			// and cut their drains short.
			tb.watch.stop()
		}
		reg := tb.reg.Load()
		errs := make([]error, len(reg.members))
		var wg sync.WaitGroup
		for i, m := range reg.members {
			wg.Go(func() { errs[i] = m.plug.close() })
		}
		wg.Wait()
		tb.closeErr = errors.Join(errs...)
		if err := tb.cache.Save(); err != nil {
			tb.log.Warn("could not save the plugin cache book", "error", err)
		}
	})
	return tb.closeErr
}

// pruneCache removes the cache entries that no registered or draining
// plugin runs and that were last started more than Config.CacheGrace ago,
// then saves the cache book.
func (tb *Toolbox) pruneCache() {
	keep := map[string]bool{}
	for _, m := range tb.reg.Load().members {
		keep[m.plug.sum] = true
	}
	tb.mu.Lock()
	for _, p := range tb.retiring {
		keep[p.sum] = true
	}
	tb.mu.Unlock()
	if n, size := tb.cache.Prune(keep, tb.cfg.CacheGrace, tb.log); n > 0 {
		tb.log.Info("pruned the plugin cache", "files", n, "bytes", size, "grace", tb.cfg.CacheGrace)
	}
	if err := tb.cache.Save(); err != nil {
		tb.log.Warn("could not save the plugin cache book", "error", err)
	}
}

// swapInstance stores a snapshot in which p's tools route to inst. It does
// nothing when p is no longer registered (a reload replaced it).
func (tb *Toolbox) swapInstance(p *plugin, inst *instance) {
	tb.swapMu.Lock()
	defer tb.swapMu.Unlock()
	cur := tb.reg.Load()
	if cur == nil {
		return // Open has not stored the first snapshot yet
	}
	if next := cur.withInstance(p, inst); next != nil {
		tb.reg.Store(next)
	}
}
