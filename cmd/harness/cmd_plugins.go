package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/termview"
)

func cmdPlugins(ctx context.Context, args []string, std stdio, e env) (int, error) {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return cmdPluginsCheck(ctx, args[1:], std, e)
		case "pin":
			return cmdPluginsPin(ctx, args[1:], std, e)
		case "trust":
			return cmdPluginsTrust(ctx, args[1:], std, e)
		}
	}
	fs := newFlagSet("plugins", std.err, "harness plugins [flags]                list the plugins, their tools and failures\n"+
		"       harness plugins check [flags] PATH...  run the conformance checks on plugin binaries\n"+
		"       harness plugins pin [--dev] [flags]    pin the plugins' sha256 in a lock file next to each plugin dir\n"+
		"       harness plugins trust [flags] NAME     show what plugin NAME asks for beyond the default confinement, and trust it")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if err := c.check(); err != nil {
		return exitUsage, fmt.Errorf("%w: %w", err, errUsage)
	}
	log, err := newLogger(std.err, c.LogLevel, false)
	if err != nil {
		return exitUsage, err
	}
	rc, err := runtimeConfig(c, e, log)
	if err != nil {
		return exitFailed, err
	}
	rt, err := engine.New(rc)
	if err != nil {
		return exitFailed, err
	}
	if err := rt.StartTools(ctx); err != nil {
		return exitFailed, err
	}
	defer rt.Close()
	dirs := rc.PluginDirs
	infos := rt.Plugins()
	if len(infos) == 0 {
		fmt.Fprintf(std.err, "no plugins in %s: build them with go build -o bin/plugins/ ./plugins/...\n", strings.Join(dirs, ":"))
	} else if err := termview.Plugins(std.out, infos); err != nil {
		return exitFailed, err
	}
	var specs []llm.ToolSpec
	for _, t := range rt.Tools() {
		specs = append(specs, t.Spec)
	}
	if err := termview.ToolSizes(std.out, infos, specs); err != nil {
		return exitFailed, err
	}
	cwd, _ := os.Getwd() // the project whose .mcp.json counts
	if err := termview.MCPServers(std.out, rt.MCPServers(cwd)); err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}
