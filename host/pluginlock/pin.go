package pluginlock

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
)

// PinDir writes the lock of one plugin dir (Development when dev) and
// reports to w what changed, as `harness plugins pin` prints it. A
// missing dir is reported and skipped (ok false).
func PinDir(dir string, dev bool, w io.Writer) (ok bool, err error) {
	pins, err := Scan(dir)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(w, "%s: no such plugin dir; skipped\n", dir)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pin %s: %w", dir, err)
	}
	path, err := Path(dir)
	if err != nil {
		return false, err
	}
	old, err := Read(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(w, "%s: replacing an unreadable lock (%v)\n", path, err)
	}
	// Trust records stay: the user gave them, one binary at a time.
	if err := Write(dir, Lock{Development: dev, Plugins: pins, Trusted: old.Trusted}); err != nil {
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
func printPinChanges(w io.Writer, old, pins map[string]Pin) {
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
