package confine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/confine"
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
		check := confine.CheckAddDir
		if tc.deny {
			check = confine.CheckDenyRead
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
