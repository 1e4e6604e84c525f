package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// confined runs fn on a fresh OS thread confined to p; the thread ends
// with the goroutine (it stays locked), so the test's others are not.
func confined(t *testing.T, p Profile, fn func() map[string]error) map[string]error {
	t.Helper()
	type out struct {
		res map[string]error
		err error
	}
	ch := make(chan out, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with it
		if _, err := ConfineThread(p); err != nil {
			ch <- out{err: err}
			return
		}
		ch <- out{res: fn()}
	}()
	o := <-ch
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.res
}

// TestConfineThread checks each right a plugin profile grants or
// withholds, on this kernel: reads outside the allow-list, writes outside
// Write, exec of another program without Exec, and TCP sockets without
// Network are refused; what the profile grants works.
func TestConfineThread(t *testing.T) {
	if LandlockABI() == 0 {
		t.Skip("no Landlock in this kernel")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	true_ := "/bin/true"
	if _, err := os.Stat(true_); err != nil {
		t.Skip("no /bin/true")
	}
	tests := []struct {
		name string
		p    func(readable, writable string) Profile
		want map[string]bool // what succeeds
	}{
		{"default", func(r, w string) Profile { return Profile{Program: self, Read: []string{r}} },
			map[string]bool{"read allowed": true}},
		{"write", func(r, w string) Profile { return Profile{Program: self, Read: []string{r}, Write: []string{w}} },
			map[string]bool{"read allowed": true, "write allowed": true, "read writable": true}},
		{"exec", func(r, w string) Profile { return Profile{Program: self, Read: []string{r}, Exec: true} },
			map[string]bool{"read allowed": true, "exec": true}},
		{"network", func(r, w string) Profile { return Profile{Program: self, Read: []string{r}, Network: true} },
			map[string]bool{"read allowed": true, "tcp socket": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			readable, writable, hidden := t.TempDir(), t.TempDir(), t.TempDir()
			for _, d := range []string{readable, writable, hidden} {
				if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := confined(t, tc.p(readable, writable), func() map[string]error {
				res := map[string]error{}
				_, res["read allowed"] = os.ReadFile(filepath.Join(readable, "f"))
				_, res["read writable"] = os.ReadFile(filepath.Join(writable, "f"))
				_, res["read hidden"] = os.ReadFile(filepath.Join(hidden, "f"))
				res["write allowed"] = os.WriteFile(filepath.Join(writable, "g"), nil, 0o600)
				res["write readable"] = os.WriteFile(filepath.Join(readable, "g"), nil, 0o600)
				fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
				if err == nil {
					unix.Close(fd)
				}
				res["tcp socket"] = err
				pid, err := syscall.ForkExec(true_, []string{"true"}, &syscall.ProcAttr{})
				if err == nil {
					var ws syscall.WaitStatus
					_, _ = syscall.Wait4(pid, &ws, 0, nil)
					if !ws.Exited() || ws.ExitStatus() != 0 {
						err = errors.New("true failed")
					}
				}
				res["exec"] = err
				return res
			})
			for what, err := range got {
				if ok := err == nil; ok != tc.want[what] {
					t.Errorf("%s: err %v, want success %v", what, err, tc.want[what])
				}
			}
		})
	}
}

// TestHomeReads checks that the home folder's credential stores and the
// excluded folders are left out, entry by entry, and the rest listed.
func TestHomeReads(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".ssh", ".config/gh", ".config/nvim", ".config/harness", "src/x", ".docker/run"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".netrc", ".bashrc", ".docker/config.json", ".docker/other.json"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for _, p := range HomeReads(home, []string{filepath.Join(home, ".config/harness")}) {
		rel, _ := filepath.Rel(home, p)
		got[rel] = true
	}
	for rel, want := range map[string]bool{
		".ssh": false, ".netrc": false, ".config/gh": false, ".config/harness": false, ".docker/config.json": false, ".docker/run": false,
		".config": false, ".docker": false, // listed entry by entry
		".bashrc": true, "src": true, ".config/nvim": true, ".docker/other.json": true,
	} {
		if got[rel] != want {
			b, _ := json.Marshal(got)
			t.Errorf("%s listed: %v, want %v (%s)", rel, got[rel], want, b)
		}
	}
}

// FuzzDecodeProfile: whatever the bytes, DecodeProfile returns a valid
// profile or an error, and a decoded profile encodes back to itself.
func FuzzDecodeProfile(f *testing.F) {
	f.Add([]byte(`{"program":"/bin/p","read":["/a"],"write":["/b"],"exec":true,"network":true,"pidsLimit":5}`))
	f.Add([]byte(`{"program":"rel"}`))
	f.Add([]byte(`{"program":"/p","read":["/a/../b"]}`))
	f.Add([]byte(`{"program":"/p","write":["/w"],"readOnly":["/w/.git/hooks"],"hide":["/h"]}`))
	f.Add([]byte(`{"program":"/p","readOnly":["w/.git"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeProfile(b)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded an invalid profile: %v", err)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeProfile(again); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

// TestInterpreters checks the programs a plugin's start runs: the ELF
// interpreter of a dynamic binary, a #! interpreter, and through
// #!/usr/bin/env the program found on PATH.
func TestInterpreters(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	sh, _ = filepath.EvalSymlinks(sh)
	dir := t.TempDir()
	script := func(name, line string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(line+"\necho\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	direct := interpreters(script("direct", "#!"+sh))
	if len(direct) == 0 || direct[0] != sh {
		t.Errorf("#!%s: %v", sh, direct)
	}
	if env, err := exec.LookPath("env"); err == nil && filepath.IsAbs(env) {
		t.Setenv("PATH", filepath.Dir(sh))
		got := interpreters(script("viaenv", "#!"+env+" -S sh -e"))
		if !slices.Contains(got, filepath.Join(filepath.Dir(sh), "sh")) {
			t.Errorf("#!%s sh: %v, want sh from PATH", env, got)
		}
	}
	if got := interpreters(script("bare", "#!")); len(got) != 0 {
		t.Errorf("#!: %v, want none", got)
	}
}
