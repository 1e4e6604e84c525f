package toolbox_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/harness-dev/harness/host/tool"
)

// TestStepWarm: a step of a toolbox whose plugins start on first use
// lists its tool with PID 0; Warm starts the plugin (as the loop does when
// the model's answer names the tool), and Tool then names the process
// started, which the step holds and the call, routed by it, runs on; the
// list handed out before is not written to; after Close the process is
// no longer held by the step (an idle stop may take it).
func TestStepWarm(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo")
	cache := filepath.Join(t.TempDir(), "cache")
	openClose(t, lazyConfig(t, cache, 0, dir)) // described: cached
	tb := open(t, lazyConfig(t, cache, 0, dir))

	st := tb.Step(context.Background())
	before := st.Tools()
	if len(before) != 1 || before[0].Plugin == nil || before[0].Plugin.PID != 0 {
		t.Fatalf("the step's list before any call = %+v, want todo_write with PID 0", before)
	}
	st.Warm("todo_write")
	st.Warm("no_such_tool") // nothing to start
	tl, ok := st.Tool("todo_write")
	if !ok || tl.Plugin == nil || tl.Plugin.PID == 0 || tl.Plugin.Name != "todo" {
		t.Fatalf("Tool after Warm = %+v, %v; want todo_write naming the process started", tl, ok)
	}
	if before[0].Plugin.PID != 0 {
		t.Errorf("the list handed out before Warm was written to: %+v", before[0].Plugin)
	}
	if now := st.Tools(); now[0].Plugin.PID != tl.Plugin.PID {
		t.Errorf("the step's list names pid %d, Tool %d", now[0].Plugin.PID, tl.Plugin.PID)
	}
	res := st.Call(context.Background(), tool.Call{SessionID: "s1", CallID: "c1", Name: "todo_write", Args: todoArgs, Plugin: tl.Plugin})
	if res.IsError || res.Plugin == nil || *res.Plugin != *tl.Plugin {
		t.Errorf("the call = %+v, want it served by %+v", res, tl.Plugin)
	}
	if _, ok := st.Tool("no_such_tool"); ok {
		t.Error("Tool found a tool the step does not list")
	}
	st.Close()
	st.Close() // idempotent
}
