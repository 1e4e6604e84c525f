package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/plugincheck"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// cmdPluginsCheck runs the conformance checks on plugin binaries, or on
// plugins running in debug mode ($HARNESS_REATTACH_PLUGINS with
// --reattach): one report line per check, and exit status 1 if any fails.
func cmdPluginsCheck(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("plugins check", std.err, "harness plugins check [flags] PATH...\n"+
		"       harness plugins check --reattach   (the plugins in $"+pluginapi.EnvReattach+")\n\n"+
		"Runs the plugin conformance checks on each plugin binary: handshake and protocol\n"+
		"version, Describe, the host's registration rules, Configure, parameter schemas,\n"+
		"error results for unknown arguments and tools, cancellation, and shutdown time.\n"+
		"Exit status 1 if a check fails")
	c := bindConfig(fs, e) // --log-level (the plugins' too) and the config file
	startTimeout := fs.Duration("start-timeout", pluginhost.DefaultStartTimeout, "longest wait for a plugin's handshake")
	reattach := fs.Bool("reattach", false, "check the plugins running in debug mode named in $"+pluginapi.EnvReattach+" instead of launching PATHs")
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	switch {
	case *reattach && fs.NArg() > 0:
		return exitUsage, fmt.Errorf("give PATHs or --reattach, not both: %w", errUsage)
	case !*reattach && fs.NArg() == 0:
		return exitUsage, fmt.Errorf("no plugin to check: harness plugins check PATH...: %w", errUsage)
	}
	logOut := plugincheck.NewLogGate(std.err) // closed when the command returns
	defer logOut.Close()
	log, err := newLogger(logOut, c.LogLevel, false)
	if err != nil {
		return exitUsage, err
	}
	opts := plugincheck.Options{Logger: log, LogLevel: c.LogLevel, StartTimeout: *startTimeout, HostVersion: versionString(),
		Supervisor: confine.Supervise}

	var failed []string
	total := 0
	if *reattach {
		plugins, err := pluginhost.ParseReattach(c.Reattach)
		if err != nil {
			return exitFailed, err
		}
		if len(plugins) == 0 {
			return exitUsage, fmt.Errorf("--reattach: $%s names no plugin: start one with %s=1: %w", pluginapi.EnvReattach, pluginapi.EnvDebug, errUsage)
		}
		total, failed = len(plugins), plugincheck.AllAttached(ctx, plugins, std.out, opts)
	} else {
		total, failed = fs.NArg(), plugincheck.Binaries(ctx, fs.Args(), std.out, opts)
	}
	if len(failed) > 0 {
		if total == 1 {
			return exitFailed, fmt.Errorf("%s does not pass the plugin checks", failed[0])
		}
		return exitFailed, fmt.Errorf("%d of %d plugins do not pass the plugin checks: %s", len(failed), total, strings.Join(failed, ", "))
	}
	return exitOK, nil
}
