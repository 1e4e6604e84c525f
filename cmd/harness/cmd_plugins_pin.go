package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"

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
	if code, done := parseFlags(fs, args); done {
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
		ok, err := pinDir(dir, *dev, std.out)
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

// pinDir writes the lock of one plugin dir and reports what changed. A
// missing dir is reported and skipped (ok false).
func pinDir(dir string, dev bool, w io.Writer) (ok bool, err error) {
	pins, err := pluginlock.Scan(dir)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(w, "%s: no such plugin dir; skipped\n", dir)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pin %s: %w", dir, err)
	}
	path, err := pluginlock.Path(dir)
	if err != nil {
		return false, err
	}
	old, err := pluginlock.Read(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(w, "%s: replacing an unreadable lock (%v)\n", path, err)
	}
	if err := pluginlock.Write(dir, pluginlock.Lock{Development: dev, Plugins: pins}); err != nil {
		return false, fmt.Errorf("pin %s: %w", dir, err)
	}
	if dev {
		fmt.Fprintf(w, "%s: %s is marked for development: its plugins may change and are hot-reloaded, unchecked; %d recorded\n",
			path, dir, len(pins))
	} else {
		fmt.Fprintf(w, "%s: pinned %d plugins of %s\n", path, len(pins), dir)
	}
	printPinChanges(w, old.Plugins, pins)
	return true, nil
}

// printPinChanges lists each plugin with its sum and what changed since
// the previous lock.
func printPinChanges(w io.Writer, old, pins map[string]pluginlock.Pin) {
	names := make([]string, 0, len(pins)+len(old))
	for name := range pins {
		names = append(names, name)
	}
	for name := range old {
		if _, ok := pins[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	width := 0
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		p, now := pins[name]
		o, before := old[name]
		var what string
		switch {
		case !now:
			fmt.Fprintf(w, "  %-*s  %-13s  removed\n", width, name, "")
			continue
		case !before:
			what = "new"
		case o.SHA256 == p.SHA256:
			what = "unchanged"
		default:
			what = "changed (was " + o.SHA256[:12] + "…)"
		}
		fmt.Fprintf(w, "  %-*s  %s…  %s\n", width, name, p.SHA256[:12], what)
	}
}
