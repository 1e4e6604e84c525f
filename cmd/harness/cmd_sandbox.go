package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/sandbox"
)

// cmdSandbox prints what this kernel offers a sandbox (sandbox.Probe) and,
// row by row, what the configured setting (--sandbox, --sandbox-network)
// enforces here for a command run in the current folder. Its stdout goes
// through host/termsafe like the other listings'.
func cmdSandbox(_ context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("sandbox", std.err, "harness sandbox [flags]")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if len(fs.Args()) > 0 {
		return exitUsage, fmt.Errorf("harness sandbox takes no arguments, got %q: %w", fs.Args(), errUsage)
	}
	if err := c.check(); err != nil {
		return exitUsage, fmt.Errorf("%w: %w", err, errUsage)
	}
	sb := c.sandbox()
	if runtime.GOOS != "linux" {
		fmt.Fprintf(std.out, "sandbox %s: not enforced on %s (bash commands run with your rights)\n", sb, runtime.GOOS)
		return exitOK, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return exitFailed, fmt.Errorf("find the current directory: %w", err)
	}
	p := sandbox.Policy{Mode: sandbox.Off, Network: sandbox.NetworkOn}
	if sb.Mode != sandbox.Off {
		p = sandbox.Build(sandbox.Setup{Mode: sb.Mode, Network: sb.Network, Cwd: cwd, AddDirs: sb.AddDirs, TempDir: os.TempDir(),
			Home: e.get("HOME"), RuntimeDir: e.get("XDG_RUNTIME_DIR"), DenyRead: sb.DenyRead, PidsLimit: sb.PidsLimit})
	}
	k := sandbox.Probe()
	fmt.Fprintln(std.out, "this kernel:")
	for _, l := range strings.Split(strings.TrimSuffix(k.String(), "\n"), "\n") {
		fmt.Fprintf(std.out, "  %s\n", l)
	}
	fmt.Fprintf(std.out, "sandbox %s (mode from %s, network from %s), for a command in %s:\n",
		termsafe.Line(sb.String()), from(c.source("sandbox")), from(c.source("sandbox-network")), termsafe.Line(cwd))
	if len(sb.AddDirs) > 0 && sb.Mode != sandbox.Off {
		fmt.Fprintf(std.out, "  added folders (from %s): %s\n", from(c.source("add-dir")), termsafe.Line(strings.Join(sb.AddDirs, ", ")))
	}
	if len(sb.DenyRead) > 0 && sb.Mode != sandbox.Off {
		fmt.Fprintf(std.out, "  hidden besides the credential stores (from %s): %s\n", from(c.source("deny-read")), termsafe.Line(strings.Join(sb.DenyRead, ", ")))
	}
	for _, r := range k.Enforceable(p) {
		fmt.Fprintf(std.out, "  %s\n", r)
	}
	return exitOK, nil
}

// from names a setting's source for a person: "--sandbox",
// "HARNESS_SANDBOX", "config file …: sandbox", "the default".
func from(source string) string {
	if source == "default" {
		return "the default"
	}
	return source
}
