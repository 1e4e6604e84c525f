package paths_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/harness-dev/harness/host/settings/paths"
)

// TestDefaults: XDG variables win when absolute, else HOME's folders; a
// relative XDG variable is ignored; with no home there is no config
// folder, and the state folder is found from the user's home or refused.
func TestDefaults(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name                string
		getenv              func(string) string
		state, config, perm string
	}{
		{"home", env("HOME", "/h"), "/h/.local/state/harness", "/h/.config/harness", "/h/.config/harness/permissions.json"},
		{"xdg", env("HOME", "/h", "XDG_STATE_HOME", "/s", "XDG_CONFIG_HOME", "/c"), "/s/harness", "/c/harness", "/c/harness/permissions.json"},
		{"relative xdg", env("HOME", "/h", "XDG_STATE_HOME", "s", "XDG_CONFIG_HOME", "c"), "/h/.local/state/harness", "/h/.config/harness", "/h/.config/harness/permissions.json"},
	} {
		state, err := paths.StateDir(tc.getenv)
		if err != nil || state != tc.state {
			t.Errorf("%s: StateDir = %q, %v; want %q", tc.name, state, err, tc.state)
		}
		if got := paths.ConfigDir(tc.getenv); got != tc.config {
			t.Errorf("%s: ConfigDir = %q, want %q", tc.name, got, tc.config)
		}
		if got := paths.PermissionsFile(tc.getenv); got != tc.perm {
			t.Errorf("%s: PermissionsFile = %q, want %q", tc.name, got, tc.perm)
		}
	}
	if got := paths.ConfigFile(env(), "mcp.json"); got != "" {
		t.Errorf("ConfigFile without a home = %q, want none", got)
	}
}

// TestProtected: every file given and each plugin dir with its lock file,
// absolute, blanks skipped.
func TestProtected(t *testing.T) {
	t.Parallel()
	got := paths.Protected([]string{"/c", "", "rel"}, []string{"/p/"})
	abs, _ := filepath.Abs("rel")
	want := []string{"/c", abs, "/p", "/p.lock"}
	if !slices.Equal(got, want) {
		t.Errorf("Protected = %q, want %q", got, want)
	}
}
