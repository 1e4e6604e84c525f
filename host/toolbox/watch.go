package toolbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/pluginlock"
)

// watcher watches the plugin dirs (the dirs, not the files: compilers and
// editors replace files by rename) and reloads a file once its events have
// been quiet for Config.Debounce, at most Config.MaxDebounce after the
// first. Reloads of one file are serialised; events during one coalesce
// into one more pass after it.
type watcher struct {
	tb     *Toolbox
	log    hclog.Logger
	fsw    *fsnotify.Watcher
	ctx    context.Context // cancelled by stop; the reloads run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup // the event loop and the reloads

	mu sync.Mutex
	// mu guards the fields below.
	watched map[string]bool // plugin dirs being watched
	awaited map[string]bool // missing plugin dirs whose parent is watched for their creation
	files   map[string]*burst
	stopped bool
}

// burst is the debounce state of one file.
type burst struct {
	at      time.Time // reported as Reload.At: the first event, kept across retries
	first   time.Time // first event not yet taken by a reload (zero: none)
	last    time.Time // last such event
	timer   *time.Timer
	running bool // a reload of the file is running
}

// newWatcher watches the plugin dirs. A missing dir is awaited: its parent
// is watched for its creation (a missing parent too: that dir is not
// watched, and a warning says so).
func newWatcher(tb *Toolbox) (*watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{
		tb:      tb,
		log:     tb.log,
		fsw:     fsw,
		ctx:     ctx,
		cancel:  cancel,
		watched: map[string]bool{},
		awaited: map[string]bool{},
		files:   map[string]*burst{},
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for dir := range tb.dirRank {
		w.addDirLocked(dir)
	}
	return w, nil
}

// addDirLocked watches dir, or awaits it if it does not exist.
func (w *watcher) addDirLocked(dir string) bool {
	err := w.fsw.Add(dir)
	if err == nil {
		w.watched[dir] = true
		delete(w.awaited, dir)
		return true
	}
	if !errors.Is(err, os.ErrNotExist) {
		w.log.Warn("cannot watch plugin dir; its changes are not reloaded", "dir", dir, "error", err)
		return false
	}
	if perr := w.fsw.Add(filepath.Dir(dir)); perr != nil {
		w.log.Warn("cannot watch plugin dir, nor its parent for its creation", "dir", dir, "error", perr)
		return false
	}
	w.awaited[dir] = true
	w.log.Debug("plugin dir does not exist; watching for its creation", "dir", dir)
	return false
}

// start runs the event loop.
func (w *watcher) start() {
	w.wg.Go(w.loop)
}

// stop ends the event loop and the pending debounces, cancels the reloads
// in progress and waits for them.
func (w *watcher) stop() {
	w.mu.Lock()
	w.stopped = true
	for _, b := range w.files {
		if b.timer != nil {
			b.timer.Stop()
		}
	}
	w.mu.Unlock()
	w.cancel()
	if err := w.fsw.Close(); err != nil {
		w.log.Debug("closing the plugin dir watcher", "error", err)
	}
	w.wg.Wait()
}

func (w *watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.log.Warn("plugin dir watch error", "error", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: look at everything again.
				w.rescan()
			}
		}
	}
}

// event handles one file system event.
func (w *watcher) event(ev fsnotify.Event) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	path := filepath.Clean(ev.Name)
	if w.awaited[path] && ev.Has(fsnotify.Create) {
		if w.addDirLocked(path) {
			w.log.Info("plugin dir created; watching it", "dir", path)
			w.scanLocked(path, now) // files that came before the watch
		}
		return
	}
	if w.watched[path] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		// The dir itself went: its plugins go too, and it is awaited.
		delete(w.watched, path)
		w.scanLocked(path, now)
		w.addDirLocked(path)
		return
	}
	if !w.watched[filepath.Dir(path)] || pluginlock.Skip(filepath.Base(path)) {
		return
	}
	w.noteLocked(path, now, time.Time{})
}

// scanLocked notes every file of dir and every file of dir the registry
// knows, so that each is reloaded (an unchanged one is left as it is).
func (w *watcher) scanLocked(dir string, now time.Time) {
	paths := map[string]bool{}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !pluginlock.Skip(e.Name()) {
				paths[filepath.Join(dir, e.Name())] = true
			}
		}
	}
	reg := w.tb.reg.Load()
	if reg != nil {
		// Reattached plugins have no file: nothing to reload.
		for _, m := range reg.members {
			if !m.plug.attached {
				paths[m.plug.path] = true
			}
		}
		for _, f := range reg.failures {
			if !isReattachPath(f.Path) {
				paths[f.Path] = true
			}
		}
	}
	for p := range paths {
		if filepath.Dir(p) == dir {
			w.noteLocked(p, now, time.Time{})
		}
	}
}

// rescan notes every file of every plugin dir.
func (w *watcher) rescan() {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for dir := range w.watched {
		w.scanLocked(dir, now)
	}
}

// noteLocked records an event for path at now and (re)arms its debounce.
// at, if set, is the Reload.At to report (a retry keeps the first event's).
func (w *watcher) noteLocked(path string, now, at time.Time) {
	if w.stopped {
		return
	}
	b := w.files[path]
	if b == nil {
		b = &burst{}
		w.files[path] = b
	}
	if b.first.IsZero() {
		b.first = now
		b.at = now
		if !at.IsZero() {
			b.at = at
		}
	}
	b.last = now
	wait := w.due(b).Sub(now)
	if b.timer == nil {
		b.timer = time.AfterFunc(wait, func() { w.fire(path) })
	} else {
		b.timer.Reset(wait)
	}
}

// due is when b's debounce fires: Debounce after its last event, at most
// MaxDebounce after its first.
func (w *watcher) due(b *burst) time.Time {
	cfg := w.tb.cfg
	d := b.last.Add(cfg.Debounce)
	if capped := b.first.Add(cfg.MaxDebounce); capped.Before(d) {
		return capped
	}
	return d
}

// fire starts a reload of path when its debounce is due and none runs;
// a reload running now picks the burst up when it ends.
func (w *watcher) fire(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.files[path]
	if b == nil || w.stopped || b.first.IsZero() || b.running {
		return
	}
	now := time.Now()
	if now.Before(w.due(b)) {
		return // re-armed by a later event
	}
	w.runLocked(path, b, now)
}

// runLocked takes b's burst and reloads path with it.
func (w *watcher) runLocked(path string, b *burst, fired time.Time) {
	at, last := b.at, b.last
	b.first, b.last, b.at = time.Time{}, time.Time{}, time.Time{}
	b.running = true
	w.wg.Go(func() {
		retry := w.tb.reloadFile(w.ctx, path, at, last, fired)
		w.done(path, b, retry, at)
	})
}

// done ends a reload of path: a retry waits for quiet again; a burst that
// came meanwhile and is due runs now (one more pass for all its events).
func (w *watcher) done(path string, b *burst, retry bool, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b.running = false
	if w.stopped {
		return
	}
	now := time.Now()
	if retry {
		w.noteLocked(path, now, at)
		return
	}
	if !b.first.IsZero() {
		if !now.Before(w.due(b)) {
			w.runLocked(path, b, now)
		}
		return // its timer fires when it is due
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	delete(w.files, path)
}
