package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
)

// Target is what Conformance checks: a *pluginhost.Client, connected to a
// plugin served in process (Start) or to a launched binary
// (pluginhost.Launch).
type Target interface {
	Describe(ctx context.Context) (pluginapi.Description, error)
	Execute(ctx context.Context, req pluginapi.CallRequest, progress pluginapi.Progress) (pluginapi.Result, error)
}

// Argument names and tool names the checks use; no real tool has them.
const (
	UnknownArgument = "__harness_conformance_unknown__"
	unknownTool     = "__harness_conformance_no_such_tool__"
)

// promptly is how long a cancelled call may take to return.
const promptly = 2 * time.Second

type check struct {
	name string
	run  func(ctx context.Context, target Target) []error
}

// checks are the rules every plugin keeps:
//
//   - describe: Describe answers the same twice; the plugin has a name and
//     a version; tool names are unique and match ^[A-Za-z0-9_-]{1,64}$;
//     every tool has a description; event types are non-empty and unique.
//   - schemas: every tool's parameter schema passes pluginapi.CheckSchema
//     (a structural check, not a meta-schema validation).
//   - unknown_argument: calling a tool with {"__harness_conformance_unknown__":1}
//     gives an error Result, not a Go error or a crash.
//   - unknown_tool: calling a tool the plugin does not have gives an error
//     Result.
//   - cancelled: a call whose context is cancelled up front returns within
//     2 s; a call cancelled 20 ms after it started (by Cancel(call id) when
//     the target has it, as a *pluginhost.Client has: the tool must then end
//     with a Result) returns within 2 s; the plugin still answers
//     afterwards. Only the arguments {} are tried: a tool that needs real
//     arguments to run long needs its own cancellation test.
func checks() []check {
	return []check{
		{"describe", checkDescribe},
		{"schemas", checkSchemas},
		{"unknown_argument", checkUnknownArgument},
		{"unknown_tool", checkUnknownTool},
		{"cancelled", checkCancelled},
	}
}

// Rule is one conformance check: its name (describe, schemas,
// unknown_argument, unknown_tool, cancelled) and the function that runs it
// on a target, returning its failures.
type Rule struct {
	Name string
	Run  func(ctx context.Context, target Target) []error
}

// Rules returns the checks Conformance and Check run, in their order, for
// callers that report each one (harness plugins check times them).
func Rules() []Rule {
	var rules []Rule
	for _, c := range checks() {
		rules = append(rules, Rule{Name: c.name, Run: c.run})
	}
	return rules
}

// Conformance runs every check on target, one subtest each.
func Conformance(t *testing.T, target Target) {
	t.Helper()
	for _, c := range checks() {
		t.Run(c.name, func(t *testing.T) {
			for _, err := range c.run(t.Context(), target) {
				t.Error(err)
			}
		})
	}
}

// Check runs every check on target and returns the failures, each
// prefixed with its check's name; none means the plugin conforms. It is
// Conformance outside tests (harness plugins check).
func Check(ctx context.Context, target Target) []error {
	var errs []error
	for _, c := range checks() {
		for _, err := range c.run(ctx, target) {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errs
}

func describe(ctx context.Context, target Target) (pluginapi.Description, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return target.Describe(ctx)
}

func checkDescribe(ctx context.Context, target Target) []error {
	d1, err := describe(ctx, target)
	if err != nil {
		return []error{err}
	}
	d2, err := describe(ctx, target)
	if err != nil {
		return []error{err}
	}
	var errs []error
	if !reflect.DeepEqual(d1, d2) {
		errs = append(errs, errors.New("two Describe calls gave different answers"))
	}
	if d1.Name == "" {
		errs = append(errs, errors.New("the plugin has no name"))
	}
	if d1.Version == "" {
		errs = append(errs, errors.New("the plugin has no version"))
	}
	seen := map[string]bool{}
	for _, tool := range d1.Tools {
		if !validToolName(tool.Name) {
			errs = append(errs, fmt.Errorf("tool name %q does not match ^[A-Za-z0-9_-]{1,64}$", tool.Name))
		}
		if seen[tool.Name] {
			errs = append(errs, fmt.Errorf("tool %s is listed twice", tool.Name))
		}
		seen[tool.Name] = true
		if tool.Description == "" {
			errs = append(errs, fmt.Errorf("tool %s has no description", tool.Name))
		}
	}
	types := map[string]bool{}
	for _, et := range d1.EventTypes {
		if et == "" || types[et] {
			errs = append(errs, fmt.Errorf("event type %q is empty or listed twice", et))
		}
		types[et] = true
	}
	return errs
}

func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func checkSchemas(ctx context.Context, target Target) []error {
	d, err := describe(ctx, target)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, tool := range d.Tools {
		if err := pluginapi.CheckSchema(tool.Schema); err != nil {
			errs = append(errs, fmt.Errorf("tool %s: schema: %w", tool.Name, err))
		}
	}
	return errs
}

func checkUnknownArgument(ctx context.Context, target Target) []error {
	d, err := describe(ctx, target)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, tool := range d.Tools {
		args, _ := json.Marshal(map[string]int{UnknownArgument: 1})
		if err := wantErrorResult(ctx, target, tool.Name, args); err != nil {
			errs = append(errs, fmt.Errorf("tool %s with an unknown argument: %w", tool.Name, err))
		}
	}
	return errs
}

func checkUnknownTool(ctx context.Context, target Target) []error {
	if err := wantErrorResult(ctx, target, unknownTool, json.RawMessage(`{}`)); err != nil {
		return []error{fmt.Errorf("a call of a tool the plugin does not have: %w", err)}
	}
	return nil
}

func wantErrorResult(ctx context.Context, target Target, tool string, args json.RawMessage) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := target.Execute(ctx, pluginapi.CallRequest{
		Tool:   tool,
		Args:   args,
		Caller: pluginapi.CallerNone,
		CallID: "conformance-" + tool,
	}, nil)
	switch {
	case err != nil:
		return fmt.Errorf("want an error Result, got the Go error %w", err)
	case !res.IsError:
		return fmt.Errorf("want an error Result, got the success %q", res.Content)
	case res.Content == "":
		return errors.New("the error Result has no content")
	}
	return nil
}

// canceller is a Target that can cancel a call by id, as
// *pluginhost.Client can.
type canceller interface {
	Cancel(ctx context.Context, callID string) error
}

func checkCancelled(ctx context.Context, target Target) []error {
	d, err := describe(ctx, target)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, tool := range d.Tools {
		if err := cancelledCall(ctx, target, tool.Name, true); err != nil {
			errs = append(errs, fmt.Errorf("tool %s, context cancelled before the call: %w", tool.Name, err))
		}
		if err := cancelledCall(ctx, target, tool.Name, false); err != nil {
			errs = append(errs, fmt.Errorf("tool %s, cancelled 20ms into the call: %w", tool.Name, err))
		}
	}
	if _, err := describe(ctx, target); err != nil {
		errs = append(errs, fmt.Errorf("after the cancelled calls: %w", err))
	}
	return errs
}

// cancelledCall makes one call with the arguments {} and cancels it: by
// its context before it starts (upFront), else 20 ms after it started,
// through Cancel(call id) when the target has it (the plugin must then end
// the call with a Result) or else through its context.
func cancelledCall(ctx context.Context, target Target, tool string, upFront bool) error {
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	callID := "conformance-cancel-" + tool
	c, cooperative := target.(canceller)
	cooperative = cooperative && !upFront
	switch {
	case upFront:
		cancel()
	case cooperative:
		time.AfterFunc(20*time.Millisecond, func() { _ = c.Cancel(ctx, callID) })
	default:
		time.AfterFunc(20*time.Millisecond, cancel)
	}
	done := make(chan error, 1)
	go func() {
		_, err := target.Execute(callCtx, pluginapi.CallRequest{
			Tool:   tool,
			Args:   json.RawMessage(`{}`),
			Caller: pluginapi.CallerNone,
			CallID: callID,
		}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		switch {
		case err == nil:
		case cooperative:
			return fmt.Errorf("want a Result after Cancel, got %w", err)
		case !errors.Is(err, context.Canceled):
			return fmt.Errorf("want a Result or context.Canceled, got %w", err)
		}
		return nil
	case <-time.After(promptly):
		return fmt.Errorf("no return within %v", promptly)
	}
}
