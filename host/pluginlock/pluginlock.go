package pluginlock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/host/atomicfile"
)

// Version is the lock file format this package reads and writes.
const Version = 1

// Suffix follows the plugin dir's name in its lock file's name.
const Suffix = ".lock"

// Lock is the content of one lock file.
type Lock struct {
	// Version is the file format, [Version].
	Version int `json:"version"`
	// Development marks the dir for development: hashes may change (hot
	// reload), and Verify lets every plugin of the dir run.
	Development bool `json:"development"`
	// Plugins maps a plugin's file name in the dir to its pin.
	Plugins map[string]Pin `json:"plugins"`
	// Unpinned marks a lock written only to hold trust records (`harness
	// plugins trust` in a dir nobody pinned): Verify lets every plugin of
	// the dir run, as without a lock.
	Unpinned bool `json:"unpinned,omitempty"`
	// Trusted maps a plugin's file name in the dir to what the user
	// trusted it with (see [Trust]).
	Trusted map[string]Trust `json:"trusted,omitempty"`
}

// Pin is what the lock records of one plugin file.
type Pin struct {
	// SHA256 is the sha256 of the file's bytes, lower-case hex.
	SHA256 string `json:"sha256"`
}

// MismatchError is a plugin file refused by its dir's lock: changed since
// it was pinned, or not pinned at all.
type MismatchError struct {
	Lock   string // the lock file
	Dir    string // the plugin dir
	Name   string // the plugin's file name in Dir
	Pinned string // the pinned sha256; "" when the lock does not name the file
	Got    string // the sha256 of the file's bytes
}

func (e *MismatchError) Error() string {
	if e.Pinned == "" {
		return fmt.Sprintf("plugin %s in %s is not pinned in %s (it has sha256 %s): if you trust it, run harness plugins pin",
			e.Name, e.Dir, e.Lock, short(e.Got))
	}
	return fmt.Sprintf("plugin %s in %s is pinned to sha256 %s, but the file now has %s: if you trust the new binary, run harness plugins pin",
		e.Name, e.Dir, short(e.Pinned), short(e.Got))
}

// short abbreviates a sha256 for messages.
func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12] + "…"
	}
	return sum
}

// Path returns the lock file of the plugin dir dir: dir's cleaned absolute
// path followed by Suffix (bin/plugins → /abs/bin/plugins.lock).
func Path(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("locate the lock of %s: %w", dir, err)
	}
	if filepath.Dir(abs) == abs {
		return "", fmt.Errorf("locate the lock of %s: a file system root has no place next to it", dir)
	}
	return abs + Suffix, nil
}

// Read reads the lock of the plugin dir dir. A dir without one gives an
// error wrapping fs.ErrNotExist: the dir is not pinned.
func Read(dir string) (Lock, error) {
	path, err := Path(dir)
	if err != nil {
		return Lock{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Lock{}, fmt.Errorf("read plugin lock: %w", err)
	}
	l, err := parse(b)
	if err != nil {
		return Lock{}, fmt.Errorf("read plugin lock %s: %w", path, err)
	}
	return l, nil
}

// parse decodes and checks a lock file's content.
func parse(b []byte) (Lock, error) {
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&l); err != nil {
		return Lock{}, fmt.Errorf("not a lock file: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Lock{}, errors.New("not a lock file: data after the JSON object")
	}
	switch {
	case l.Version == 0:
		return Lock{}, errors.New("not a lock file: no version")
	case l.Version > Version:
		return Lock{}, fmt.Errorf("format version %d is newer than this harness reads (%d)", l.Version, Version)
	}
	if err := l.check(); err != nil {
		return Lock{}, err
	}
	return l, nil
}

// check validates the plugin names and sums.
func (l Lock) check() error {
	for name, p := range l.Plugins {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("plugin name %q is not a file name", name)
		}
		if !validSum(p.SHA256) {
			return fmt.Errorf("plugin %s: sha256 %q is not 64 hex digits", name, p.SHA256)
		}
	}
	for name, t := range l.Trusted {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("trusted plugin name %q is not a file name", name)
		}
		if !validSum(t.SHA256) {
			return fmt.Errorf("trusted plugin %s: sha256 %q is not 64 hex digits", name, t.SHA256)
		}
	}
	return nil
}

func validSum(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Write writes l as the lock of the plugin dir dir, atomically (a
// temporary file renamed over the old lock), with Version set and keys
// sorted. The file is 0644: it holds only hashes.
func Write(dir string, l Lock) error {
	path, err := Path(dir)
	if err != nil {
		return err
	}
	l.Version = Version
	if l.Plugins == nil {
		l.Plugins = map[string]Pin{}
	}
	for name, p := range l.Plugins {
		p.SHA256 = strings.ToLower(p.SHA256)
		l.Plugins[name] = p
	}
	if err := l.check(); err != nil {
		return fmt.Errorf("write plugin lock %s: %w", path, err)
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("write plugin lock %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write plugin lock: %w", err)
	}
	return nil
}

// Verify checks the plugin file name of the plugin dir dir, whose bytes
// have the sha256 sum (hex), against the dir's lock: nil when the dir has
// no lock, when it is marked for development, or when the lock pins the
// file to sum; a *MismatchError when the file changed or is not pinned; an
// error naming the lock file when it cannot be read (every plugin of the
// dir is then refused).
func Verify(dir, name, sum string) error {
	l, err := Read(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w; every plugin of %s is refused until it is fixed (harness plugins pin rewrites it)", err, dir)
	}
	return l.Verify(dir, name, sum)
}

// Verify checks the plugin file name of the plugin dir dir, whose bytes
// have the sha256 sum, against l (see the function Verify).
func (l Lock) Verify(dir, name, sum string) error {
	if l.Development || l.Unpinned {
		return nil
	}
	sum = strings.ToLower(sum)
	p, ok := l.Plugins[name]
	if ok && p.SHA256 == sum {
		return nil
	}
	path, err := Path(dir)
	if err != nil {
		path = dir + Suffix
	}
	return &MismatchError{Lock: path, Dir: dir, Name: name, Pinned: p.SHA256, Got: sum}
}

// Scan hashes the plugin files of the plugin dir dir, as the host's
// discovery finds them: every regular file (a symlink to one counts) with
// an exec bit whose name [Skip] does not reject. It returns them by file
// name. A missing dir gives an error wrapping fs.ErrNotExist.
func Scan(dir string) (map[string]Pin, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("scan plugin dir: %w", err)
	}
	out := map[string]Pin{}
	for _, e := range entries {
		if e.IsDir() || Skip(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Stat(path) // follows a symlink
		if err != nil {
			return nil, fmt.Errorf("scan plugin dir: %w", err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		sum, err := HashFile(path)
		if err != nil {
			return nil, fmt.Errorf("scan plugin dir: %w", err)
		}
		out[e.Name()] = Pin{SHA256: sum}
	}
	return out, nil
}

// Skip reports whether a file name in a plugin dir is never a plugin, by
// the host's discovery rules: dotfiles, editor backups and swap files,
// temporary files, and the probe file `go build -o` creates next to its
// output.
func Skip(name string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	for _, suffix := range []string{"~", ".swp", ".swx", ".tmp", "-go-tmp-umask"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// HashFile returns the sha256 of the file at path, in lower-case hex.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
