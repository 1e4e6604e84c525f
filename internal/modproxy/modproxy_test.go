package modproxy_test

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness-dev/harness/internal/modproxy"
	"golang.org/x/mod/sumdb/dirhash"
)

// gitRepo is a temp git repository for the proxy's tests: a LICENSE at
// its root and a module in sub/ (with a nested module in sub/inner, which
// a module zip leaves out), committed and tagged sub/v1.0.0 (annotated).
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the module proxy needs git")
	}
	repo := filepath.Join(t.TempDir(), "repo.git")
	write(t, repo, map[string]string{
		"LICENSE":          "the root's license\n",
		"sub/go.mod":       "module example.com/repo.git/sub\n\ngo 1.22\n",
		"sub/a.go":         "package sub\n\n// A is the tagged version.\nconst A = 1\n",
		"sub/inner/go.mod": "module example.com/repo.git/sub/inner\n",
		"other/b.txt":      "outside the module\n",
	})
	runGit(t, repo, "init", "-q", "-b", "main")
	runGit(t, repo, "add", ".")
	runGit(t, repo, "commit", "-q", "-m", "v1")
	runGit(t, repo, "tag", "-a", "sub/v1.0.0", "-m", "sub v1.0.0")
	return repo
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_COMMITTER_DATE=2026-11-30T10:00:00Z", "GIT_AUTHOR_DATE=2026-11-30T10:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// zipFiles returns the files of a module zip, name → content.
func zipFiles(t *testing.T, path string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(b)
	}
	return files
}

// TestBuildFromTag: a version whose tag exists is served from the tag's
// tree, not the working tree — a file changed, a file added and an
// uncommitted go.mod change after tagging are not in the zip, the .mod or
// the hash — with the go command's zip rules (the root's LICENSE in, the
// nested module out), the tagged commit's time in .info, and the hash
// Build reports is the zip's. A version with no tag is served from the
// checkout, and says so.
func TestBuildFromTag(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	const mod = "example.com/repo.git/sub"
	// The working tree moves on after the tag.
	write(t, repo, map[string]string{
		"sub/a.go":   "package sub\n\n// A changed after the tag.\nconst A = 2\n",
		"sub/new.go": "package sub\n\nconst New = 3\n",
		"sub/go.mod": "module example.com/repo.git/sub\n\ngo 1.23\n",
	})

	proxy := t.TempDir()
	tagged, err := modproxy.Build(proxy, repo, "sub", mod, "v1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if !tagged.FromTag || !strings.HasPrefix(tagged.Source, "tag sub/v1.0.0 (commit ") {
		t.Errorf("v1.0.0 served from %q (FromTag %v), want the tag", tagged.Source, tagged.FromTag)
	}
	at := filepath.Join(proxy, "example.com", "repo.git", "sub", "@v")
	got := zipFiles(t, filepath.Join(at, "v1.0.0.zip"))
	want := map[string]string{
		mod + "@v1.0.0/LICENSE": "the root's license\n",
		mod + "@v1.0.0/go.mod":  "module example.com/repo.git/sub\n\ngo 1.22\n",
		mod + "@v1.0.0/a.go":    "package sub\n\n// A is the tagged version.\nconst A = 1\n",
	}
	if !mapsEqual(got, want) {
		t.Errorf("the tag's zip holds %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(at, "v1.0.0.mod")); string(b) != want[mod+"@v1.0.0/go.mod"] {
		t.Errorf("v1.0.0.mod = %q, want the tagged go.mod", b)
	}
	var info struct{ Version, Time string }
	if b, err := os.ReadFile(filepath.Join(at, "v1.0.0.info")); err != nil || json.Unmarshal(b, &info) != nil {
		t.Fatalf("v1.0.0.info: %v %s", err, b)
	}
	if info.Version != "v1.0.0" || info.Time != "2026-11-30T10:00:00Z" {
		t.Errorf("v1.0.0.info = %+v, want the version and the tagged commit's time", info)
	}
	if h, err := dirhash.HashZip(filepath.Join(at, "v1.0.0.zip"), dirhash.Hash1); err != nil || h != tagged.Sum {
		t.Errorf("the zip's hash is %s (%v), Build says %s", h, err, tagged.Sum)
	}

	// No tag v1.1.0: the checkout's files, new and changed ones included.
	checkout, err := modproxy.Build(t.TempDir(), repo, "sub", mod, "v1.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if checkout.FromTag || !strings.Contains(checkout.Source, "no tag sub/v1.1.0") {
		t.Errorf("v1.1.0 served from %q (FromTag %v), want the checkout", checkout.Source, checkout.FromTag)
	}
	if checkout.Sum == tagged.Sum || checkout.GoModSum == tagged.GoModSum {
		t.Errorf("the checkout and the tag hash alike (%s, %s): one of them is not what it says", checkout.Sum, checkout.GoModSum)
	}
}

// TestBuildMatchesGoCommand: the hashes of the tag's zip and go.mod are
// the ones the go command computes when it fetches the tag from the git
// repository itself (GOPROXY=direct, the way proxy.golang.org makes its
// zips), and a go command resolving through the proxy verifies the zip
// against them.
func TestBuildMatchesGoCommand(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	const mod = "example.com/repo.git/sub"
	write(t, repo, map[string]string{"sub/a.go": "package sub\n\nconst A = 2\n"}) // after the tag
	proxy := t.TempDir()
	served, err := modproxy.Build(proxy, repo, "sub", mod, "v1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	download := func(env ...string) (sum, gomodSum string) {
		t.Helper()
		cmd := exec.Command("go", "mod", "download", "-json", mod+"@v1.0.0")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), append([]string{
			"GOMODCACHE=" + t.TempDir(), "GOFLAGS=-modcacherw", "GONOSUMDB=example.com", "GOWORK=off",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		}, env...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go mod download %s (%s): %v\n%s", mod, env, err, out)
		}
		var r struct{ Sum, GoModSum string }
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("go mod download -json: %v\n%s", err, out)
		}
		return r.Sum, r.GoModSum
	}
	// The go command's own zip, from the repository: for the path
	// example.com/repo.git it asks git for https://example.com/repo, which
	// git is told is this folder.
	local := "url.file://" + filepath.ToSlash(repo) + ".insteadOf"
	sum, gomodSum := download("GOPROXY=direct", "GOPRIVATE=example.com",
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0="+local, "GIT_CONFIG_VALUE_0=https://example.com/repo",
		"GIT_CONFIG_KEY_1="+local, "GIT_CONFIG_VALUE_1=https://example.com/repo.git")
	if sum != served.Sum || gomodSum != served.GoModSum {
		t.Errorf("the go command hashes the tag %s %s, the proxy serves %s %s", sum, gomodSum, served.Sum, served.GoModSum)
	}
	if sum, gomodSum := download("GOPROXY=file://" + filepath.ToSlash(proxy)); sum != served.Sum || gomodSum != served.GoModSum {
		t.Errorf("through the proxy the go command hashes %s %s, Build says %s %s", sum, gomodSum, served.Sum, served.GoModSum)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestCopyGoSum: Copy keeps a go.sum whose lines for the SDK are the
// served ones, refuses one that differs from the tag's, and drops them
// when the checkout is served and they differ.
func TestCopyGoSum(t *testing.T) {
	t.Parallel()
	const mod, v = "example.com/m", "v1.0.0"
	served := modproxy.Served{Source: "tag m/v1.0.0", FromTag: true, Sum: "h1:zip=", GoModSum: "h1:mod="}
	other := "example.org/x v1.0.0 h1:x=\n"
	for _, tc := range []struct {
		name, sum string
		fromTag   bool
		wantErr   bool
		wantKept  bool
		wantSum   string
	}{
		{"tag, lines match", other + strings.Join(modproxy.SumLines(mod, v, served), "\n") + "\n", true, false, true, ""},
		{"tag, lines differ", other + mod + " " + v + " h1:old=\n" + mod + " " + v + "/go.mod h1:mod=\n", true, true, false, ""},
		{"tag, lines missing", other, true, true, false, ""},
		{"checkout, lines differ", other + mod + " " + v + " h1:old=\n", false, false, false, other},
		{"checkout, lines match", other + strings.Join(modproxy.SumLines(mod, v, served), "\n") + "\n", false, false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, dst := t.TempDir(), t.TempDir()
			write(t, src, map[string]string{"go.mod": "module example.com/p\n", "go.sum": tc.sum})
			s := served
			s.FromTag = tc.fromTag
			kept, err := modproxy.Copy(src, dst, mod, v, s)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Copy: %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			b, _ := os.ReadFile(filepath.Join(dst, "go.sum"))
			want := tc.wantSum
			if tc.wantKept {
				want = tc.sum
			}
			if kept != tc.wantKept || string(b) != want {
				t.Errorf("Copy kept %v, go.sum %q; want %v, %q", kept, b, tc.wantKept, want)
			}
		})
	}
}

// TestHostOnly: the check on a plugin's graph finds the host-only
// modules in a real list — the host's own cmd/harness, which links the
// ACP SDK and fsnotify — so the check on jsonq's graph can fail.
func TestHostOnly(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./cmd/harness")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/harness: %v", err)
	}
	found := modproxy.HostOnly(strings.Fields(string(out)))
	for _, m := range []string{"github.com/coder/acp-go-sdk", "github.com/fsnotify/fsnotify", "github.com/harness-dev/harness"} {
		if !slices.Contains(found, m) {
			t.Errorf("HostOnly on cmd/harness's dependencies found %q, not %s", found, m)
		}
	}
	if found := modproxy.HostOnly([]string{"github.com/harness-dev/harness/pluginapi", "google.golang.org/grpc"}); len(found) != 0 {
		t.Errorf("HostOnly(the SDK, grpc) = %q", found)
	}
}
