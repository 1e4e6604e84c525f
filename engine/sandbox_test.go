package engine_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/event"
)

// TestSessionDirsLogged: a session's added folders are the Runtime's then
// its own, on its first sandbox/policy; a change (other folders, none) is
// logged once, the same list again not; a bad folder changes nothing and
// a session asked for with one is not made.
func TestSessionDirsLogged(t *testing.T) {
	t.Parallel()
	global, own, other := t.TempDir(), t.TempDir(), t.TempDir()
	state := t.TempDir()
	rt, err := engine.New(engine.Config{StateDir: state, Sandbox: confine.Setting{AddDirs: []string{global}, PidsLimit: 64}})
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
