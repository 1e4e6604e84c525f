package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// BenchmarkPluginFirstStart measures a plugin's first start — launch
// under its keeper, handshake, Describe, stop — of the real todo plugin,
// as today (kept, unconfined) and confined to the default profile (the
// keeper applies Landlock, seccomp and RLIMIT_NPROC before it execs it).
func BenchmarkPluginFirstStart(b *testing.B) {
	todo := filepath.Join(testPlugins(b), "todo")
	cwd := b.TempDir()
	profile := confine.PluginProfile(pluginapi.Capabilities{}, cwd, "", nil)
	for _, bc := range []struct {
		name string
		sup  pluginhost.Supervisor
	}{
		{"kept", confine.Supervise},
		{"confined", func(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.WrapConfined(cmd, profile, false) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{Path: todo, Supervisor: bc.sup})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Describe(context.Background()); err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}
