package pluginlock_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/pluginlock"
)

const (
	sumA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	sumB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// pluginDir returns a fresh plugin dir (parent/plugins) and its lock path.
func pluginDir(t *testing.T) (dir, lock string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "plugins")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir, dir + ".lock"
}

func TestPath(t *testing.T) {
	t.Parallel()
	got, err := pluginlock.Path("/opt/harness/plugins/")
	if err != nil || got != "/opt/harness/plugins.lock" {
		t.Errorf("Path = %q, %v", got, err)
	}
	if _, err := pluginlock.Path("/"); err == nil {
		t.Error("Path(/) gave no error")
	}
}

// TestWriteRead checks the file's exact form (sorted keys, lower-case
// sums, a version) and that Read gives back what Write wrote.
func TestWriteRead(t *testing.T) {
	t.Parallel()
	dir, lock := pluginDir(t)
	in := pluginlock.Lock{Plugins: map[string]pluginlock.Pin{"todo": {SHA256: strings.ToUpper(sumB)}, "bash": {SHA256: sumA}}}
	if err := pluginlock.Write(dir, in); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "development": false,
  "plugins": {
    "bash": {
      "sha256": "` + sumA + `"
    },
    "todo": {
      "sha256": "` + sumB + `"
    }
  }
}
`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("lock file (-want +got):\n%s", diff)
	}
	if st, err := os.Stat(lock); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("lock mode %v, %v; want 0644", st.Mode().Perm(), err)
	}
	got, err := pluginlock.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantLock := pluginlock.Lock{Version: 1, Plugins: map[string]pluginlock.Pin{"todo": {SHA256: sumB}, "bash": {SHA256: sumA}}}
	if diff := cmp.Diff(wantLock, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".plugins.lock.*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestWriteRefusesBadEntries(t *testing.T) {
	t.Parallel()
	for name, pins := range map[string]map[string]pluginlock.Pin{
		"short sum":     {"todo": {SHA256: "abc"}},
		"path as name":  {"../todo": {SHA256: sumA}},
		"empty name":    {"": {SHA256: sumA}},
		"non-hex sum":   {"todo": {SHA256: strings.Repeat("z", 64)}},
		"dot-dot alone": {"..": {SHA256: sumA}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, lock := pluginDir(t)
			if err := pluginlock.Write(dir, pluginlock.Lock{Plugins: pins}); err == nil {
				t.Error("Write accepted it")
			}
			if _, err := os.Stat(lock); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a lock file was written (%v)", err)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		lock string // file content; "" = no lock file
		name string
		sum  string
		want string // error text it must contain; "" = nil
	}{
		"no lock: not pinned": {name: "todo", sum: sumA},
		"pinned, same sum": {
			lock: `{"version":1,"plugins":{"todo":{"sha256":"` + sumA + `"}}}`, name: "todo", sum: sumA,
		},
		"pinned, same sum in upper case": {
			lock: `{"version":1,"plugins":{"todo":{"sha256":"` + sumA + `"}}}`, name: "todo", sum: strings.ToUpper(sumA),
		},
		"pinned, changed": {
			lock: `{"version":1,"plugins":{"todo":{"sha256":"` + sumA + `"}}}`, name: "todo", sum: sumB,
			want: "plugin todo in DIR is pinned to sha256 aaaaaaaaaaaa…, but the file now has bbbbbbbbbbbb…: if you trust the new binary, run harness plugins pin",
		},
		"not pinned in a pinned dir": {
			lock: `{"version":1,"plugins":{"todo":{"sha256":"` + sumA + `"}}}`, name: "intruder", sum: sumB,
			want: "plugin intruder in DIR is not pinned in DIR.lock (it has sha256 bbbbbbbbbbbb…): if you trust it, run harness plugins pin",
		},
		"development dir": {
			lock: `{"version":1,"development":true,"plugins":{"todo":{"sha256":"` + sumA + `"}}}`, name: "todo", sum: sumB,
		},
		"development dir, unpinned file": {
			lock: `{"version":1,"development":true,"plugins":{}}`, name: "new", sum: sumB,
		},
		"corrupt lock fails closed": {
			lock: `{"version":1,"plugins":`, name: "todo", sum: sumA,
			want: "read plugin lock DIR.lock: not a lock file: unexpected EOF; every plugin of DIR is refused until it is fixed (harness plugins pin rewrites it)",
		},
		"newer format fails closed": {
			lock: `{"version":2,"plugins":{}}`, name: "todo", sum: sumA,
			want: "format version 2 is newer than this harness reads (1)",
		},
		"no version": {
			lock: `{"plugins":{}}`, name: "todo", sum: sumA, want: "not a lock file: no version",
		},
		"bad sum in the lock": {
			lock: `{"version":1,"plugins":{"todo":{"sha256":"xyz"}}}`, name: "todo", sum: sumA,
			want: `plugin todo: sha256 "xyz" is not 64 hex digits`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, lock := pluginDir(t)
			if tc.lock != "" {
				if err := os.WriteFile(lock, []byte(tc.lock), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := pluginlock.Verify(dir, tc.name, tc.sum)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Verify gave no error")
			}
			if want := strings.ReplaceAll(tc.want, "DIR", dir); !strings.Contains(err.Error(), want) {
				t.Errorf("error\n%s\nlacks\n%s", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestVerifyMismatchError(t *testing.T) {
	t.Parallel()
	dir, _ := pluginDir(t)
	if err := pluginlock.Write(dir, pluginlock.Lock{Plugins: map[string]pluginlock.Pin{"todo": {SHA256: sumA}}}); err != nil {
		t.Fatal(err)
	}
	err := pluginlock.Verify(dir, "todo", sumB)
	var me *pluginlock.MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("Verify = %v, want a *MismatchError", err)
	}
	want := pluginlock.MismatchError{Lock: dir + ".lock", Dir: dir, Name: "todo", Pinned: sumA, Got: sumB}
	if diff := cmp.Diff(want, *me); diff != "" {
		t.Errorf("MismatchError (-want +got):\n%s", diff)
	}
}

// TestScan hashes what the host's discovery would run, and only that.
func TestScan(t *testing.T) {
	t.Parallel()
	dir, _ := pluginDir(t)
	write := func(name, content string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("todo", "todo binary", 0o755)
	write("bash", "bash binary", 0o700)
	write("README.md", "not executable", 0o644)
	write(".hidden", "dotfile", 0o755)
	write("todo~", "backup", 0o755)
	write("x-go-tmp-umask", "probe", 0o755)
	write("half.tmp", "temporary", 0o755)
	if err := os.Mkdir(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("linked binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	got, err := pluginlock.Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pluginlock.Pin{
		"todo":   {},
		"bash":   {},
		"linked": {},
	}
	for name := range want {
		sum, err := pluginlock.HashFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = pluginlock.Pin{SHA256: sum}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scan (-want +got):\n%s", diff)
	}
	if _, err := pluginlock.Scan(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Scan of a missing dir = %v, want fs.ErrNotExist", err)
	}
}

func TestHashFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := pluginlock.HashFile(p)
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; err != nil || got != want {
		t.Errorf("HashFile = %q, %v; want %s", got, err, want)
	}
}

// ExampleVerify pins a dir, then finds its plugin changed.
func ExampleVerify() {
	parent, _ := os.MkdirTemp("", "pluginlock-example-")
	defer os.RemoveAll(parent)
	dir := filepath.Join(parent, "plugins")
	_ = os.Mkdir(dir, 0o700)
	_ = os.WriteFile(filepath.Join(dir, "todo"), []byte("v1"), 0o755)

	pins, _ := pluginlock.Scan(dir)
	_ = pluginlock.Write(dir, pluginlock.Lock{Plugins: pins})
	fmt.Println(pluginlock.Verify(dir, "todo", pins["todo"].SHA256))

	_ = os.WriteFile(filepath.Join(dir, "todo"), []byte("v2"), 0o755)
	sum, _ := pluginlock.HashFile(filepath.Join(dir, "todo"))
	err := pluginlock.Verify(dir, "todo", sum)
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "DIR"))
	// Output:
	// <nil>
	// plugin todo in DIR is pinned to sha256 3bfc269594ef…, but the file now has fb04dcb6970e…: if you trust the new binary, run harness plugins pin
}

func TestSkip(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"todo":                   false,
		"todo.sh":                false,
		".todo":                  true,
		"todo~":                  true,
		".todo.swp":              true,
		"todo.swp":               true,
		"todo.tmp":               true,
		"todo-go-tmp-umask":      true,
		"bash":                   false,
		"todo.0a1b2c.tmp":        true,
		".0a1b.3344.tmp":         true,
		"subagent.exe":           false,
		"notes.txt":              false,
		"todo.swx":               true,
		"README":                 false,
		"plugin-with-dash_und.1": false,
	} {
		if got := pluginlock.Skip(name); got != want {
			t.Errorf("Skip(%q) = %v, want %v", name, got, want)
		}
	}
}
