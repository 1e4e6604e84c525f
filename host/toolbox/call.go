package toolbox

import (
	"context"
	"fmt"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/pluginapi"
)

// Call runs one tool call through the plugin that offers c.Name in the
// current snapshot, and returns promptly once ctx is done. Progress, if
// not nil, receives the call's progress text. Every failure — an unknown
// tool, arguments that are not a JSON object, a disabled or crashed plugin,
// an event the plugin did not declare, a cancelled ctx — is an error Result
// without events, never a panic or a Go error.
func (tb *Toolbox) Call(ctx context.Context, c Call, progress pluginapi.Progress) Result {
	if tb.closed.Load() {
		return errorResult(nil, "%v", errClosed)
	}
	e, ok := tb.reg.Load().tools[c.Name]
	if !ok {
		return errorResult(nil, "unknown tool %q", c.Name)
	}
	ref := e.inst.ref
	ref.PID = 0 // until a process is reached
	args, err := checkArgs(c.Args)
	if err != nil {
		return errorResult(&ref, "invalid arguments: %v", err)
	}
	if ctx.Err() != nil {
		return cancelled(&ref)
	}
	inst := e.inst
	if !inst.alive() {
		if inst, err = e.plug.acquire(ctx); err != nil {
			if ctx.Err() != nil {
				return cancelled(&ref)
			}
			return errorResult(&ref, "%v", err)
		}
	}
	ref = inst.ref
	res, err := inst.client.Execute(ctx, pluginapi.CallRequest{
		Tool:      c.Name,
		Args:      args,
		SessionID: c.SessionID,
		Caller:    c.Caller,
		Turn:      c.Turn,
		CallID:    c.CallID,
		Cwd:       c.Cwd,
	}, progress)
	if err != nil {
		return e.plug.callFailed(ctx, inst, err)
	}
	if err := validateEvents(e.plug.desc.Name, e.plug.events, res.Events); err != nil {
		e.plug.log.Warn("plugin result refused", "tool", c.Name, "call", c.CallID, "error", err)
		return errorResult(&ref, "%v", err)
	}
	return Result{Content: res.Content, IsError: res.IsError, Events: res.Events, Plugin: &ref}
}

// callFailed turns an Execute error into an error Result: a cancellation,
// a stop by the toolbox, a crash (the process exited: the result quotes its
// last stderr lines), or a failure of a live process or its transport.
// pluginapi reports an exit as an *ExitError, after waiting briefly for it
// when the transport broke.
func (p *plugin) callFailed(ctx context.Context, inst *instance, err error) Result {
	ref := inst.ref
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
	tail := tailText(ee.Stderr)
	if tail == "" {
		tail = why
	}
	return errorResult(&ref, "plugin %s crashed during the call: %s", p.desc.Name, tail)
}

func errorResult(ref *event.Plugin, format string, args ...any) Result {
	return Result{Content: "Error: " + fmt.Sprintf(format, args...), IsError: true, Plugin: ref}
}

func cancelled(ref *event.Plugin) Result {
	return Result{Content: "Error: cancelled", IsError: true, Plugin: ref}
}
