package devbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/hashicorp/go-hclog"
)

// The defaults of Config's bounds.
const (
	DefaultDebounce    = 200 * time.Millisecond
	DefaultMaxDebounce = 2 * time.Second
	DefaultErrorLines  = 20
)

// Config configures BuildAll and Watch. Sources and OutDir are required;
// the zero value of every other field picks the default named in its
// comment.
type Config struct {
	// Sources are the plugin source folders, each a Go main package.
	Sources []string
	// OutDir is the plugin dir the binaries are built into; it is created
	// if missing.
	OutDir string
	// Logger receives a line per build (default: none).
	Logger hclog.Logger
	// Stderr receives the compact report of a failed build (default:
	// none).
	Stderr io.Writer
	// Debounce is how long a source must be quiet before it is rebuilt
	// (default DefaultDebounce); MaxDebounce caps the wait counted from
	// the first change (default DefaultMaxDebounce, and never less than
	// Debounce).
	Debounce    time.Duration
	MaxDebounce time.Duration
	// ErrorLines is how many lines of go build's output a failure report
	// shows (default DefaultErrorLines).
	ErrorLines int
	// Go is the go command (default "go").
	Go string
	// Env is extra environment for go build (NAME=value), after the
	// process's own less the variables whose names look like secrets
	// (see buildEnv; Go's own GO* and CGO_* variables are kept).
	Env []string
	// OnBuild, if set, is called after every build, from the goroutine
	// that ran it.
	OnBuild func(Build)
}

// Build is one build of a plugin.
type Build struct {
	Plugin string // the output's file name, as go build -o DIR/ names it
	Source string // the source folder (cleaned, absolute)
	Output string // OutDir/Plugin
	// Trigger is the file whose change caused the build ("" for BuildAll).
	Trigger string
	At      time.Time // when go build started
	Elapsed time.Duration
	// Err is why the build failed (nil: it succeeded): a *BuildError when
	// go build ran and failed.
	Err error
}

// BuildError is a failed go build.
type BuildError struct {
	Plugin string
	// Output is go build's combined output.
	Output string
	Err    error
}

func (e *BuildError) Error() string {
	first, _, _ := strings.Cut(strings.TrimSpace(trimHeaders(e.Output)), "\n")
	if first == "" {
		return fmt.Sprintf("build plugin %s: %v", e.Plugin, e.Err)
	}
	return fmt.Sprintf("build plugin %s: %s", e.Plugin, first)
}

func (e *BuildError) Unwrap() error { return e.Err }

// source is one plugin source folder.
type source struct {
	dir  string // cleaned, absolute
	name string // the binary's name, as go build -o DIR/ names it
}

func (c Config) withDefaults(ctx context.Context) (Config, []source, error) {
	if len(c.Sources) == 0 {
		return c, nil, errors.New("no plugin source folder")
	}
	if c.OutDir == "" {
		return c, nil, errors.New("no plugin dir to build into")
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Debounce <= 0 {
		c.Debounce = DefaultDebounce
	}
	if c.MaxDebounce < c.Debounce {
		c.MaxDebounce = max(DefaultMaxDebounce, c.Debounce)
	}
	if c.ErrorLines <= 0 {
		c.ErrorLines = DefaultErrorLines
	}
	if c.Go == "" {
		c.Go = "go"
	}
	out, err := filepath.Abs(c.OutDir)
	if err != nil {
		return c, nil, fmt.Errorf("resolve plugin dir: %w", err)
	}
	c.OutDir = out
	var srcs []source
	names := map[string]string{}
	for _, s := range c.Sources {
		dir, err := filepath.Abs(s)
		if err != nil {
			return c, nil, fmt.Errorf("resolve plugin source %s: %w", s, err)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return c, nil, fmt.Errorf("plugin source: %w", err)
		}
		if !fi.IsDir() {
			return c, nil, fmt.Errorf("plugin source %s is not a folder", s)
		}
		if slices.ContainsFunc(srcs, func(x source) bool { return x.dir == dir }) {
			continue
		}
		name, err := binaryName(ctx, c, dir)
		if err != nil {
			return c, nil, err
		}
		if other, ok := names[name]; ok {
			return c, nil, fmt.Errorf("plugin sources %s and %s would both build %s", other, dir, name)
		}
		names[name] = dir
		srcs = append(srcs, source{dir: dir, name: name})
	}
	if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
		return c, nil, fmt.Errorf("create plugin dir: %w", err)
	}
	return c, srcs, nil
}

// binaryName returns the name that `go build -o DIR/` gives the binary of
// the main package in dir: the last element of the package's import path
// (asked of go list, so that it is the module's path at a module root,
// whatever the folder is called), or the element before it when that is
// a major version suffix (example.com/tool/v2 builds tool), as the go
// command's DefaultExecName does. harness dev and a plugin's documented
// go build then never put two files for one plugin in a plugin dir.
func binaryName(ctx context.Context, cfg Config, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, cfg.Go, "list", "-e", "-f", "{{.ImportPath}}", ".")
	cmd.Dir = dir
	cmd.Env = append(buildEnv(os.Environ()), cfg.Env...)
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" {
			why = err.Error()
		}
		first, _, _ := strings.Cut(why, "\n")
		return "", fmt.Errorf("plugin source %s: find its package (go list): %s", dir, first)
	}
	importPath := strings.TrimSpace(string(out))
	if importPath == "" || importPath == "." || strings.ContainsAny(importPath, " \n") {
		return "", fmt.Errorf("plugin source %s: no Go package in it (go list says %q); name the folder of the plugin's main package", dir, importPath)
	}
	return execName(importPath), nil
}

// execName is the go command's name for the binary of the package
// importPath (cmd/go/internal/load.DefaultExecName, in module mode).
func execName(importPath string) string {
	elem := path.Base(importPath)
	if elem != importPath && isVersionElement(elem) {
		elem = path.Base(path.Dir(importPath))
	}
	return elem
}

// isVersionElement reports whether s is a major version suffix: v2, v3,
// … (not v0 or v1), as the go command decides it.
func isVersionElement(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' || s[1] == '1' && len(s) == 2 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// BuildAll builds every source once, one after the other, and returns the
// builds in the order of cfg.Sources. Its error is for a bad Config; a
// failed build is a Build with Err set (and reported like one of Watch).
func BuildAll(ctx context.Context, cfg Config) ([]Build, error) {
	cfg, srcs, err := cfg.withDefaults(ctx)
	if err != nil {
		return nil, fmt.Errorf("build plugins: %w", err)
	}
	out := make([]Build, 0, len(srcs))
	for _, s := range srcs {
		if ctx.Err() != nil {
			break
		}
		out = append(out, build(ctx, cfg, s, ""))
	}
	return out, ctx.Err()
}

// build runs go build for s and puts the binary in place if it succeeded,
// then reports the build.
func build(ctx context.Context, cfg Config, s source, trigger string) Build {
	b := Build{Plugin: s.name, Source: s.dir, Output: filepath.Join(cfg.OutDir, s.name), Trigger: trigger, At: time.Now()}
	// A dotfile: the toolbox ignores it until the rename.
	tmp := filepath.Join(cfg.OutDir, "."+s.name+".build")
	_ = os.Remove(tmp)
	cmd := exec.CommandContext(ctx, cfg.Go, "build", "-o", tmp, ".")
	cmd.Dir = s.dir
	cmd.Env = append(buildEnv(os.Environ()), cfg.Env...)
	cmd.WaitDelay = 2 * time.Second
	var output bytes.Buffer
	cmd.Stdout = &output
	cmd.Stderr = &output
	err := cmd.Run()
	if err == nil {
		if err = atomicfile.Rename(tmp, b.Output); err != nil {
			err = fmt.Errorf("put the binary in place: %w", err)
		}
	} else {
		err = &BuildError{Plugin: s.name, Output: output.String(), Err: err}
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	b.Elapsed = time.Since(b.At)
	b.Err = err
	report(cfg, b)
	return b
}

// report logs a build, writes a failure's compact report and calls
// OnBuild.
func report(cfg Config, b Build) {
	fields := []any{"plugin", b.Plugin, "elapsed", b.Elapsed.Round(time.Millisecond).String()}
	if b.Trigger != "" {
		fields = append(fields, "changed", b.Trigger)
	}
	switch {
	case b.Err == nil:
		cfg.Logger.Info("plugin built", append(fields, "output", b.Output)...)
	case errors.Is(b.Err, context.Canceled):
		cfg.Logger.Debug("plugin build cancelled", fields...)
	default:
		cfg.Logger.Warn("plugin build failed", append(fields, "error", b.Err)...)
		_, _ = io.WriteString(cfg.Stderr, compactReport(b, cfg.ErrorLines))
	}
	if cfg.OnBuild != nil {
		cfg.OnBuild(b)
	}
}

// compactReport is a failed build in a few lines: a header naming the
// plugin, then at most n lines of go build's output (without its "#
// package" lines), indented.
func compactReport(b Build, n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "plugin %s: build failed after %s; the last good version keeps serving\n",
		b.Plugin, b.Elapsed.Round(10*time.Millisecond))
	be, ok := errors.AsType[*BuildError](b.Err)
	if !ok {
		fmt.Fprintf(&sb, "  %v\n", b.Err)
		return sb.String()
	}
	lines := strings.Split(strings.TrimRight(trimHeaders(be.Output), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		fmt.Fprintf(&sb, "  go build: %v\n", be.Err)
		return sb.String()
	}
	for i, l := range lines {
		if i == n {
			fmt.Fprintf(&sb, "  … %d more lines\n", len(lines)-n)
			break
		}
		sb.WriteString("  " + l + "\n")
	}
	return sb.String()
}

// buildEnv is environ without the variables whose names look like secrets
// (API keys, tokens): go build needs none of them, and it runs compilers
// and, with cgo, the user's C toolchain. Go's own variables stay (GOAUTH,
// GOPROXY with a password: the go command itself may need them).
func buildEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		goVar := strings.HasPrefix(name, "GO") || strings.HasPrefix(name, "CGO_")
		if secretName(name) && !goVar {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretName reports whether a variable's name looks like it holds a
// credential (the words of pluginhost.SecretName; the architecture keeps
// this package from importing pluginapi).
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSW", "PASSPHRASE", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "_PAT", "DSN", "PRIVATE"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// trimHeaders drops go build's "# import/path" lines.
func trimHeaders(out string) string {
	lines := strings.Split(out, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "# ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// Watch rebuilds a plugin whenever its source folder changes, until ctx
// ends; then it stops the build in progress and returns nil. It fails at
// once if the config is bad or a source folder cannot be watched. It does
// not build at the start: see BuildAll.
func Watch(ctx context.Context, cfg Config) error {
	cfg, srcs, err := cfg.withDefaults(ctx)
	if err != nil {
		return fmt.Errorf("watch plugin sources: %w", err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch plugin sources: %w", err)
	}
	defer fsw.Close()
	w := &watcher{
		cfg:      cfg,
		fsw:      fsw,
		srcs:     srcs,
		done:     ctx.Done(),
		bursts:   make([]burst, len(srcs)),
		fires:    make(chan int),
		queue:    make(chan int, len(srcs)),
		queued:   make([]bool, len(srcs)),
		triggers: make([]string, len(srcs)),
	}
	for _, s := range srcs {
		if err := w.addTree(s.dir); err != nil {
			return fmt.Errorf("watch plugin source %s: %w", s.dir, err)
		}
	}
	cfg.Logger.Info("watching plugin sources", "sources", len(srcs), "out", cfg.OutDir)

	var builder sync.WaitGroup
	builder.Go(func() { w.build(ctx) })
	defer builder.Wait()
	defer close(w.queue)
	for {
		select {
		case <-ctx.Done():
			for i := range w.bursts {
				if t := w.bursts[i].timer; t != nil {
					t.Stop()
				}
			}
			return nil
		case ev, ok := <-fsw.Events:
			if !ok {
				return nil
			}
			w.event(ev)
		case err, ok := <-fsw.Errors:
			if !ok {
				return nil
			}
			cfg.Logger.Warn("plugin source watch error", "error", err)
		case i := <-w.fires:
			w.fire(i)
		}
	}
}

// watcher is Watch's state. Its fields are used by Watch's goroutine only,
// except queue and queued (under mu), shared with the builder.
type watcher struct {
	cfg    Config
	fsw    *fsnotify.Watcher
	srcs   []source
	done   <-chan struct{} // Watch's ctx ended
	bursts []burst         // by source
	fires  chan int        // a source's debounce timer fired
	queue  chan int        // sources to build, each at most once

	mu sync.Mutex
	// mu guards the fields below.
	queued   []bool   // by source: in queue
	triggers []string // by source: the last file changed, for the log
}

// burst is the debounce state of one source.
type burst struct {
	first, last time.Time // zero first: no change pending
	trigger     string    // the last file changed
	timer       *time.Timer
}

// addTree watches dir and its subfolders (except skipped ones).
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		return w.fsw.Add(path)
	})
}

// event handles one file system event.
func (w *watcher) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	path := filepath.Clean(ev.Name)
	i := w.sourceOf(path)
	if i < 0 {
		return
	}
	name := filepath.Base(path)
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
			if skipDir(name) {
				return
			}
			// Files may have landed in it before the watch: the new folder
			// counts as a change.
			if err := w.addTree(path); err != nil {
				w.cfg.Logger.Warn("cannot watch new plugin source folder", "dir", path, "error", err)
			}
			w.note(i, path)
			return
		}
	}
	if skipFile(name, w.srcs[i].name) || w.skippedDirBelow(i, path) {
		return
	}
	w.note(i, path)
}

// sourceOf returns the index of the source that path is in (the deepest),
// or -1.
func (w *watcher) sourceOf(path string) int {
	best := -1
	for i, s := range w.srcs {
		if path == s.dir || strings.HasPrefix(path, s.dir+string(filepath.Separator)) {
			if best < 0 || len(s.dir) > len(w.srcs[best].dir) {
				best = i
			}
		}
	}
	return best
}

// skippedDirBelow reports whether path lies in a skipped folder under
// source i (its events come from a watch of the parent).
func (w *watcher) skippedDirBelow(i int, path string) bool {
	rel, err := filepath.Rel(w.srcs[i].dir, filepath.Dir(path))
	if err != nil || rel == "." {
		return false
	}
	return slices.ContainsFunc(strings.Split(rel, string(filepath.Separator)), skipDir)
}

// note records a change of source i and (re)arms its debounce.
func (w *watcher) note(i int, path string) {
	now := time.Now()
	b := &w.bursts[i]
	if b.first.IsZero() {
		b.first = now
	}
	b.last = now
	b.trigger = path
	wait := w.due(b).Sub(now)
	if b.timer == nil {
		b.timer = time.AfterFunc(wait, func() {
			select {
			case w.fires <- i:
			case <-w.done:
			}
		})
	} else {
		b.timer.Reset(wait)
	}
}

func (w *watcher) due(b *burst) time.Time {
	d := b.last.Add(w.cfg.Debounce)
	if capped := b.first.Add(w.cfg.MaxDebounce); capped.Before(d) {
		return capped
	}
	return d
}

// fire queues a build of source i if its debounce is due.
func (w *watcher) fire(i int) {
	b := &w.bursts[i]
	if b.first.IsZero() {
		return
	}
	if now := time.Now(); now.Before(w.due(b)) {
		return // re-armed by a later change
	}
	trigger := b.trigger
	b.first, b.last, b.trigger = time.Time{}, time.Time{}, ""
	w.mu.Lock()
	defer w.mu.Unlock()
	w.triggers[i] = trigger
	if !w.queued[i] {
		w.queued[i] = true
		w.queue <- i // never blocks: each source is queued at most once
	}
	w.cfg.Logger.Debug("plugin source changed", "plugin", w.srcs[i].name, "changed", trigger)
}

// build runs the queued builds one at a time until the queue closes.
func (w *watcher) build(ctx context.Context) {
	for i := range w.queue {
		w.mu.Lock()
		w.queued[i] = false
		trigger := w.triggers[i]
		w.mu.Unlock()
		if ctx.Err() != nil {
			continue
		}
		build(ctx, w.cfg, w.srcs[i], trigger)
	}
}

// skipDir reports whether a source subfolder is not watched: hidden ones,
// "_" ones and testdata, which go build ignores too.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata"
}

// skipFile reports whether a change of the file name in the source of the
// plugin plugin does not call for a build.
func skipFile(name, plugin string) bool {
	if strings.HasPrefix(name, ".") || name == "4913" || name == plugin || name == plugin+".exe" ||
		strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#") {
		return true
	}
	for _, suffix := range []string{"~", ".swp", ".swx", ".tmp", "-go-tmp-umask", "_test.go"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}
