package plugincache

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/pluginlock"
)

// cacheBook guards the content-addressed cache: it records, for each entry
// cache/<sha256>, the identity the entry had when its bytes were last
// hashed (device, inode, size, modification and change times) and when it
// was last started. An entry is started only while its identity is the
// recorded one; one whose identity moved (written in place, replaced,
// chmod'ed) is hashed again, and removed when its bytes no longer match
// its name, so a tampered copy never runs under the original sha256. The
// stat costs microseconds; the hash (~15 ms for 19 MB) is paid once per
// new identity. The book is the JSON file book.json in the cache dir,
// merged and rewritten by rename; a lost update costs one hash, never an
// unchecked start.
type cacheBook struct {
	dir  string
	path string

	mu      sync.Mutex
	entries map[string]bookEntry // sha256 → record
	dirty   bool
}

type bookEntry struct {
	Key  fileKey `json:"key"`
	Used int64   `json:"used"` // unix seconds of the last start
}

func loadCacheBook(dir string) *cacheBook {
	b := &cacheBook{dir: dir, path: filepath.Join(dir, "book.json"), entries: map[string]bookEntry{}}
	if data, err := os.ReadFile(b.path); err == nil {
		_ = json.Unmarshal(data, &b.entries)
	}
	return b
}

// errTampered says a cache entry's bytes no longer match its name.
var errTampered = errors.New("the cached copy does not match its sha256")

// check verifies the entry dir/<sum> before it runs and notes its use: its
// identity is the recorded one, or its bytes hash to sum (and the new
// identity is recorded). An entry that fails is removed, so that the
// caller may copy the plugin file again; the error says what happened.
func (b *cacheBook) check(sum string) (string, error) {
	exe := filepath.Join(b.dir, sum)
	fi, err := os.Lstat(exe)
	if err != nil {
		return "", fmt.Errorf("cached copy of %s: %w", short(sum), err)
	}
	if !fi.Mode().IsRegular() {
		os.Remove(exe)
		return "", fmt.Errorf("cached copy %s is not a regular file; removed", exe)
	}
	key, keyed := keyOf(fi)
	now := time.Now().Unix()
	b.mu.Lock()
	e, ok := b.entries[sum]
	b.mu.Unlock()
	if !keyed || !ok || e.Key != key {
		got, err := pluginlock.HashFile(exe)
		if err != nil {
			return "", fmt.Errorf("hash cached copy %s: %w", exe, err)
		}
		if got != sum {
			os.Remove(exe)
			b.forget(sum)
			return "", fmt.Errorf("%w: %s hashes to %s; removed", errTampered, exe, short(got))
		}
	}
	b.mu.Lock()
	b.entries[sum] = bookEntry{Key: key, Used: now}
	b.dirty = true
	b.mu.Unlock()
	return exe, nil
}

// valid reports whether dir/<sum> is there and passes check (a failing
// entry is removed, for the caller to write again).
func (b *cacheBook) valid(sum string) bool {
	if b == nil {
		return true
	}
	_, err := b.check(sum)
	return err == nil
}

// note records the identity of dir/<sum>, just written from bytes hashed
// to sum.
func (b *cacheBook) note(sum string) {
	if b == nil {
		return
	}
	fi, err := os.Lstat(filepath.Join(b.dir, sum))
	if err != nil {
		return
	}
	if key, ok := keyOf(fi); ok {
		b.mu.Lock()
		b.entries[sum] = bookEntry{Key: key, Used: time.Now().Unix()}
		b.dirty = true
		b.mu.Unlock()
	}
}

func (b *cacheBook) forget(sum string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.entries[sum]; ok {
		delete(b.entries, sum)
		b.dirty = true
	}
}

// save merges the book into its file (another host may share the cache).
func (b *cacheBook) save() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.dirty {
		return nil
	}
	merged := map[string]bookEntry{}
	if data, err := os.ReadFile(b.path); err == nil {
		_ = json.Unmarshal(data, &merged)
	}
	for s, e := range b.entries {
		if m, ok := merged[s]; !ok || m.Key != e.Key || m.Used < e.Used {
			merged[s] = e
		}
	}
	for s := range merged {
		if _, err := os.Lstat(filepath.Join(b.dir, s)); err != nil {
			delete(merged, s) // pruned or removed
		}
	}
	data, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(b.path, data, 0o600); err != nil {
		return err
	}
	b.entries = merged
	b.dirty = false
	return nil
}

// prune removes the cache entries that are not in keep and were last
// started (or, unknown, written) more than grace ago, and temporary files
// older than grace: the copies of versions no plugin dir serves any more,
// which `harness dev` rebuilds would pile up (~19 MB each). It returns how
// many files it removed and their bytes.
func (b *cacheBook) prune(keep map[string]bool, grace time.Duration, log hclog.Logger) (n int, bytes int64) {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return 0, 0
	}
	limit := time.Now().Add(-grace)
	b.mu.Lock()
	used := make(map[string]int64, len(b.entries))
	for s, e := range b.entries {
		used[s] = e.Used
	}
	b.mu.Unlock()
	for _, e := range entries {
		name := e.Name()
		isEntry := isSum(name)
		// A stored description goes with its entry.
		described, isDesc := strings.CutSuffix(name, describeSuffix)
		isDesc = isDesc && isSum(described)
		if !isEntry && !isDesc && !atomicfile.IsTemp(name) {
			continue // index.json, book.json, anything else
		}
		if keep[name] || isDesc && keep[described] {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		last := fi.ModTime()
		if u, ok := used[name]; ok && time.Unix(u, 0).After(last) {
			last = time.Unix(u, 0)
		}
		if !last.Before(limit) {
			continue
		}
		if err := os.Remove(filepath.Join(b.dir, name)); err != nil {
			continue
		}
		n++
		bytes += fi.Size()
		if isEntry {
			os.Remove(filepath.Join(b.dir, name+describeSuffix))
			b.forget(name)
			log.Debug("pruned plugin cache entry", "sha256", name, "last_used", last)
		}
	}
	return n, bytes
}

// isSum reports whether name is a hex sha256: a cache entry.
func isSum(name string) bool {
	if len(name) != 64 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
