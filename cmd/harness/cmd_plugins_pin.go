package main

import (
	"context"
	"fmt"

	"github.com/harness-dev/harness/host/pluginlock"
)

// cmdPluginsPin writes the lock file of every plugin dir: the sha256 of
// each plugin file in it (see package pluginlock). With --dev it marks the
// dirs for development instead: their plugins may change (hot reload).
func cmdPluginsPin(_ context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("plugins pin", std.err, "harness plugins pin [--dev] [flags]\n\n"+
		"Records the sha256 of every plugin in each plugin dir in DIR.lock, next to the dir.\n"+
		"The host then refuses a plugin whose file changed, or that the lock does not name.\n"+
		"Run it again to trust new binaries")
	c := bindConfig(fs, e)
	dev := fs.Bool("dev", false, "mark the plugin dirs for development: plugins may change and are hot-reloaded; the sums are only recorded")
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if fs.NArg() > 0 {
		return exitUsage, fmt.Errorf("harness plugins pin takes no arguments (the plugin dirs come from --plugin-dir): %w", errUsage)
	}
	dirs, err := c.pluginDirs()
	if err != nil {
		return exitFailed, err
	}
	pinned := 0
	for _, dir := range dirs {
		ok, err := pluginlock.PinDir(dir, *dev, std.out)
		if err != nil {
			return exitFailed, err
		}
		if ok {
			pinned++
		}
	}
	if pinned == 0 {
		return exitFailed, fmt.Errorf("no plugin dir to pin: none of %v exists", dirs)
	}
	return exitOK, nil
}
