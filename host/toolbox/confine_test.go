package toolbox_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// fakeConfiner grants what a plugin declares (a built-in's way) unless
// refuse is set, and records each supervisor it makes; the processes run
// under the keeper unconfined (the confinement is host/keeper's and
// package sandbox's, tested there and in cmd/harness).
type fakeConfiner struct {
	refuse error
	mu     sync.Mutex
	made   []string // "caps @ cwd" of each Supervisor call
}

func (f *fakeConfiner) Grant(dir, name, sum string, declared *pluginapi.Capabilities) (pluginapi.Capabilities, error) {
	if declared == nil || declared.IsDefault() {
		return pluginapi.Capabilities{}, nil
	}
	if f.refuse != nil {
		return pluginapi.Capabilities{}, f.refuse
	}
	return *declared, nil
}

// FileGate bounds the host's text files to its cwd, as the engine's
// does for a third party's plugin that writes there.
func (f *fakeConfiner) FileGate(dir string, caps pluginapi.Capabilities, cwd string) *toolbox.FileGate {
	return &toolbox.FileGate{Read: []string{"/"}, Write: []string{cwd}}
}

func (f *fakeConfiner) Supervisor(caps pluginapi.Capabilities, cwd string) (pluginhost.Supervisor, error) {
	f.mu.Lock()
	f.made = append(f.made, caps.String()+" @ "+cwd)
	f.mu.Unlock()
	return supervise, nil
}

// TestConfinerGrants checks how the toolbox asks its Confiner: a plugin
// declaring more than it was launched with starts again with what it is
// granted, in the working directory of the call that starts it; a call
// from a session elsewhere is refused with a line saying why, while one
// inside runs; a refused grant is the plugin's failure, with the
// Confiner's words.
func TestConfinerGrants(t *testing.T) {
	t.Parallel()
	f := &fakeConfiner{}
	cfg := testConfig(t, pluginDir(t, "versioned-cwd"))
	cfg.Confiner, cfg.Cwd, cfg.StartOnUse = f, "/host", true
	tb := open(t, cfg)
	if got := pluginInfo(t, tb, "versioned").Capabilities; !got.Equal(pluginapi.Capabilities{Write: []string{"cwd"}}) {
		t.Errorf("PluginInfo.Capabilities = %v, want write cwd", got)
	}
	res := tb.Call(t.Context(), tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), CallID: "c1", Name: "version", Args: "{}", Cwd: "/work/a"})
	if res.IsError || res.Content != "cwd" {
		t.Fatalf("call in /work/a: %+v", res)
	}
	res = tb.Call(t.Context(), tool.Call{SessionID: "s2", Caller: string(pluginapi.CallerAgent), CallID: "c2", Name: "version", Args: "{}", Cwd: "/work/b"})
	if !res.IsError || !strings.Contains(res.Content, "runs confined to the working directory /work/a, and this session's is /work/b") {
		t.Errorf("call in /work/b: %+v", res)
	}
	res = tb.Call(t.Context(), tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), CallID: "c3", Name: "version", Args: "{}", Cwd: "/work/a/sub"})
	if res.IsError {
		t.Errorf("call in /work/a/sub: %+v", res)
	}
	f.mu.Lock()
	made := strings.Join(f.made, "\n")
	f.mu.Unlock()
	// Open: default, then again with write cwd (described, stopped);
	// the first call: granted at once from the cached description.
	want := "default (reads the cwd, writes nothing, no network) @ /host\nwrite cwd @ /host\nwrite cwd @ /work/a"
	if made != want {
		t.Errorf("supervisors made:\n%s\nwant:\n%s", made, want)
	}

	refused := &fakeConfiner{refuse: errors.New("plugin versioned-cwd asks for write cwd; run harness plugins trust versioned-cwd")}
	cfg = testConfig(t, pluginDir(t, "versioned-cwd"))
	cfg.Confiner = refused
	tb = open(t, cfg)
	if fs := tb.Failures(); len(fs) != 1 || !strings.Contains(fs[0].Err.Error(), "run harness plugins trust versioned-cwd") {
		t.Errorf("failures %v, want the Confiner's refusal", fs)
	}
}
