package plugincache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harness-dev/harness/host/atomicfile"
)

// hashIndex remembers the sha256 of each discovered plugin file by the
// file's identity (device, inode, size, modification and change times), so
// that Open need not read every binary again: hashing a 19 MB plugin takes
// ~15 ms, more than starting it. It is the JSON file index.json in the cache
// dir, rewritten by each Open with the files that Open discovered.
//
// A file whose identity changed is hashed again. What runs is always a
// cached copy named by the hash of the bytes written into it, so a stale
// entry (possible only if a file changed without its change time moving)
// could at worst start the previous version, never unhashed bytes. Files
// changed in the last racyWindow are not recorded: on file systems with
// coarse timestamps a later change could keep the same identity.
type hashIndex struct {
	path string
	racy time.Duration // racyWindow; tests shorten it

	mu sync.Mutex
	// mu guards the fields below.
	old map[string]indexEntry // as loaded
	now map[string]indexEntry // recorded by this Open
}

// racyWindow is how old a file's times must be before its hash is
// recorded.
const racyWindow = 2 * time.Second

type indexEntry struct {
	Key    fileKey `json:"key"`
	SHA256 string  `json:"sha256"`
}

// fileKey identifies one version of a file without reading it.
type fileKey struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"` // ns since the epoch
	Ctime int64  `json:"ctime"` // ns since the epoch
}

// loadHashIndex reads the index of dir; a missing or damaged one is empty.
func loadHashIndex(dir string) *hashIndex {
	idx := &hashIndex{
		path: filepath.Join(dir, "index.json"),
		racy: racyWindow,
		old:  map[string]indexEntry{},
		now:  map[string]indexEntry{},
	}
	if b, err := os.ReadFile(idx.path); err == nil {
		_ = json.Unmarshal(b, &idx.old)
	}
	return idx
}

// lookup returns the recorded sha256 of the file at path with identity
// key, or "".
func (idx *hashIndex) lookup(path string, key fileKey) string {
	if idx == nil {
		return ""
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if e, ok := idx.old[path]; ok && e.Key == key {
		idx.now[path] = e
		return e.SHA256
	}
	return ""
}

// record notes the sha256 of the file at path with identity key, unless
// the file changed too recently to trust its identity.
func (idx *hashIndex) record(path string, key fileKey, sum string) {
	if idx == nil {
		return
	}
	recent := time.Now().Add(-idx.racy).UnixNano()
	if key.Mtime > recent || key.Ctime > recent {
		return
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	idx.now[path] = indexEntry{Key: key, SHA256: sum}
}

// save writes the entries this Open looked up or recorded, if they differ
// from the ones loaded.
func (idx *hashIndex) save() error {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if len(idx.now) == len(idx.old) {
		same := true
		for p, e := range idx.now {
			if idx.old[p] != e {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	b, err := json.Marshal(idx.now)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(idx.path, b, 0o600)
}
