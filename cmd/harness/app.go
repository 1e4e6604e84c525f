package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/buildinfo"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/termview"
)

// version is the harness version, set at build time with
// -ldflags "-X main.version=…"; see versionString for the default.
var version = "dev"

// versionString is the version to show: the one set at build time, else
// the commit the binary was built from.
func versionString() string { return buildinfo.Version(version) }

// stdio are the process streams, passed explicitly so tests can own them.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// styled, when set, is stderr itself for the lines harness styles
	// (termview.Terminal.Err): run filters err through host/termsafe and
	// keeps the stream it wraps here.
	styled io.Writer
}

// safeStdio returns std with stderr, and stdout of the commands that
// style nothing of their own (sessions, models, plugins, dev, sandbox), going
// through host/termsafe: what plugins, servers, logs and errors say is
// shown escaped, never interpreted by the terminal. run and demo render
// through termview, so their stdout is theirs. acp keeps both: stdout
// speaks ACP and stderr is the editor's log of JSON lines, whose strings
// the encoder escapes (the filter's \x7f would break one); run's error
// line is filtered all the same. flush writes what the filters hold back.
func safeStdio(std stdio, command string) (safe stdio, flush func()) {
	if command == "acp" {
		return std, func() {}
	}
	errw := termsafe.NewWriter(std.err)
	safe = stdio{in: std.in, out: std.out, err: errw, styled: std.err}
	if std.styled != nil {
		safe.styled = std.styled
	}
	switch command {
	case "sessions", "models", "plugins", "dev", "sandbox":
		outw := termsafe.NewWriter(std.out)
		safe.out = outw
		return safe, func() { outw.Flush(); errw.Flush() }
	}
	return safe, func() { errw.Flush() }
}

// Exit codes: a turn's are termview's.
const (
	exitOK        = termview.ExitOK
	exitFailed    = termview.ExitFailed
	exitUsage     = 2 // the command line was wrong
	exitCancelled = termview.ExitCancelled
)

const usage = `harness — an agent host with an event-sourced session log.

Usage:
  harness run [flags] PROMPT     run one turn in the terminal
  harness sessions [flags]       list sessions and their token totals
  harness sessions export ID FILE   write a session's log to FILE (JSONL)
  harness sessions import FILE   add the session of a JSONL log to the store
  harness attach [flags] ID      follow a session running elsewhere, read-only
  harness sessions fork ID       a new session with ID's history (--at SEQ: up to that point)
  harness models [--remote]      list the configured models (--remote: the server's)
  harness acp [flags]            serve the Agent Client Protocol on stdio (for editors)
  harness demo [flags]           run a bundled scripted session: no key, no network
  harness plugins [flags]        list the plugins found, their tools and failures
  harness plugins check PATH...  run the plugin conformance checks on plugin binaries
  harness plugins pin [--dev]    pin the plugins' sha256 in DIR.lock next to each plugin dir
  harness dev [flags] [DIR...]   rebuild plugins from source as you edit them
  harness sandbox [flags]        what this kernel enforces of the sandbox setting (--sandbox)
  harness version                print the version

Flags go before PROMPT; every flag has an environment twin (see harness run -h)
and a key in $XDG_CONFIG_HOME/harness/config.toml (--config to name another);
a flag wins over its variable, which wins over the file.
Exit status: 0 completed, 1 failed, 2 usage, 3 stopped early (step or token
limit, refusal; in the JSON formats also a call refused for want of someone
to ask), 4 a budget ran out (--max-budget-usd, --timeout), 130 cancelled
(Ctrl-C); 129 and 143 when SIGHUP or SIGTERM ended it (the turn is logged
as cancelled, the plugins are stopped).
`

// errUsage marks an error whose message is about the command line.
var errUsage = errors.New("usage")

// run is the whole command with its environment injected; it returns the
// process exit code.
func run(ctx context.Context, args []string, std stdio, lookup env) int {
	if len(args) == 0 {
		fmt.Fprint(std.err, usage)
		return exitUsage
	}
	std, flush := safeStdio(std, args[0])
	defer flush()
	var code int
	var err error
	switch args[0] {
	case "run":
		code, err = cmdRun(ctx, args[1:], std, lookup)
	case "sessions":
		code, err = cmdSessions(ctx, args[1:], std, lookup)
	case "attach":
		code, err = cmdAttach(ctx, args[1:], std, lookup)
	case "models":
		code, err = cmdModels(ctx, args[1:], std, lookup)
	case "demo":
		code, err = cmdDemo(ctx, args[1:], std, lookup)
	case "dev":
		code, err = cmdDev(ctx, args[1:], std, lookup)
	case "plugins":
		code, err = cmdPlugins(ctx, args[1:], std, lookup)
	case "sandbox":
		code, err = cmdSandbox(ctx, args[1:], std, lookup)
	case "acp":
		code, err = cmdACP(ctx, args[1:], std, lookup)
	case "version", "--version":
		fmt.Fprintf(std.out, "harness %s\n", versionString())
		fmt.Fprintf(std.out, "plugin protocol %d.%d, %s %s\n", pluginapi.ProtocolVersion, pluginapi.ProtocolMinor, pluginapi.ModulePath, buildinfo.SDKVersion())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(std.out, usage)
		return exitOK
	default:
		fmt.Fprintf(std.err, "harness: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		// errUsage only marks the error: its text is not for the user.
		msg := strings.TrimSuffix(err.Error(), ": "+errUsage.Error())
		fmt.Fprintf(std.err, "harness: %s\n", termsafe.Line(shorten.Headline(msg)))
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		if code == exitOK {
			code = exitFailed
		}
	}
	return code
}

// newLogger is hclogger; a bad level is a usage error.
func newLogger(w io.Writer, level string, json bool) (hclog.Logger, error) {
	log, err := hclogger(w, level, json)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, errUsage)
	}
	return log, nil
}

// hclogger returns a command's logger for engine.Config.Logger, named
// harness: it writes to w at level (trace, debug, info, warn, error or
// off), as JSON lines when json is set (under ACP, where a program reads
// stderr).
func hclogger(w io.Writer, level string, json bool) (hclog.Logger, error) {
	l := hclog.LevelFromString(level)
	if l == hclog.NoLevel {
		return nil, fmt.Errorf("unknown log level %q: use trace, debug, info, warn, error or off", level)
	}
	return hclog.New(&hclog.LoggerOptions{Name: "harness", Level: l, Output: w, JSONFormat: json, Color: hclog.ColorOff}), nil
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, w io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}
