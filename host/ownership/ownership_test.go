//go:build unix

package ownership

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// info is a FileInfo with a chosen mode and owner.
type info struct {
	mode fs.FileMode
	uid  int
}

func (i info) Name() string       { return "x" }
func (i info) Size() int64        { return 0 }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return &syscall.Stat_t{Uid: uint32(i.uid)} }

// otherUID is a uid that is neither this process's nor root's.
func otherUID() int {
	if os.Geteuid() == 65534 {
		return 65533
	}
	return 65534
}

func TestCheck(t *testing.T) {
	me, other := os.Geteuid(), otherUID()
	notMe := "not by this user (uid " + strconv.Itoa(me) + ") or root"
	if me == 0 {
		notMe = "not by root (this user)"
	}
	for _, tc := range []struct {
		name string
		fi   info
		// want is "" for trusted, else substrings of the one-line refusal.
		want []string
	}{
		{"own file 0600", info{0o600, me}, nil},
		{"own file 0644", info{0o644, me}, nil},
		{"own folder 0700", info{fs.ModeDir | 0o700, me}, nil},
		{"own folder 0755", info{fs.ModeDir | 0o755, me}, nil},
		{"root's file 0644", info{0o644, 0}, nil},
		{"root's folder 0755", info{fs.ModeDir | 0o755, 0}, nil},
		{"own link", info{fs.ModeSymlink | 0o777, me}, nil},
		{"root's link", info{fs.ModeSymlink | 0o777, 0}, nil},
		{"own file 0666", info{0o666, me}, []string{"is writable by group or others (mode 0666, owner ", "uid " + strconv.Itoa(me), "; refused: chmod go-w /p/x"}},
		{"own file 0620", info{0o620, me}, []string{"writable by group or others (mode 0620", "chmod go-w"}},
		{"own file 0602", info{0o602, me}, []string{"writable by group or others (mode 0602", "chmod go-w"}},
		{"own folder 0777", info{fs.ModeDir | 0o777, me}, []string{"(mode 0777", "chmod go-w /p/x"}},
		{"sticky folder 1777", info{fs.ModeDir | fs.ModeSticky | 0o777, me}, []string{"(mode 1777", "chmod go-w"}},
		{"root's folder 0777", info{fs.ModeDir | 0o777, 0}, []string{"(mode 0777, owner ", "uid 0)", "chmod go-w"}},
		{"other's file 0600", info{0o600, other}, []string{"is owned by ", "uid " + strconv.Itoa(other), notMe + " (mode 0600)", "chown " + strconv.Itoa(me) + " /p/x", "else remove it"}},
		{"other's folder 0700", info{fs.ModeDir | 0o700, other}, []string{"uid " + strconv.Itoa(other), "(mode 0700)"}},
		{"other's file 0666", info{0o666, other}, []string{"uid " + strconv.Itoa(other), "and writable by group or others (mode 0666)", "chown " + strconv.Itoa(me) + " /p/x && chmod go-w /p/x"}},
		{"other's link", info{fs.ModeSymlink | 0o777, other}, []string{"(a symbolic link) is owned by", "uid " + strconv.Itoa(other), "remove the link (rm /p/x)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check("session log", "/p/x", tc.fi)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Check = nil, want a refusal")
			}
			if !errors.Is(err, ErrUntrusted) {
				t.Errorf("error %v does not match ErrUntrusted", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "session log /p/x ") || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line starting with what and the path", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/a/.local/state/harness", "/home/a/.local/state/harness"},
		{"/tmp/my state", "'/tmp/my state'"},
		{"/tmp/it's", `'/tmp/it'\''s'`},
		{"/tmp/$(rm -rf x)", "'/tmp/$(rm -rf x)'"},
		{"/tmp/ünï", "/tmp/ünï"},
		{"/tmp/a\x1b[2Jb", `"/tmp/a\x1b[2Jb"`},
		{"/tmp/a\u202eb", `"/tmp/a\u202eb"`},
		{"/tmp/a\u200bb", `"/tmp/a\u200bb"`},
		{"/tmp/a\nb", `"/tmp/a\nb"`},
		{"/tmp/a\xffb", `"/tmp/a\xffb"`},
		{"/tmp/a\u00a0b", "'/tmp/a\u00a0b'"},
	} {
		if got := quote(tc.in); got != tc.want {
			t.Errorf("quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestCheckFile checks real files by fstat: a mode flipped on the file is
// seen, and so is an owner changed (as root).
func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"secret":"do-not-show"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if err := CheckFile("session log", open()); err != nil {
		t.Fatalf("own 0600 file: %v", err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	err := CheckFile("session log", open())
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "mode 0666") || !strings.Contains(err.Error(), path) {
		t.Fatalf("0666 file: %v", err)
	}
	if strings.Contains(err.Error(), "do-not-show") {
		t.Fatalf("the message shows the contents: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Log("not root: the foreign-owner case on a real file is covered by TestCheck only")
		return
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, otherUID(), otherUID()); err != nil {
		t.Fatal(err)
	}
	err = CheckFile("session log", open())
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "uid "+strconv.Itoa(otherUID())) {
		t.Fatalf("file of another uid: %v", err)
	}
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, perm fs.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, open, sticky := mk("good", 0o700), mk("open", 0o777), mk("sticky", 0o1777)
	if err := CheckDir("state folder", good); err != nil {
		t.Errorf("0700 folder: %v", err)
	}
	for _, p := range []string{open, sticky} {
		if err := CheckDir("state folder", p); !errors.Is(err, ErrUntrusted) {
			t.Errorf("%s: %v, want a refusal", p, err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir("state folder", link); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "state folder "+link+" is writable") {
		t.Errorf("link to a 0777 folder: %v", err)
	}
	goodLink := filepath.Join(base, "goodlink")
	if err := os.Symlink(good, goodLink); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir("state folder", goodLink); err != nil {
		t.Errorf("own link to a 0700 folder: %v", err)
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(goodLink, otherUID(), otherUID()); err != nil {
			t.Fatal(err)
		}
		if err := CheckDir("state folder", goodLink); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "(a symbolic link)") {
			t.Errorf("another user's link to a 0700 folder: %v", err)
		}
	}
	if err := CheckDir("state folder", filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v, want fs.ErrNotExist", err)
	}
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	if err := CheckDir("state folder", file); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a file: %v", err)
	}
}

// TestMkdirAllUmask runs MkdirAll in a child process under umask 000 and
// under 0277 (the umask is the whole process's): every folder it makes is
// 0700, and one that exists keeps its mode.
func TestMkdirAllUmask(t *testing.T) {
	for _, umask := range []string{"000", "277"} {
		t.Run("umask"+umask, func(t *testing.T) { testMkdirAllUmask(t, umask) })
	}
}

func testMkdirAllUmask(t *testing.T, umask string) {
	if dir := os.Getenv("OWNERSHIP_TEST_MKDIR"); dir != "" {
		m, _ := strconv.ParseInt(os.Getenv("OWNERSHIP_TEST_UMASK"), 8, 32)
		syscall.Umask(int(m))
		if err := MkdirAll(filepath.Join(dir, "a", "b", "c")); err != nil {
			t.Fatal(err)
		}
		if err := MkdirAll(filepath.Join(dir, "open")); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "open"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "open"), 0o777)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMkdirAllUmask$/^umask"+umask+"$")
	cmd.Env = append(os.Environ(), "OWNERSHIP_TEST_MKDIR="+dir, "OWNERSHIP_TEST_UMASK="+umask)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, p := range []string{"a", "a/b", "a/b/c"} {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s made under umask %s: mode %04o, want 0700", p, umask, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "open")); fi.Mode().Perm() != 0o777 {
		t.Errorf("an existing 0777 folder was changed to %04o; MkdirAll must leave it for the caller to refuse", fi.Mode().Perm())
	}
	if err := MkdirAll(filepath.Join(dir, "a", "b", "c")); err != nil {
		t.Errorf("existing: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	if err := MkdirAll(filepath.Join(file, "x")); err == nil {
		t.Error("MkdirAll under a file: nil error")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("key = \"sk-secret\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile("config file", path); err != nil || string(b) != "key = \"sk-secret\"\n" {
		t.Fatalf("own 0600 file: %q, %v", b, err)
	}
	if err := os.Chmod(path, 0o664); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile("config file", path)
	if !errors.Is(err, ErrUntrusted) || b != nil || !strings.HasPrefix(err.Error(), "config file "+path+" is writable by group or others (mode 0664") ||
		strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("0664 file: %q, %v", b, err)
	}
	if _, err := ReadFile("config file", filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzQuote: whatever a path holds, its quoted form shows nothing a
// terminal acts on and gives the path back — Go-unquoted when it is Go
// quoted, shell-unquoted when it is in single quotes, as is otherwise.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"/a/b", "/a b", "it's", "\x1b]52;c;eA==\x07", "a\u202eb", "", "\xff", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		q := quote(path)
		if !printable(q) {
			t.Fatalf("quote(%q) = %q holds a character that is not printable", path, q)
		}
		var back string
		switch {
		case strings.HasPrefix(q, `"`):
			var err error
			if back, err = strconv.Unquote(q); err != nil {
				t.Fatalf("quote(%q) = %s: %v", path, q, err)
			}
		case strings.HasPrefix(q, "'"):
			back = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(q, "'"), "'"), `'\''`, "'")
		default:
			back = q
		}
		if back != path {
			t.Fatalf("quote(%q) = %s, which reads back as %q", path, q, back)
		}
	})
}

// TestReadFileNotRegular: a FIFO or a device where a file should be is
// refused at once, never read — a FIFO with no writer would otherwise
// block the open for ever (a config file swapped for one hung harness's
// start).
func TestReadFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/null"} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile("config file", path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
				t.Errorf("ReadFile(%s) = %v, want a refusal saying it is not a regular file", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) still blocked after 10 s", path)
		}
	}
}
