package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/devbuild"
)

// cmdDev is the plugin developer's loop: it builds the plugin sources into
// the plugin dir, then rebuilds a plugin whenever its source changes. Every
// harness process watching that dir (harness acp under the editor, harness
// run) swaps in the new binary on its next call; a failed build leaves the
// last good binary serving.
func cmdDev(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("dev", std.err, "harness dev [flags] [SOURCE-DIR...]   (default: every plugin under ./plugins)")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	log, err := newLogger(std.err, c.LogLevel, false)
	if err != nil {
		return exitUsage, err
	}
	dirs, err := c.pluginDirs()
	if err != nil {
		return exitFailed, err
	}
	sources := fs.Args()
	if len(sources) == 0 {
		if sources, err = devbuild.Sources("plugins"); err != nil {
			return exitFailed, err
		}
		if len(sources) == 0 {
			return exitUsage, fmt.Errorf("no plugin sources under ./plugins: run harness dev in the repository, or name the source folders: %w", errUsage)
		}
	}
	cfg := devbuild.Config{
		Sources: sources, OutDir: dirs[0], Logger: log.Named("dev"), Stderr: std.err,
		Env: []string{"CGO_ENABLED=0"}, // static, as the README builds them
		OnBuild: func(b devbuild.Build) {
			if b.Err == nil {
				fmt.Fprintf(std.out, "%s built in %s → %s\n", b.Plugin, b.Elapsed.Round(time.Millisecond), b.Output)
			}
		},
	}
	if _, err := devbuild.BuildAll(ctx, cfg); err != nil {
		return exitFailed, err
	}
	fmt.Fprintf(std.out, "watching %s; running harness processes reload from %s. Ctrl-C stops.\n", strings.Join(sources, ", "), dirs[0])
	if err := devbuild.Watch(ctx, cfg); err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}
