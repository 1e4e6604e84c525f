package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/plugincache"
	"github.com/harness-dev/harness/host/pluginlock"
	"github.com/harness-dev/harness/pluginapi"
)

// The stages of a reload, in order. Each Stage of a Reload is named for the
// work it timed.
const (
	StageDebounce  = "debounce"  // from the first file event until the file was quiet
	StageCopy      = "copy"      // the file checked (regular, executable, not being written) and copied into the cache dir
	StageHash      = "hash"      // the copy hashed and put in place as cache/<sha256> (or dropped for one already there)
	StageStart     = "start"     // the new process launched, plugin handshake done
	StageDescribe  = "describe"  // Describe answered and the description checked
	StageConfigure = "configure" // Configure done
	StageSwap      = "swap"      // the new registry snapshot stored: new calls go to the new process
	StageDrain     = "drain"     // the calls in flight on the old process finished
	StageStop      = "stop"      // the old process stopped
)

// Change says what a reload does to a plugin file's registration.
type Change string

// Reload changes.
const (
	ChangeReplaced Change = "replaced" // new bytes for a registered plugin
	ChangeAdded    Change = "added"    // a file that served no plugin now does
	ChangeRemoved  Change = "removed"  // the file is gone: its tools are withdrawn
)

// Stage is one timed stage of a reload. A failed reload's last Stage is
// the one that failed (Reload.Stage), timed until it failed.
type Stage struct {
	Name    string        `json:"name"`
	Elapsed time.Duration `json:"elapsed_ns"` // since the previous stage ended (the first: since Reload.At)
}

// Reload is one reload attempt of a plugin file: what changed, how long
// each stage took, and why it failed if it did. A failed attempt changed
// nothing: the previous version, if any, serves on.
type Reload struct {
	Path string `json:"path"`
	// Plugin is the plugin's name: the new version's, or the old one's for
	// a removal or a failure ("" if neither is known).
	Plugin string `json:"plugin,omitempty"`
	Change Change `json:"change"`
	// At is when the first file event of the change was seen.
	At     time.Time `json:"at"`
	Stages []Stage   `json:"stages"`
	// Total is the time from At to the end of the last stage.
	Total time.Duration `json:"total_ns"`
	// Serving is the time from At to the swap, after which new calls went
	// to the new version (or found the tools withdrawn); 0 if nothing was
	// swapped.
	Serving time.Duration `json:"serving_ns,omitempty"`
	// FromSHA and ToSHA are the sha256 of the old and new bytes ("" for
	// none).
	FromSHA     string `json:"from_sha256,omitempty"`
	ToSHA       string `json:"to_sha256,omitempty"`
	FromVersion string `json:"from_version,omitempty"`
	ToVersion   string `json:"to_version,omitempty"`
	// Interrupted is the number of calls on the old process cancelled
	// because they outlived Config.DrainTimeout.
	Interrupted int `json:"interrupted,omitempty"`
	// Stage names the stage that failed, and Err says why; both "" on
	// success.
	Stage string `json:"stage,omitempty"`
	Err   string `json:"error,omitempty"`
}

// Elapsed returns the time stage took, or 0 if the reload did not reach it.
func (r Reload) Elapsed(stage string) time.Duration {
	for _, s := range r.Stages {
		if s.Name == stage {
			return s.Elapsed
		}
	}
	return 0
}

// attempt is a reload in progress: the record it builds and its clock.
type attempt struct {
	Reload
	last time.Time // when the last stage ended
}

func newAttempt(path string, at time.Time) *attempt {
	return &attempt{Reload: Reload{Path: path, At: at}, last: at}
}

// mark ends stage now.
func (a *attempt) mark(stage string) { a.markAt(stage, time.Now()) }

func (a *attempt) markAt(stage string, t time.Time) {
	a.Stages = append(a.Stages, Stage{Name: stage, Elapsed: t.Sub(a.last)})
	a.last = t
	a.Total = t.Sub(a.At)
}

// reloadFile brings the registration of the plugin file path in line with
// the file as it is now: it adds, replaces or withdraws the plugin, or does
// nothing when the bytes are those serving. at is when the first event of
// the burst was seen, last the last one, fired when the debounce fired.
// It reports retry when the file is still being written (it changed after
// the last event, or while it was read), for the watcher to wait for quiet
// again. Reloads of one path never run concurrently.
func (tb *Toolbox) reloadFile(ctx context.Context, path string, at, last, fired time.Time) (retry bool) {
	a := newAttempt(path, at)
	a.markAt(StageDebounce, fired)
	old, hasOld := tb.reg.Load().member(path)
	if hasOld && old.plug.attached {
		return false // a reattached plugin has no file
	}
	a.Change = ChangeAdded
	if hasOld {
		a.Change = ChangeReplaced
		a.Plugin, a.FromSHA, a.FromVersion = old.plug.desc.Name, old.plug.sum, old.plug.desc.Version
	}
	if tb.closed.Load() {
		return false
	}

	fi, err := os.Stat(path) // follows a symlink, as discovery does
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && !isCandidate(fi):
		if tb.reappears(ctx, path) {
			// Deleted and written again (go build -o across file
			// systems), or mode bits set after the write: a replacement
			// once the writes settle, never a withdrawal.
			return true
		}
		tb.removeFile(ctx, a)
		return false
	case err != nil:
		tb.failed(a, StageCopy, err)
		return false
	}
	if bad := unsafeFile("plugin file", path, fi); bad != nil {
		tb.failed(a, StageCopy, bad)
		return false
	}
	if dfi, err := os.Stat(filepath.Dir(path)); err == nil {
		if bad := unsafeFile("plugin dir", filepath.Dir(path), dfi); bad != nil {
			tb.failed(a, StageCopy, bad)
			return false
		}
	}
	if mt := fi.ModTime(); mt.After(last) && !mt.After(time.Now()) {
		tb.log.Debug("plugin file still being written", "path", path)
		return true
	}
	if fi.Size() == 0 {
		tb.failed(a, StageCopy, errors.New("the file is empty"))
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		tb.failed(a, StageCopy, err)
		return false
	}
	st, err := tb.cache.Stage(f)
	f.Close()
	switch {
	case errors.Is(err, plugincache.ErrChanging):
		tb.log.Debug("plugin file still being written", "path", path)
		return true
	case err != nil:
		tb.failed(a, StageCopy, fmt.Errorf("copy to the plugin cache: %w", err))
		return false
	}
	if err := checkComplete(st.Path()); err != nil {
		if time.Since(fi.ModTime()) < tb.cfg.MaxDebounce {
			// Written in place and not done yet (a pause longer than
			// the debounce): wait for the rest.
			st.Drop()
			tb.log.Debug("plugin file still being written", "path", path, "why", err)
			return true
		}
		st.Drop()
		tb.failed(a, StageCopy, err)
		return false
	}
	a.mark(StageCopy)
	if err := st.Hash(); err != nil {
		tb.failed(a, StageHash, err)
		return false
	}
	if hasOld && st.Sum() == old.plug.sum {
		st.Drop()
		tb.log.Debug("plugin file unchanged", "path", path, "sha256", st.Sum())
		return false
	}
	if err := pluginlock.Verify(filepath.Dir(path), filepath.Base(path), st.Sum()); err != nil {
		st.Drop()
		tb.failed(a, StageHash, err)
		return false
	}
	sum := st.Sum()
	a.ToSHA = sum
	exe, err := st.Place()
	if err != nil {
		tb.failed(a, StageHash, fmt.Errorf("put the copy in the plugin cache: %w", err))
		return false
	}
	a.mark(StageHash)

	inst, desc, err := tb.start(ctx, path, exe, sum, &startHooks{
		mark: a.mark,
		// Checked again at the swap; this spares starting a clash.
		check: func(d pluginapi.Description) error {
			if err := tb.reattachedName(d.Name); err != nil {
				return err
			}
			return tb.reg.Load().conflict(path, d)
		},
	})
	if desc.Name != "" {
		a.Plugin, a.ToVersion = desc.Name, desc.Version
	}
	if errors.Is(err, errReattachedName) && !hasOld {
		// As at Open: the plugin under the debugger wins over its file,
		// which is neither a plugin nor a failure.
		tb.skipReattached(path, desc.Name)
		tb.swapMu.Lock()
		if cur := tb.reg.Load(); !tb.closed.Load() {
			if _, ok := cur.failure(path); ok {
				tb.reg.Store(cur.withFile(path, nil, nil, tb.pathOrder))
			}
		}
		tb.swapMu.Unlock()
		return false
	}
	if err != nil {
		stage := StageStart
		if fe, ok := errors.AsType[*failedStage](err); ok {
			stage = fe.stage
		}
		tb.failed(a, stage, err)
		return false
	}
	tb.storeDescription(sum, desc)
	p := tb.newPlugin(path, sum, exe, desc, inst)

	tb.swapMu.Lock()
	cur := tb.reg.Load()
	err = cur.conflict(path, desc)
	if tb.closed.Load() {
		err = errClosed
	}
	if err != nil {
		tb.swapMu.Unlock()
		p.close()
		tb.failed(a, StageSwap, err)
		return false
	}
	prev, hadPrev := cur.member(path)
	tb.reg.Store(cur.withFile(path, &member{plug: p, inst: inst}, nil, tb.pathOrder))
	if hadPrev {
		tb.mu.Lock()
		tb.retiring = append(tb.retiring, prev.plug)
		tb.mu.Unlock()
	}
	tb.swapMu.Unlock()
	a.mark(StageSwap)
	a.Serving = a.Total
	if hadPrev {
		tb.retire(ctx, a, prev.plug)
	}
	tb.finish(a)
	return false
}

// reappears reports whether the file path, gone or not executable when its
// debounce fired, is back as an executable file within
// Config.MaxDebounce: a file is withdrawn only when it stays gone.
func (tb *Toolbox) reappears(ctx context.Context, path string) bool {
	deadline := time.Now().Add(tb.cfg.MaxDebounce)
	for time.Now().Before(deadline) {
		if fi, err := os.Stat(path); err == nil && isCandidate(fi) {
			return true
		}
		if sleep(ctx, 20*time.Millisecond) != nil {
			return false
		}
	}
	return false
}

// isCandidate reports whether discovery would try the file: a regular file
// with an exec bit.
func isCandidate(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// removeFile withdraws the plugin of a file that is gone (or is no longer
// an executable file), and forgets a failure recorded for it.
func (tb *Toolbox) removeFile(ctx context.Context, a *attempt) {
	a.Change = ChangeRemoved
	a.ToSHA, a.ToVersion = "", ""
	tb.swapMu.Lock()
	cur := tb.reg.Load()
	prev, hadPrev := cur.member(a.Path)
	_, hadFailure := cur.failure(a.Path)
	if (hadPrev || hadFailure) && !tb.closed.Load() {
		tb.reg.Store(cur.withFile(a.Path, nil, nil, tb.pathOrder))
	} else {
		hadPrev = false
	}
	if hadPrev {
		tb.mu.Lock()
		tb.retiring = append(tb.retiring, prev.plug)
		tb.mu.Unlock()
	}
	tb.swapMu.Unlock()
	if !hadPrev {
		tb.mu.Lock()
		_, had := tb.reloads[a.Path]
		delete(tb.reloads, a.Path)
		tb.mu.Unlock()
		if had {
			if err := tb.saveReload(a.Reload, true); err != nil {
				tb.log.Warn("could not record the reload", "file", tb.cfg.ReloadsFile, "error", err)
			}
		}
		if hadFailure {
			tb.log.Debug("plugin file that had failed is gone", "path", a.Path)
		}
		return
	}
	a.mark(StageSwap)
	a.Serving = a.Total
	tb.retire(ctx, a, prev.plug)
	tb.finish(a)
}

// retire drains the replaced or removed plugin old and stops it: calls in
// flight on it finish normally, or are cancelled after the drain timeout
// (or when ctx ends: the toolbox is closing).
func (tb *Toolbox) retire(ctx context.Context, a *attempt, old *plugin) {
	if inst := old.retire(); inst != nil {
		a.Interrupted = inst.calls.drain(ctx, tb.cfg.DrainTimeout, tb.cfg.StopTimeout)
	}
	a.mark(StageDrain)
	if err := old.close(); err != nil {
		old.log.Warn("could not stop the replaced plugin process", "error", err)
	}
	a.mark(StageStop)
	tb.mu.Lock()
	tb.retiring = slices.DeleteFunc(tb.retiring, func(p *plugin) bool { return p == old })
	tb.mu.Unlock()
}

// failed ends an attempt that failed in stage: the previous version, if
// any, serves on; a file that served no plugin is recorded as a Failure.
func (tb *Toolbox) failed(a *attempt, stage string, err error) {
	if tb.closed.Load() {
		return // cut short by Close: not the file's fault
	}
	a.mark(stage) // the time it took to fail
	a.Stage, a.Err = stage, err.Error()
	if a.Change == ChangeAdded {
		tb.swapMu.Lock()
		cur := tb.reg.Load()
		if _, ok := cur.member(a.Path); !ok && !tb.closed.Load() {
			tb.reg.Store(cur.withFile(a.Path, nil, &Failure{Path: a.Path, Err: err}, tb.pathOrder))
		}
		tb.swapMu.Unlock()
	}
	tb.finish(a)
}

// finish records an attempt for Plugins, logs it and reports it to
// Config.OnReload.
func (tb *Toolbox) finish(a *attempt) {
	r := a.Reload
	removed := r.Change == ChangeRemoved && r.Err == ""
	tb.mu.Lock()
	if removed {
		delete(tb.reloads, r.Path)
	} else {
		tb.reloads[r.Path] = r
	}
	tb.mu.Unlock()
	if err := tb.saveReload(r, removed); err != nil {
		tb.log.Warn("could not record the reload", "file", tb.cfg.ReloadsFile, "error", err)
	}

	fields := []any{"path", r.Path, "plugin", r.Plugin, "change", string(r.Change)}
	if r.FromSHA != "" {
		fields = append(fields, "from", r.FromSHA, "from_version", r.FromVersion)
	}
	if r.ToSHA != "" {
		fields = append(fields, "to", r.ToSHA)
	}
	if r.ToVersion != "" {
		fields = append(fields, "to_version", r.ToVersion)
	}
	for _, s := range r.Stages {
		fields = append(fields, s.Name+"_ms", millis(s.Elapsed))
	}
	fields = append(fields, "total_ms", millis(r.Total))
	if r.Err != "" {
		fields = append(fields, "stage", r.Stage, "error", r.Err)
		tb.log.Warn("plugin reload failed", fields...)
	} else {
		fields = append(fields, "serving_ms", millis(r.Serving))
		if r.Interrupted > 0 {
			fields = append(fields, "interrupted", r.Interrupted)
		}
		tb.log.Info("plugin reloaded", fields...)
	}
	if r.Err == "" {
		tb.pruneCache()
	}
	if tb.cfg.OnReload != nil {
		r.Stages = slices.Clone(r.Stages)
		tb.cfg.OnReload(r)
	}
}

// millis returns d in milliseconds, to the microsecond: a log field that
// reads the same in text and JSON.
func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// conflict refuses a description whose plugin name or one of whose tool
// names a plugin of another file in r already uses.
func (r *registry) conflict(path string, d pluginapi.Description) error {
	mine := make(map[string]bool, len(d.Tools))
	for _, t := range d.Tools {
		mine[t.Name] = true
	}
	for _, m := range r.members {
		q := m.plug
		if q.path == path {
			continue
		}
		if q.desc.Name == d.Name {
			return fmt.Errorf("plugin name %q is already used by %s; refused", d.Name, q.path)
		}
		for _, t := range q.desc.Tools {
			if mine[t.Name] {
				return fmt.Errorf("tool %q is already offered by %s (plugin %s); refused plugin %s",
					t.Name, q.path, q.desc.Name, d.Name)
			}
		}
	}
	return nil
}

// loadReloads reads a reloads file; a missing or damaged one is empty.
func loadReloads(path string) map[string]Reload {
	m := map[string]Reload{}
	if path == "" {
		return m
	}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// saveReload records r in cfg.ReloadsFile, or forgets its file when it was
// removed. It merges with what the file holds (another host may share it)
// and replaces it by a rename.
func (tb *Toolbox) saveReload(r Reload, removed bool) error {
	path := tb.cfg.ReloadsFile
	if path == "" {
		return nil
	}
	tb.fileMu.Lock()
	defer tb.fileMu.Unlock()
	m := loadReloads(path)
	if removed {
		delete(m, r.Path)
	} else {
		m[r.Path] = r
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}
