package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// maxRoutes bounds how often a call looks up its route again after
// finding the process it picked retired by a reload (each look-up sees a
// newer snapshot; in practice one more suffices).
const maxRoutes = 16

// Call runs one tool call through the plugin that offers c.Name in the
// current snapshot (or the draining process c.Plugin names, see
// tool.Call.Plugin), and returns promptly once ctx is done. c.Progress,
// if not nil, receives the call's progress text. Every failure — an unknown tool,
// arguments that are not a JSON object, a disabled or crashed plugin, an
// event the plugin did not declare, a cancelled ctx — is an error Result
// without events, never a panic or a Go error.
//
// A call that picked a process just before a reload swapped it out still
// runs on it (the drain waits for it); one that finds it already shut
// routes again through the new snapshot. So a reload fails no call.
func (tb *Toolbox) Call(ctx context.Context, c tool.Call) tool.Result {
	if tb.closed.Load() {
		return errorResult(nil, "%v", errClosed)
	}
	ctx = withCwd(ctx, c.Cwd)
	for range maxRoutes {
		e, ok := tb.route(c)
		if !ok {
			return errorResult(nil, "unknown tool %q", c.Name)
		}
		ref := e.plug.ref() // PID 0 until a process is reached
		args, err := checkArgs(c.Args)
		if err != nil {
			return errorResult(&ref, "invalid arguments: %v", err)
		}
		if ctx.Err() != nil {
			return cancelled(&ref)
		}
		inst := e.inst
		if inst == nil || !inst.alive() {
			// Not started yet, stopped when idle, or crashed: start it
			// (concurrent calls share one start).
			if inst, err = e.plug.acquire(ctx); err != nil {
				if errors.Is(err, errRetired) {
					c.Plugin = nil // the current snapshot from now on
					continue
				}
				if ctx.Err() != nil {
					return cancelled(&ref)
				}
				return errorResult(&ref, "%v", err)
			}
		}
		if !inst.calls.enter() {
			// Retired and drained meanwhile (the new snapshot is stored),
			// or stopped when idle: its plugin starts a new process.
			c.Plugin = nil
			next, err := e.plug.acquire(ctx)
			switch {
			case err == nil && next != inst && next.calls.enter():
				inst = next
			case err == nil || errors.Is(err, errRetired):
				continue
			case ctx.Err() != nil:
				return cancelled(&ref)
			default:
				return errorResult(&ref, "%v", err)
			}
		}
		if msg := outsideCwd(e.plug.desc.Name, inst, c.Cwd); msg != "" {
			inst.calls.leave()
			return errorResult(&ref, "%s", msg)
		}
		res := e.plug.execute(ctx, inst, c, args)
		inst.calls.leave()
		return res
	}
	return errorResult(nil, "plugin of tool %q kept being replaced; try again", c.Name)
}

// route returns where c goes: the draining process c.Plugin names, if it
// offers c.Name and still takes calls, else the current snapshot's entry.
func (tb *Toolbox) route(c tool.Call) (entry, bool) {
	e, ok := tb.reg.Load().tools[c.Name]
	if c.Plugin == nil || (ok && e.inst != nil && e.inst.ref == *c.Plugin) {
		return e, ok
	}
	tb.mu.Lock()
	retiring := slices.Clone(tb.retiring) // p.current locks p.mu: not under tb.mu
	tb.mu.Unlock()
	for _, p := range retiring {
		inst := p.current()
		if inst == nil || inst.ref != *c.Plugin {
			continue
		}
		if i := slices.IndexFunc(p.desc.Tools, func(s pluginapi.ToolSpec) bool { return s.Name == c.Name }); i >= 0 {
			return entry{plug: p, inst: inst, spec: p.desc.Tools[i]}, true
		}
	}
	return e, ok
}

// execute runs c on inst, a process of p that c has entered.
func (p *plugin) execute(ctx context.Context, inst *instance, c tool.Call, args json.RawMessage) tool.Result {
	// A drain that times out cancels the call.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(inst.calls.abort, func() { cancel(errDrainTimeout) })
	defer stop()

	ref := inst.ref
	res, err := inst.client.Execute(ctx, toPlugin(c, args), c.Progress)
	if err != nil {
		return p.callFailed(ctx, inst, err)
	}
	p.noteHolds(inst, c.SessionID, res.HoldsState)
	events, err := checkEvents(p.desc.Name, p.events, res.Events)
	if err != nil {
		p.log.Warn("plugin result refused", "tool", c.Name, "call", c.CallID, "error", err)
		return errorResult(&ref, "%v", err)
	}
	out := fromPlugin(res, events)
	out.Plugin = &ref
	return out
}

// Preview asks the plugin serving c.Name what c would do (title,
// locations, diff), without running it: pluginapi's Preview RPC. It
// starts the plugin's process when it is not running, as the call would.
// When the preview has no title, the tool's declared one (Title) is its
// title. A tool that declared no preview (Tool.HasPreview false) costs no
// RPC and does not start its plugin: its preview is its declared title
// alone. An unknown tool, a plugin without Preview and any failure
// preview nothing but that title; the call itself reports its errors.
func (tb *Toolbox) Preview(ctx context.Context, c tool.Call) tool.Meta {
	if tb.closed.Load() {
		return tool.Meta{}
	}
	e, ok := tb.route(c)
	if !ok {
		return tool.Meta{}
	}
	m := tb.preview(ctx, e, c)
	if m.Title == "" && e.spec.Title != "" {
		m.Title = pluginapi.ExpandTitle(e.spec.Title, json.RawMessage(c.Args))
	}
	return m
}

// preview asks e's plugin for its preview of c, when its tool has one.
func (tb *Toolbox) preview(ctx context.Context, e entry, c tool.Call) tool.Meta {
	if !hasPreview(e.plug.desc, e.spec) {
		return tool.Meta{}
	}
	args, err := checkArgs(c.Args)
	if err != nil {
		return tool.Meta{}
	}
	inst := e.inst
	if inst == nil || !inst.alive() {
		// Not started yet, or stopped: start it, as a call would.
		if inst, err = e.plug.acquire(ctx); err != nil {
			return tool.Meta{}
		}
	}
	if !inst.calls.enter() {
		return tool.Meta{}
	}
	defer inst.calls.leave()
	m, err := inst.client.Preview(ctx, toPlugin(c, args))
	if err != nil {
		e.plug.log.Debug("preview failed", "tool", c.Name, "call", c.CallID, "error", err)
		return tool.Meta{}
	}
	return metaFromPlugin(m)
}

// callFailed turns an Execute error into an error Result: a cancellation,
// a stop by the toolbox, a crash (the process exited: the result quotes its
// last stderr lines), or a failure of a live process or its transport.
// pluginapi reports an exit as an *ExitError, after waiting briefly for it
// when the transport broke.
func (p *plugin) callFailed(ctx context.Context, inst *instance, err error) tool.Result {
	ref := inst.ref
	if errors.Is(context.Cause(ctx), errDrainTimeout) {
		return errorResult(&ref, "plugin %s was replaced or removed during the call, and the call did not end within %s; it was cancelled",
			p.desc.Name, p.tb.cfg.DrainTimeout)
	}
	if ctx.Err() != nil {
		return cancelled(&ref)
	}
	ee := exitErrorOf(inst, err)
	if ee == nil {
		p.log.Warn("plugin call failed", "pid", ref.PID, "error", err)
		return errorResult(&ref, "plugin %s failed the call: %v", p.desc.Name, err)
	}
	why := exitReason(ee)
	p.mu.Lock()
	p.exitedLocked(inst, why) // now, so that the next call and Plugins see it
	stopped := inst.stopping
	p.mu.Unlock()
	if stopped {
		return errorResult(&ref, "plugin %s was stopped during the call", p.desc.Name)
	}
	if p.attached {
		return errorResult(&ref, "%v", p.goneError())
	}
	tail := tailText(ee.Stderr)
	if tail == "" {
		tail = why
	}
	return errorResult(&ref, "plugin %s crashed during the call: %s", p.desc.Name, tail)
}

func errorResult(ref *event.Plugin, format string, args ...any) tool.Result {
	return tool.Result{Content: "Error: " + fmt.Sprintf(format, args...), IsError: true, Plugin: ref}
}

func cancelled(ref *event.Plugin) tool.Result {
	return tool.Result{Content: "Error: cancelled", IsError: true, Plugin: ref}
}

// StartTool makes sure a process serves the tool name — starting its
// plugin if it is not running (a lazily started or idle-stopped one), as
// its first call would — and holds that process, like
// [Toolbox.HoldTools], until release. It returns the process, so that a
// caller who learns which tools a step will call (the engine, from the
// model's answer) can log each tool/call naming the process that will
// serve it, before the call. release is idempotent. An unknown tool, a
// disabled plugin or a failed start is an error; the call then fails the
// usual way.
func (tb *Toolbox) StartTool(ctx context.Context, name string) (ref event.Plugin, release func(), err error) {
	if tb.closed.Load() {
		return ref, nil, errClosed
	}
	for range maxRoutes {
		e, ok := tb.reg.Load().tools[name]
		if !ok {
			return ref, nil, fmt.Errorf("unknown tool %q", name)
		}
		inst := e.inst
		if inst == nil || !inst.alive() {
			if inst, err = e.plug.acquire(ctx); err != nil {
				if errors.Is(err, errRetired) {
					continue
				}
				return ref, nil, err
			}
		}
		if !inst.calls.hold() {
			// Stopped when idle or retired meanwhile: look again.
			if _, err := e.plug.acquire(ctx); err != nil && !errors.Is(err, errRetired) {
				return ref, nil, err
			}
			continue
		}
		var once sync.Once
		return inst.ref, func() { once.Do(inst.calls.unhold) }, nil
	}
	return ref, nil, fmt.Errorf("plugin of tool %q kept being replaced; try again", name)
}

// Title is the title of a call of the tool named tool with the arguments
// args, from the title template its plugin declared (Tool.Title, expanded
// by pluginapi.ExpandTitle), without an RPC; empty when the tool is
// unknown or declared no title (the caller then shows the tool's name).
// A preview's or a result's Meta.Title, when set, is the better one.
func (tb *Toolbox) Title(tool string, args json.RawMessage) string {
	e, ok := tb.reg.Load().tools[tool]
	if !ok || e.spec.Title == "" {
		return ""
	}
	return pluginapi.ExpandTitle(e.spec.Title, args)
}
