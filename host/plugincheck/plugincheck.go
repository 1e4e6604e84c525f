// Package plugincheck runs the plugin conformance checks on a plugin binary
// or on a plugin running in debug mode, as `harness plugins check` does:
// handshake and protocol version, Describe, the host's registration rules,
// Configure, parameter schemas (plugintest's rules), error results for
// unknown arguments and tools, cancellation, and shutdown time.
//
// Contract: Binary and Attached write one report line per check to w as it
// ends (PASS, FAIL or SKIP, the check, its time, what it found) and return
// whether every check passed. They never stop an attached plugin.
package plugincheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/pluginlock"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// shutdownBudget is how long a plugin may take to exit once the host asks
// it to (go-plugin's Shutdown). A plugin without plugin.GRPCController is
// killed by go-plugin after 2 s; a Go plugin stops in milliseconds.
const shutdownBudget = 1500 * time.Millisecond

// maxDetailLines bounds the further problems printed for one check.
const maxDetailLines = 4

// Options configure one check run.
type Options struct {
	// Logger receives go-plugin's and the plugin's logs, some after
	// Binaries or AllAttached returned: log to a LogGate, closed after.
	Logger hclog.Logger
	// LogLevel is the level the plugin is asked to log at.
	LogLevel string
	// StartTimeout bounds the wait for the handshake (or the attach).
	StartTimeout time.Duration
	// HostVersion is told to the plugin at Configure.
	HostVersion string
	// Supervisor runs the plugin checked under the host's supervisor
	// (pluginhost.LaunchConfig.Supervisor), as the toolbox runs plugins.
	Supervisor pluginhost.Supervisor
}

// report prints a check run, one line per check as it ends.
type report struct {
	w      io.Writer
	name   string // the file or attached plugin, until Describe names it
	failed int
	passed int
	begin  time.Time
	// hostVersion is told to the plugin at Configure.
	hostVersion string
}

// line prints one check's outcome: PASS, FAIL or SKIP, its name, its time
// and what it found; further problems go on lines of their own.
func (r *report) line(status, name string, took time.Duration, detail ...string) {
	switch status {
	case "PASS":
		r.passed++
	case "FAIL":
		r.failed++
	}
	first := ""
	if len(detail) > 0 {
		first = detail[0]
	}
	fmt.Fprintf(r.w, "%-4s  %-16s %7s  %s\n", status, name, ms(took), shorten.Headline(first))
	more := detail[min(1, len(detail)):]
	if len(more) > maxDetailLines {
		more = append(more[:maxDetailLines:maxDetailLines], fmt.Sprintf("… and %d more", len(more)-maxDetailLines))
	}
	for _, d := range more {
		fmt.Fprintf(r.w, "%-4s  %-16s %7s  %s\n", "", "", "", shorten.Headline(d))
	}
}

// ms formats a check's time.
func ms(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return "<1ms"
	case d < 10*time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(100 * time.Millisecond).String()
}

// Binaries checks the plugin binaries at paths, one after the other, and
// returns those that fail a check.
func Binaries(ctx context.Context, paths []string, w io.Writer, opts Options) (failed []string) {
	for _, path := range paths {
		if !Binary(ctx, path, w, opts) {
			failed = append(failed, path)
		}
	}
	return failed
}

// AllAttached checks the plugins running in debug mode, by name, and
// returns the names of those that fail a check.
func AllAttached(ctx context.Context, plugins map[string]pluginapi.ReattachConfig, w io.Writer, opts Options) (failed []string) {
	names := make([]string, 0, len(plugins))
	for name := range plugins {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !Attached(ctx, name, plugins[name], w, opts) {
			failed = append(failed, name)
		}
	}
	return failed
}

// Binary launches the plugin at path and runs every check on it. It
// reports whether all passed.
func Binary(ctx context.Context, path string, w io.Writer, opts Options) bool {
	r := &report{w: w, name: filepath.Base(path), begin: time.Now(), hostVersion: opts.HostVersion}
	header := path
	if sum, err := pluginlock.HashFile(path); err == nil {
		header += " (sha256 " + sum[:12] + "…)"
	}
	fmt.Fprintf(w, "checking %s\n", header)

	begin := time.Now()
	if err := checkFile(path); err != nil {
		r.line("FAIL", "launch", 0, err.Error())
		return r.end(pluginapi.Description{}, nil)
	}
	abs, err := filepath.Abs(path) // never looked up in $PATH
	if err != nil {
		r.line("FAIL", "launch", 0, err.Error())
		return r.end(pluginapi.Description{}, nil)
	}
	c, err := pluginhost.Launch(ctx, pluginhost.LaunchConfig{
		Path:         abs,
		Name:         filepath.Base(path),
		Logger:       opts.Logger,
		Env:          []string{pluginapi.EnvLogLevel + "=" + opts.LogLevel},
		StartTimeout: opts.StartTimeout,
		StopTimeout:  pluginhost.DefaultStopTimeout,
		Supervisor:   opts.Supervisor,
	})
	if err != nil {
		r.line("FAIL", "launch", time.Since(begin), err.Error())
		return r.end(pluginapi.Description{}, nil)
	}
	r.line("PASS", "launch", time.Since(begin), fmt.Sprintf("handshake done: plugin protocol %d, pid %d", pluginapi.ProtocolVersion, c.PID()))
	d := runChecks(ctx, c, r)

	dead := exited(c)
	begin = time.Now()
	err = c.Close()
	took := time.Since(begin)
	switch {
	case dead:
		r.line("SKIP", "shutdown", 0, "the plugin had exited already")
	case err != nil:
		r.line("FAIL", "shutdown", took, err.Error())
	case took > shutdownBudget:
		r.line("FAIL", "shutdown", took, fmt.Sprintf("took %s: it did not exit within %s of the host's Shutdown (go-plugin's plugin.GRPCController), so it was killed",
			took.Round(100*time.Millisecond), shutdownBudget))
	default:
		r.line("PASS", "shutdown", took, "exited after Shutdown")
	}
	return r.end(d, c.StderrTail())
}

// checkFile explains why path cannot be run, if it cannot.
func checkFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("cannot run %s: %w", path, errors.Unwrap(err))
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not a plugin binary", path)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable (chmod +x it; the host skips files without an exec bit)", path)
	case pluginlock.Skip(filepath.Base(path)):
		return fmt.Errorf("the host skips files named like %s (dotfiles, backups, temporary files): rename it", filepath.Base(path))
	}
	return nil
}

// Attached attaches to a plugin in debug mode and runs every check
// but shutdown (the plugin belongs to its developer).
func Attached(ctx context.Context, name string, rc pluginapi.ReattachConfig, w io.Writer, opts Options) bool {
	r := &report{w: w, name: name, begin: time.Now(), hostVersion: opts.HostVersion}
	fmt.Fprintf(w, "checking %s in debug mode (pid %d, %s %s)\n", name, rc.Pid, rc.Addr.Network, rc.Addr.String)
	begin := time.Now()
	actx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	c, err := pluginhost.Attach(actx, name, rc, opts.Logger)
	cancel()
	if err != nil {
		r.line("FAIL", "attach", time.Since(begin), err.Error())
		return r.end(pluginapi.Description{}, nil)
	}
	defer c.Close()
	r.line("PASS", "attach", time.Since(begin), "connected; the plugin is not stopped afterwards")
	d := runChecks(ctx, c, r)
	r.line("SKIP", "shutdown", 0, "an attached plugin is not stopped")
	return r.end(d, nil)
}

// runChecks runs the checks that need a live plugin: plugintest's rules,
// with the host's registration rules and Configure right after describe,
// before any call. It returns the plugin's description.
func runChecks(ctx context.Context, c *pluginhost.Client, r *report) pluginapi.Description {
	begin := time.Now()
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	d, err := c.Describe(dctx)
	cancel()
	if err != nil {
		r.line("FAIL", "describe", time.Since(begin), err.Error())
		for _, rule := range plugintest.Rules() {
			if rule.Name != "describe" {
				r.line("SKIP", rule.Name, 0, "no description")
			}
		}
		return d
	}
	configured := false
	for _, rule := range plugintest.Rules() {
		if exited(c) {
			r.line("SKIP", rule.Name, 0, "the plugin exited during an earlier check")
			continue
		}
		if rule.Name != "describe" && !configured {
			configure(ctx, c, d, r)
			configured = true
		}
		begin := time.Now()
		errs := rule.Run(ctx, c)
		took := time.Since(begin)
		switch {
		case len(errs) > 0:
			r.line("FAIL", rule.Name, took, errorLines(errs)...)
		case rule.Name == "describe":
			r.line("PASS", rule.Name, took, summary(d))
		default:
			r.line("PASS", rule.Name, took, ruleDetail(rule.Name))
		}
	}
	return d
}

// exited reports whether the plugin's process is gone.
func exited(c *pluginhost.Client) bool {
	select {
	case <-c.Exited():
		return true
	default:
		return false
	}
}

// configure checks the host's registration rules on d, then configures
// the plugin as the host does, with host services and a state dir. What
// passes is that the plugin accepted that Configure within 10 s: a plugin
// dials the host services there (the broker's address is on offer), but
// no host service is called, so whether it can reach them is not known.
func configure(ctx context.Context, c *pluginhost.Client, d pluginapi.Description, r *report) {
	begin := time.Now()
	if errs := RegistrationProblems(d); len(errs) > 0 {
		r.line("FAIL", "registration", time.Since(begin), errorLines(errs)...)
	} else {
		r.line("PASS", "registration", time.Since(begin), "the host would register it")
	}

	begin = time.Now()
	stateDir, err := os.MkdirTemp("", "harness-check-")
	if err == nil {
		defer os.RemoveAll(stateDir)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = c.Configure(cctx, pluginapi.ConfigureRequest{
			HostVersion: r.hostVersion,
			Host:        &plugintest.FakeHost{},
			StateDir:    stateDir,
		})
		cancel()
	}
	if err != nil {
		r.line("FAIL", "configure", time.Since(begin), err.Error())
		return
	}
	r.line("PASS", "configure", time.Since(begin), "accepted a state dir and host services offered over the broker (not called)")
}

// ruleDetail says what a passed plugintest rule showed.
func ruleDetail(name string) string {
	switch name {
	case "schemas":
		return "every parameter schema is a valid JSON Schema object"
	case "unknown_argument":
		return "an unknown argument gives an error result"
	case "unknown_tool":
		return "an unknown tool gives an error result"
	case "cancelled":
		return "cancelled calls return promptly"
	}
	return ""
}

// summary describes a plugin in one line.
func summary(d pluginapi.Description) string {
	tools := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		tools[i] = t.Name
	}
	s := fmt.Sprintf("%s %s, protocol %d.%d, tools: %s", d.Name, d.Version, pluginapi.ProtocolVersion, d.ProtocolMinor, strings.Join(tools, ", "))
	if len(d.Tools) == 0 {
		s = fmt.Sprintf("%s %s, protocol %d.%d, no tools", d.Name, d.Version, pluginapi.ProtocolVersion, d.ProtocolMinor)
	}
	if len(d.EventTypes) > 0 {
		s += "; events: " + strings.Join(d.EventTypes, ", ")
	}
	s += "; capabilities: " + d.Capabilities.String()
	if d.ProtocolMinor > pluginapi.ProtocolMinor {
		s += fmt.Sprintf(" (newer than this harness's 1.%d: what it added is unused)", pluginapi.ProtocolMinor)
	}
	return s
}

// registrationProblems checks what the host's toolbox checks on top of
// plugintest's rules before it registers a plugin: a name without spaces
// or control characters, and event types of the form family/name that are
// not the host's own.
func RegistrationProblems(d pluginapi.Description) []error {
	var errs []error
	if strings.IndexFunc(d.Name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		errs = append(errs, fmt.Errorf("plugin name %q has spaces or control characters", d.Name))
	}
	for _, typ := range d.EventTypes {
		family, name, ok := strings.Cut(typ, "/")
		switch {
		case !ok || family == "" || name == "" || strings.ContainsFunc(typ, unicode.IsSpace):
			errs = append(errs, fmt.Errorf("event type %q is not of the form family/name", typ))
		case event.IsKnown(event.Type(typ)) && event.Type(typ) != event.TypeTodoWrite:
			errs = append(errs, fmt.Errorf("event type %q belongs to the host", typ))
		}
	}
	return errs
}

func errorLines(errs []error) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}

// end prints the run's last line and, after a failure, the plugin's last
// stderr lines; it reports whether every check passed.
func (r *report) end(d pluginapi.Description, stderr []string) bool {
	name := r.name
	if d.Name != "" {
		name = d.Name + " " + d.Version
	}
	switch {
	case r.failed == 0:
		fmt.Fprintf(r.w, "ok: %s passed %d checks in %s\n\n", name, r.passed, ms(time.Since(r.begin)))
		return true
	case r.passed == 0 && r.failed == 1:
		fmt.Fprintf(r.w, "FAILED: %s did not start, so nothing else was checked\n", name)
	default:
		fmt.Fprintf(r.w, "FAILED: %s failed %d of %d checks\n", name, r.failed, r.failed+r.passed)
	}
	if len(stderr) > 0 {
		_, _ = io.WriteString(r.w, "its last stderr lines:\n")
		for _, l := range stderr[max(0, len(stderr)-5):] {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			fmt.Fprintf(r.w, "  %s\n", l)
		}
	}
	_, _ = io.WriteString(r.w, "\n")
	return false
}
