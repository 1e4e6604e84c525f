package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
)

// TestCheckAddDir: an added folder is absolute after "~" is expanded, an
// existing folder, not /, and comes back with its links resolved; a
// deny-read path is absolute after expansion and not /, and need not
// exist.
func TestCheckAddDir(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	real := filepath.Join(home, "src")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".ssh", ".aws/sub"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, want, err string
		deny           bool
	}{
		{dir: "~/src", want: filepath.Join(realHome, "src")},
		{dir: filepath.Join(home, "link"), want: filepath.Join(realHome, "src")},
		{dir: "~", want: realHome},
		{dir: "src", err: `added folder "src" is not an absolute path`},
		{dir: "~user/src", err: "is not an absolute path"},
		{dir: filepath.Join(home, "none"), err: "does not exist"},
		{dir: filepath.Join(home, "file"), err: "is not a folder"},
		{dir: "/", err: "is the root folder: to let commands write anywhere, use --sandbox off"},
		{dir: "~/.ssh", err: "/.ssh, which the sandbox hides from commands: it cannot be added"},
		{dir: "~/.aws/sub", err: "/.aws, which the sandbox hides from commands"},
		{dir: "~/secrets/", want: filepath.Join(home, "secrets"), deny: true},
		{dir: "/srv/x/../y", want: "/srv/y", deny: true},
		{dir: "secrets", err: "is not an absolute path", deny: true},
		{dir: "/", err: "would hide everything", deny: true},
	}
	for _, tc := range tests {
		check := engine.CheckAddDir
		if tc.deny {
			check = engine.CheckDenyRead
		}
		got, err := check(tc.dir, home)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q (deny %v): %q, %v; want an error containing %q", tc.dir, tc.deny, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q (deny %v): %q, %v; want %q", tc.dir, tc.deny, got, err, tc.want)
		}
	}
}

// TestSessionDirsLogged: a session's added folders are the Runtime's then
// its own, on its first sandbox/policy; a change (other folders, none) is
// logged once, the same list again not; a bad folder changes nothing and
// a session asked for with one is not made.
func TestSessionDirsLogged(t *testing.T) {
	t.Parallel()
	global, own, other := t.TempDir(), t.TempDir(), t.TempDir()
	state := t.TempDir()
	rt, err := engine.New(engine.Config{StateDir: state, Sandbox: engine.Sandbox{AddDirs: []string{global}, PidsLimit: 64}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if _, err := rt.CreateSessionWithDirs(t.TempDir(), []string{filepath.Join(own, "missing")}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing folder: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl")); len(files) != 0 {
		t.Fatalf("a refused session was made: %v", files)
	}
	s, err := rt.CreateSessionWithDirs(t.TempDir(), []string{own})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseSession(s)
	policies := func() [][]string {
		var out [][]string
		for _, e := range s.Events() {
			if e.Type != event.TypeSandboxPolicy {
				continue
			}
			d, err := e.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := d.(event.SandboxPolicy); ok {
				out = append(out, p.AddDirs)
				if p.PidsLimit != 64 {
					t.Errorf("pidsLimit %d logged, want 64", p.PidsLimit)
				}
			}
		}
		return out
	}
	steps := []struct {
		dirs []string
		err  string
		want [][]string
	}{
		{dirs: []string{own}, want: [][]string{{global, own}}},
		{dirs: []string{other, "relative"}, err: "not an absolute path", want: [][]string{{global, own}}},
		{dirs: []string{other}, want: [][]string{{global, own}, {global, other}}},
		{dirs: []string{other, global}, want: [][]string{{global, own}, {global, other}}},
		{want: [][]string{{global, own}, {global, other}, {global}}},
	}
	for i, st := range steps {
		if i > 0 {
			err := rt.SetSessionDirs(s, st.dirs)
			if (err != nil) != (st.err != "") || (err != nil && !strings.Contains(err.Error(), st.err)) {
				t.Fatalf("step %d: SetSessionDirs(%q) = %v, want error %q", i, st.dirs, err, st.err)
			}
		}
		if got := policies(); !slices.EqualFunc(got, st.want, slices.Equal) {
			t.Errorf("step %d: sandbox/policy addDirs %q, want %q", i, got, st.want)
		}
	}
	if got := rt.SessionSandbox(s).AddDirs; !slices.Equal(got, []string{global}) {
		t.Errorf("SessionSandbox AddDirs %q, want [%s]", got, global)
	}
}
