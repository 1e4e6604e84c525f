package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/pluginlock"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// errClosed is returned for calls after Close.
var errClosed = errors.New("the toolbox is closed")

// errRetired is what acquire and a restart return for a plugin that a
// reload replaced or removed: the caller routes through the current
// snapshot instead.
var errRetired = errors.New("the plugin was replaced by a reload")

// plugin supervises one version of a registered plugin file: its cached
// binary, the description of its first start, and the process serving it
// now. It restarts the process on demand after a crash, with backoff, and
// disables the plugin when it crashes too often. A reload makes a new
// plugin for the file's new bytes and retires this one.
type plugin struct {
	tb     *Toolbox
	path   string // the discovered file
	sum    string // sha256 of its bytes
	exe    string // the cached copy that runs
	desc   pluginapi.Description
	events map[string]bool // declared event types
	log    hclog.Logger

	mu sync.Mutex
	// mu guards the fields below, and instance.noted and instance.stopping
	// of its instances.
	cur      *instance // the live process; nil after it exited
	starting *start    // the restart in progress, if any
	brk      breaker
	disabled bool
	closed   bool
	retired  bool // a reload replaced or removed it: no more starts
	lastErr  string
	started  bool        // a process of it has run (for Plugins' status)
	idle     *time.Timer // stops cur once it has been idle for IdleTimeout

	// attached: a plugin of Config.Reattach, running under its developer's
	// debugger; set before its process is watched, never changed. It is not
	// restarted, reloaded or pinned, and close only detaches.
	attached bool
}

// instance is one process of a plugin. A new one is made for every start.
type instance struct {
	client *pluginhost.Client
	ref    event.Plugin
	exited <-chan struct{}
	calls  *flight // the calls in flight on it, for a drain

	// guarded by the plugin's mu
	noted    bool // its exit was handled
	stopping bool // the toolbox stopped it on purpose
	// holding are the sessions for which the plugin said, in its last
	// result of each, that it holds state (bash's background tasks): it is
	// not stopped when idle until they are released.
	holding map[string]bool

	// confinedTo is the working directory its confined profile stands
	// for; "" when it is not tied to one.
	confinedTo string
}

// alive reports whether the process has not exited (as far as the client
// has noticed).
func (i *instance) alive() bool {
	select {
	case <-i.exited:
		return false
	default:
		return true
	}
}

// start is a restart in progress; done is closed when it ends, after err
// is set. cancel aborts it.
type start struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// load puts the file at path into the cache, starts the copy and returns
// its supervisor.
func (tb *Toolbox) load(ctx context.Context, path string) (*plugin, error) {
	begin := time.Now()
	sum, exe, err := tb.cache.Put(path)
	if err != nil {
		return nil, err
	}
	// A pinned dir runs only the bytes it pinned (a development dir any).
	if err := pluginlock.Verify(filepath.Dir(path), filepath.Base(path), sum); err != nil {
		return nil, err
	}
	hashed := time.Since(begin)
	if tb.cfg.StartOnUse {
		if desc, ok := tb.cachedDescription(path, sum); ok && !desc.StartEarly {
			p := tb.supervisor(path, sum, exe, desc, nil)
			p.log.Debug("plugin described from the cache", "path", path, "version", desc.Version, "sha256", sum,
				"tools", toolNames(desc), "snapshot", hashed, "elapsed", time.Since(begin))
			return p, nil
		}
	}
	inst, desc, err := tb.start(ctx, path, exe, sum, nil)
	if err != nil {
		return nil, err
	}
	tb.storeDescription(sum, desc)
	p := tb.newPlugin(path, sum, exe, desc, inst)
	p.log.Debug("plugin started", "path", path, "version", desc.Version, "sha256", sum,
		"pid", inst.ref.PID, "tools", toolNames(desc), "snapshot", hashed, "elapsed", time.Since(begin))
	if tb.cfg.StartOnUse && !desc.StartEarly {
		// Started to be described: it starts again on first use.
		p.stopIdle(inst)
		p.mu.Lock()
		p.started = false
		p.mu.Unlock()
	}
	return p, nil
}

// cachedDescription returns the description cached for the binary of
// sha256 sum, if there is a valid one. A damaged or invalid one is removed
// (the plugin is described again), never trusted.
func (tb *Toolbox) cachedDescription(path, sum string) (pluginapi.Description, bool) {
	var desc pluginapi.Description
	b, err := tb.cache.LoadDescription(sum)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			tb.log.Warn("cached plugin description ignored; describing the plugin again", "path", path, "error", err)
		}
		return desc, false
	}
	if err := json.Unmarshal(b, &desc); err == nil {
		err = validateDescription(desc)
	}
	if err != nil {
		tb.log.Warn("cached plugin description ignored; describing the plugin again", "path", path, "error", err)
		tb.cache.ForgetDescription(sum)
		return pluginapi.Description{}, false
	}
	return desc, true
}

// storeDescription caches desc, the checked description of the binary of
// sha256 sum, for the next Open.
func (tb *Toolbox) storeDescription(sum string, desc pluginapi.Description) {
	b, err := json.Marshal(desc)
	if err == nil {
		err = tb.cache.StoreDescription(sum, b)
	}
	if err != nil {
		tb.log.Warn("could not cache the plugin description", "sha256", sum, "error", err)
	}
}

// newPlugin returns the supervisor of the plugin file path whose cached
// copy exe (of sha256 sum) runs as inst, described by desc, and starts
// watching inst's exit.
func (tb *Toolbox) newPlugin(path, sum, exe string, desc pluginapi.Description, inst *instance) *plugin {
	p := tb.supervisor(path, sum, exe, desc, inst)
	p.adopt(inst)
	go p.watch(inst)
	return p
}

// ref names p's binary, with PID 0 (no process).
func (p *plugin) ref() event.Plugin {
	return event.Plugin{Name: p.desc.Name, Version: p.desc.Version, SHA256: p.sum}
}

// adopt makes inst, a new process of p, stop when idle for
// Config.IdleTimeout, and arms its idle timer.
func (p *plugin) adopt(inst *instance) {
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
	if p.tb.cfg.IdleTimeout <= 0 || p.attached || p.desc.StartEarly {
		return
	}
	inst.calls.onIdle(func() { p.armIdle(inst) })
	p.armIdle(inst)
}

// armIdle (re)starts the idle timer of inst, p's current process.
func (p *plugin) armIdle(inst *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != inst || inst.stopping || p.closed || p.retired || p.attached {
		return
	}
	if p.idle != nil {
		p.idle.Stop()
	}
	p.idle = time.AfterFunc(p.tb.cfg.IdleTimeout, func() { p.stopIdle(inst) })
}

// stopIdle stops inst, p's current process, unless a call is in flight on
// it, a step holds it or it holds session state, and reports whether it
// did. The snapshot then lists p's tools with no process; the next call
// starts one.
func (p *plugin) stopIdle(inst *instance) bool {
	p.mu.Lock()
	if p.cur != inst || inst.stopping || p.closed || p.retired || p.attached || len(inst.holding) > 0 {
		p.mu.Unlock()
		return false
	}
	if !inst.calls.tryShut() {
		p.mu.Unlock()
		return false // busy: armed again when it is idle
	}
	inst.stopping = true
	p.cur = nil
	p.tb.swapInstance(p, nil)
	p.mu.Unlock()
	p.log.Debug("plugin stopped while idle", "pid", inst.ref.PID)
	if err := inst.client.Close(); err != nil {
		p.log.Warn("could not stop the idle plugin", "pid", inst.ref.PID, "error", err)
	}
	return true
}

// noteHolds records whether inst holds state for a session after a call
// of it (pluginapi.Result.HoldsState).
func (p *plugin) noteHolds(inst *instance, sessionID string, holds bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if holds {
		if inst.holding == nil {
			inst.holding = map[string]bool{}
		}
		inst.holding[sessionID] = true
		return
	}
	delete(inst.holding, sessionID)
}

// released notes that inst let go of what it held for a session (it
// acknowledged SessionClosed), and arms its idle timer if it is idle.
func (p *plugin) released(inst *instance, sessionID string) {
	p.noteHolds(inst, sessionID, false)
	if !inst.calls.busy() {
		p.armIdle(inst)
	}
}

// supervisor returns the supervisor of a plugin served by inst, without
// watching inst yet.
func (tb *Toolbox) supervisor(path, sum, exe string, desc pluginapi.Description, inst *instance) *plugin {
	p := &plugin{
		tb:     tb,
		path:   path,
		sum:    sum,
		exe:    exe,
		desc:   desc,
		events: make(map[string]bool, len(desc.EventTypes)),
		log:    tb.log.With("plugin", desc.Name),
		cur:    inst,
		brk: breaker{
			max:     tb.cfg.MaxCrashes,
			window:  tb.cfg.CrashWindow,
			base:    tb.cfg.RestartBackoff,
			ceiling: tb.cfg.MaxRestartBackoff,
		},
	}
	for _, t := range desc.EventTypes {
		p.events[t] = true
	}
	return p
}

// startHooks lets a reload time the stages of a start and check a
// description against the other plugins.
type startHooks struct {
	// mark is called as each stage ends: StageStart (launch and
	// handshake), StageDescribe (Describe and the checks), StageConfigure.
	mark func(stage string)
	// check, if set, is one more check of the description.
	check func(pluginapi.Description) error
}

// failedStage is a start error with the stage it failed in.
type failedStage struct {
	stage string
	err   error
}

func (e *failedStage) Error() string { return e.err.Error() }
func (e *failedStage) Unwrap() error { return e.err }

// start launches the cached copy exe of the plugin file path, asks for its
// description, checks it and configures the plugin. hooks may be nil. Its
// errors are *failedStage.
func (tb *Toolbox) start(ctx context.Context, path, exe, sum string, hooks *startHooks) (*instance, pluginapi.Description, error) {
	var desc pluginapi.Description
	mark := func(string) {}
	if hooks != nil && hooks.mark != nil {
		mark = hooks.mark
	}
	ctx, cancel := context.WithTimeout(ctx, tb.cfg.StartTimeout)
	defer cancel()
	// The bytes that run are the bytes hashed: a cached copy changed since
	// (tampered with, even at the same size) is refused and removed.
	if _, err := tb.cache.Verify(sum); err != nil {
		return nil, desc, &failedStage{StageStart, err}
	}
	sup := tb.cfg.Supervisor
	var g *grant
	if tb.cfg.Confiner != nil {
		// What it may do before it says what it needs: what the user
		// trusted these bytes with, or the default; what their cached
		// description declared, when there is one (a built-in then starts
		// once, not twice). Describe is checked against the grant anyway.
		var hint *pluginapi.Capabilities
		if d, ok := tb.cachedDescription(path, sum); ok {
			hint = &d.Capabilities
		}
		var err error
		if g, err = tb.grantFor(ctx, path, sum, hint); err != nil {
			return nil, desc, &failedStage{StageStart, err}
		}
		sup = g.sup
	}
	launch := func() (*pluginhost.Client, error) {
		c, err := pluginhost.Launch(ctx, pluginhost.LaunchConfig{
			Path:         exe,
			Name:         filepath.Base(path),
			Logger:       tb.log,
			Env:          append([]string{pluginapi.EnvLogLevel + "=" + tb.cfg.LogLevel}, tb.cfg.Env...),
			PassEnv:      tb.cfg.PluginEnv,
			StartTimeout: tb.cfg.StartTimeout,
			StopTimeout:  tb.cfg.StopTimeout,
			Supervisor:   sup,
		})
		if err != nil {
			return nil, startFailure(err)
		}
		return c, nil
	}
	describe := func(c *pluginhost.Client) (pluginapi.Description, error) {
		dctx, dcancel := context.WithTimeout(ctx, tb.cfg.DescribeTimeout)
		defer dcancel()
		desc, err := c.Describe(dctx)
		// The deadline has passed even when dctx does not say so yet: gRPC may
		// deliver the server's cancel (RST_STREAM) before dctx's own timer fires.
		deadline, _ := dctx.Deadline()
		if err != nil && (dctx.Err() != nil || !time.Now().Before(deadline)) && ctx.Err() == nil {
			err = fmt.Errorf("did not answer Describe within %s; it is not used", seconds(tb.cfg.DescribeTimeout))
		}
		return desc, err
	}
	c, err := launch()
	if err != nil {
		return nil, desc, &failedStage{StageStart, err}
	}
	mark(StageStart)
	stage := StageDescribe
	desc, err = describe(c)
	if err == nil {
		err = validateDescription(desc)
	}
	if err == nil && g != nil && !g.caps.Covers(desc.Capabilities) {
		// It needs more than it was launched with: granted (a built-in,
		// or trusted with these very capabilities) it starts again with
		// them; else it is refused, saying how to trust it.
		c.Close()
		declared := desc.Capabilities
		if g, err = tb.grantFor(ctx, path, sum, &declared); err != nil {
			return nil, desc, &failedStage{stage, err}
		}
		sup = g.sup
		if c, err = launch(); err != nil {
			return nil, desc, &failedStage{StageStart, err}
		}
		if desc, err = describe(c); err == nil && !g.caps.Covers(desc.Capabilities) {
			err = fmt.Errorf("it asks for %s now, %s a moment ago; it is not used", desc.Capabilities, declared)
		}
	}
	if err == nil && hooks != nil && hooks.check != nil {
		err = hooks.check(desc)
	}
	if err == nil {
		mark(StageDescribe)
		stage = StageConfigure
		host := tb.cfg.Services
		if g != nil && g.gate != nil && host != nil {
			host = gatedServices{HostServices: host, name: desc.Name, gate: g.gate}
		}
		err = c.Configure(ctx, pluginapi.ConfigureRequest{
			HostVersion: tb.cfg.HostVersion,
			LogLevel:    tb.cfg.LogLevel,
			StateDir:    tb.cfg.StateDir,
			Host:        host,
		})
		if err != nil {
			err = fmt.Errorf("configure: %w", err)
		}
	}
	if err != nil {
		c.Close()
		return nil, desc, &failedStage{stage, err}
	}
	mark(StageConfigure)
	inst := &instance{
		client: c,
		exited: c.Exited(),
		ref:    event.Plugin{Name: desc.Name, Version: desc.Version, SHA256: sum, PID: c.PID()},
		calls:  newFlight(),
	}
	if g != nil && g.gate != nil && cwdBound(g.caps) {
		// Its writes, its own and the host's for it, are bounded to
		// g.cwd. (A built-in's through the host are not.)
		inst.confinedTo = g.cwd
	}
	return inst, desc, nil
}

// current returns the live process, or nil.
func (p *plugin) current() *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// acquire returns a live process of p, restarting it if it exited: it waits
// for a restart in progress, or for a short backoff, and fails when the
// plugin is disabled, the toolbox is closed, the backoff is long, the
// restart fails, or ctx ends.
func (p *plugin) acquire(ctx context.Context) (*instance, error) {
	for {
		p.mu.Lock()
		if p.cur != nil && !p.cur.alive() {
			// The watcher has not got to it yet.
			p.exitedLocked(p.cur, tailText(p.cur.client.StderrTail()))
		}
		switch {
		case p.closed && !p.retired:
			// A retired plugin is closed once drained: its callers route
			// again (errRetired below), only the toolbox's Close fails them.
			p.mu.Unlock()
			return nil, errClosed
		case p.disabled:
			p.mu.Unlock()
			return nil, p.disabledError()
		case p.cur != nil:
			inst := p.cur
			p.mu.Unlock()
			return inst, nil
		case p.retired:
			p.mu.Unlock()
			return nil, errRetired
		case p.attached:
			// Its developer started it; only they can start it again.
			p.mu.Unlock()
			return nil, p.goneError()
		}
		st := p.starting
		if st == nil {
			now := time.Now()
			if wait := p.brk.readyAt(now).Sub(now); wait > 0 {
				p.mu.Unlock()
				if wait > p.tb.cfg.MaxRestartWait {
					return nil, fmt.Errorf("plugin %s is restarting after a crash; try again in %s",
						p.desc.Name, wait.Round(100*time.Millisecond))
				}
				if err := sleep(ctx, wait); err != nil {
					return nil, err
				}
				continue
			}
			// The restart outlives this call's ctx: other calls may wait
			// for it. Close cancels it.
			// It carries the call's working directory: a confined
			// plugin's profile stands for it.
			rctx, cancel := context.WithTimeout(withCwd(context.Background(), p.tb.cwdOf(ctx)), p.tb.cfg.StartTimeout)
			st = &start{done: make(chan struct{}), cancel: cancel}
			p.starting = st
			go p.restart(rctx, st)
		}
		p.mu.Unlock()
		select {
		case <-st.done:
			if st.err != nil {
				return nil, st.err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// restart starts a new process from the cached copy and checks that it
// offers the same tools. A failed restart counts as a crash.
func (p *plugin) restart(ctx context.Context, st *start) {
	defer st.cancel()
	begin := time.Now()
	inst, desc, err := p.tb.start(ctx, p.path, p.exe, p.sum, nil)
	if err == nil && !sameTools(p.desc, desc) {
		inst.client.Close()
		inst, err = nil, errors.New("it offers other tools than at its first start (or than its cached description)")
		// Whichever was wrong, the next Open describes it afresh.
		p.tb.cache.ForgetDescription(p.sum)
	}

	var stop *instance // started in vain: the toolbox closed meanwhile
	p.mu.Lock()
	p.starting = nil
	switch {
	case p.closed || p.retired:
		st.err = errClosed
		if p.retired {
			st.err = errRetired
		}
		if inst != nil {
			inst.stopping = true
			stop = inst
		}
	case err != nil:
		st.err = fmt.Errorf("plugin %s could not be restarted: %w", p.desc.Name, err)
		p.lastErr = st.err.Error()
		p.log.Warn("plugin restart failed", "error", err)
		p.crashedLocked(time.Now())
	default:
		p.cur = inst
		p.tb.swapInstance(p, inst)
		go p.watch(inst)
		if p.started {
			p.log.Info("plugin restarted", "pid", inst.ref.PID, "elapsed", time.Since(begin))
		} else {
			p.log.Debug("plugin started on first use", "pid", inst.ref.PID, "elapsed", time.Since(begin))
		}
	}
	p.mu.Unlock()
	if st.err == nil && inst != nil {
		p.adopt(inst)
	}
	if stop != nil {
		stop.client.Close()
	}
	close(st.done)
}

// watch handles the exit of inst as soon as the client notices it.
func (p *plugin) watch(inst *instance) {
	<-inst.exited
	why := exitReason(exitErrorOf(inst, nil))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exitedLocked(inst, why)
}

// exitErrorOf returns how inst ended, if it did: err's *ExitError, or,
// when err is not one and the process is gone, the one a call on the
// exited client returns (once the plugin's stderr is read to its end).
// It returns nil for a live process.
func exitErrorOf(inst *instance, err error) *pluginhost.ExitError {
	var ee *pluginhost.ExitError
	if errors.As(err, &ee) {
		return ee
	}
	if inst.alive() {
		return nil
	}
	_, err = inst.client.Execute(context.Background(), pluginapi.CallRequest{}, nil)
	if errors.As(err, &ee) {
		return ee
	}
	return &pluginhost.ExitError{PID: inst.ref.PID, Stderr: inst.client.StderrTail(), Err: err}
}

// exitReason says in one line how a plugin process ended: its exit state
// and its last stderr lines.
func exitReason(ee *pluginhost.ExitError) string {
	tail := tailText(ee.Stderr)
	switch {
	case ee.State == "" && tail == "":
		return "exited"
	case ee.State == "":
		return tail
	case tail == "":
		return ee.State
	}
	return ee.State + ": " + tail
}

// exitedLocked handles the exit of inst once: unless the toolbox stopped
// it, it is a crash. why says how it ended.
func (p *plugin) exitedLocked(inst *instance, why string) {
	if inst.noted {
		return
	}
	inst.noted = true
	if p.cur == inst {
		p.cur = nil
	}
	if inst.stopping {
		return
	}
	if p.attached {
		p.lastErr = p.goneError().Error()
		p.log.Warn("reattached plugin is gone; it is not restarted", "pid", inst.ref.PID, "reason", why)
		// Only the connection is left to release (Close detaches).
		go inst.client.Close()
		return
	}
	p.lastErr = fmt.Sprintf("pid %d ended: %s", inst.ref.PID, why)
	p.log.Warn("plugin exited", "pid", inst.ref.PID, "reason", why)
	p.crashedLocked(time.Now())
}

// crashedLocked counts a crash and disables p when the breaker trips.
func (p *plugin) crashedLocked(now time.Time) {
	if p.brk.record(now) && !p.disabled {
		p.disabled = true
		p.log.Error("plugin disabled", "crashes", p.brk.count(now), "window", p.brk.window)
	}
}

func (p *plugin) disabledError() error {
	return fmt.Errorf("plugin %s is disabled after %d crashes in %s; see the log (harness plugins)",
		p.desc.Name, p.brk.max, seconds(p.brk.window))
}

// retire marks p replaced or removed by a reload, so that it starts no
// more processes, and returns its live process, if any, to drain.
func (p *plugin) retire() *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retired = true
	return p.cur
}

// close stops p's process and waits for a restart in progress to end. An
// attached plugin is only detached from: its process runs on.
func (p *plugin) close() error {
	p.mu.Lock()
	p.closed = true
	if p.idle != nil {
		p.idle.Stop()
	}
	st, inst := p.starting, p.cur
	if inst != nil {
		inst.stopping = true
	}
	p.mu.Unlock()
	if st != nil {
		st.cancel()
		<-st.done // the restart stops what it started once it sees closed
	}
	if inst == nil {
		return nil
	}
	if err := inst.client.Close(); err != nil {
		return fmt.Errorf("stop plugin %s (pid %d): %w", p.desc.Name, inst.ref.PID, err)
	}
	return nil
}

// info describes p for Plugins.
func (p *plugin) info() PluginInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	pi := PluginInfo{
		Path:         p.path,
		Name:         p.desc.Name,
		Version:      p.desc.Version,
		SDK:          p.desc.SDKVersion,
		SHA256:       p.sum,
		Tools:        toolNames(p.desc),
		Status:       StatusStopped,
		Capabilities: p.desc.Capabilities,
		Err:          p.lastErr,
	}
	switch {
	case p.disabled:
		pi.Status = StatusDisabled
	case p.cur != nil && p.cur.alive() && !p.cur.stopping:
		pi.Status = StatusRunning
		pi.PID = p.cur.ref.PID
	case !p.started && !p.attached:
		pi.Status = StatusNotStarted
	}
	return pi
}

func toolNames(d pluginapi.Description) []string {
	names := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		names[i] = t.Name
	}
	return names
}

// sameTools reports whether two descriptions offer the same tools, event
// types and plugin identity.
func sameTools(a, b pluginapi.Description) bool {
	if a.Name != b.Name || a.Version != b.Version || !slices.Equal(a.EventTypes, b.EventTypes) {
		return false
	}
	return slices.EqualFunc(a.Tools, b.Tools, func(x, y pluginapi.ToolSpec) bool {
		return x.Name == y.Name && x.Description == y.Description && string(x.Schema) == string(y.Schema) &&
			x.ConcurrencySafe == y.ConcurrencySafe && x.NeedsPermission == y.NeedsPermission &&
			x.Kind == y.Kind
	})
}

// seconds formats a whole number of seconds as "60s", anything else as
// time.Duration does.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startFailure rewords a start error of pluginapi without the file name
// (a Failure names the file) and keeps it for errors.As.
func startFailure(err error) error {
	var se *pluginhost.StartError
	if !errors.As(err, &se) {
		return fmt.Errorf("launch: %w", err)
	}
	var msg string
	switch se.Kind {
	case pluginhost.StartNotPlugin:
		msg = "not a harness plugin"
		if se.Detail != "" {
			msg += ": " + se.Detail
		}
	case pluginhost.StartVersion:
		v := make([]string, len(se.PluginVersions))
		for i, n := range se.PluginVersions {
			v[i] = strconv.Itoa(n)
		}
		msg = fmt.Sprintf("speaks plugin protocol %s; this harness speaks %d", strings.Join(v, ", "), pluginapi.ProtocolVersion)
	case pluginhost.StartTimeout:
		msg = "did not complete its plugin handshake in time"
		if se.Detail != "" {
			msg = "did not complete its plugin handshake within " + se.Detail
		}
	case pluginhost.StartExited:
		msg = "exited before its plugin handshake"
		if se.Detail != "" {
			msg += " (" + se.Detail + ")"
		}
		if tail := tailText(se.Stderr); tail != "" {
			msg += ": " + tail
		}
	default:
		msg = fmt.Sprintf("cannot run: %v", se.Err)
	}
	return &launchError{msg: msg, err: err}
}

// launchError is a start failure worded for a Failure.
type launchError struct {
	msg string
	err error
}

func (e *launchError) Error() string { return e.msg }
func (e *launchError) Unwrap() error { return e.err }
