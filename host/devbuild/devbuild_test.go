package devbuild_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/devbuild"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
)

// pluginSource is a plugin whose tool "version" answers %s.
const pluginSource = `// Command plug is a test plugin for devbuild.
package main

import (
	"context"
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi"
)

const version = %q

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "plug",
		Version: version,
		Tools: []pluginapi.Tool{{
			Spec: pluginapi.ToolSpec{Name: "version", Description: "Answers the version.", Schema: json.RawMessage(` + "`" + `{"type":"object"}` + "`" + `)},
			Run: func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: version}, nil
			},
		}},
	})
}
`

// tempModule makes a module outside the repository whose folder plug is a
// plugin answering version v1; it uses this repository's pluginapi module
// through a replace directive and starts from its go.sum. go build
// keeps the user's GOPROXY and GOMODCACHE, so that it works on an empty
// module cache (it downloads what the temp module needs). It returns the
// plugin's source folder and the environment go build needs.
func tempModule(t *testing.T) (src string, env []string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	mod := t.TempDir()
	gomod := fmt.Sprintf("module example.com/devtest\n\ngo 1.26\n\nrequire github.com/harness-dev/harness/pluginapi v1.2.0\n\nreplace github.com/harness-dev/harness/pluginapi => %s\n", filepath.Join(root, "pluginapi"))
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "pluginapi", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	src = filepath.Join(mod, "plug")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeVersion(t, src, "v1")
	return src, []string{"GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off"}
}

// writeVersion rewrites the plugin's main.go to answer v, the way an
// editor saves: a temporary file renamed over the old one.
func writeVersion(t *testing.T, src, v string) {
	t.Helper()
	writeFile(t, filepath.Join(src, "main.go"), fmt.Sprintf(pluginSource, v))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// builds collects the builds reported through OnBuild.
type builds struct {
	mu   sync.Mutex
	list []devbuild.Build
}

func (b *builds) add(x devbuild.Build) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = append(b.list, x)
}

func (b *builds) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.list)
}

func (b *builds) get(i int) devbuild.Build {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.list[i]
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out after %v waiting for %s", d, what)
}

func TestBuildAll(t *testing.T) {
	t.Parallel()
	src, env := tempModule(t)
	out := filepath.Join(t.TempDir(), "plugins") // created by BuildAll
	got, err := devbuild.BuildAll(context.Background(), devbuild.Config{Sources: []string{src}, OutDir: out, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Err != nil || got[0].Plugin != "plug" || got[0].Output != filepath.Join(out, "plug") {
		t.Fatalf("builds = %+v", got)
	}
	fi, err := os.Stat(filepath.Join(out, "plug"))
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("output: %v, %v", fi, err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("plugin dir holds %d entries, want only the plugin", len(entries))
	}
}

// mainModule writes a module with the path module whose package at pkg
// (relative to dir, "" for the root) is an empty main package.
func mainModule(t *testing.T, dir, module, pkg string) string {
	t.Helper()
	src := filepath.Join(dir, pkg)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.mod"), "module "+module+"\n\ngo 1.26\n")
	writeFile(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() {}\n")
	return src
}

var moduleEnv = []string{"GOWORK=off", "GOFLAGS=-mod=mod"}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Two folders of other names whose packages both build "tool".
	one := mainModule(t, filepath.Join(dir, "alpha"), "example.com/tool", "")
	two := mainModule(t, filepath.Join(dir, "beta"), "example.com/other/tool/v2", "")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(empty, "go.mod"), "module example.com/empty\n")
	for _, tc := range []struct {
		name string
		cfg  devbuild.Config
		want string
	}{
		{"no sources", devbuild.Config{OutDir: dir}, "no plugin source folder"},
		{"no out dir", devbuild.Config{Sources: []string{dir}}, "no plugin dir to build into"},
		{"missing source", devbuild.Config{Sources: []string{filepath.Join(dir, "nope")}, OutDir: dir}, "no such file"},
		{"same names", devbuild.Config{Sources: []string{one, two}, OutDir: dir, Env: moduleEnv},
			"plugin sources " + one + " and " + two + " would both build tool"},
		{"no package", devbuild.Config{Sources: []string{empty}, OutDir: dir, Env: moduleEnv}, "plugin source " + empty + ": "},
	} {
		err := devbuild.Watch(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Watch: %v, want an error with %q", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// TestBinaryNameIsGoBuilds: harness dev names a plugin's binary exactly
// as `go build -o DIR/ .` in its folder does — for the module root, after
// the module's path (without a major version suffix), not after the
// folder it was checked out in — so that the two never put two files for
// one plugin in a plugin dir. Each case runs the real go build to compare.
func TestBinaryNameIsGoBuilds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, folder, module, pkg, want string
	}{
		{"module root in a folder of another name", "jsonq-checkout", "example.com/jsonq", "", "jsonq"},
		{"major version suffix", "src", "example.com/csvtool/v2", "", "csvtool"},
		{"v1 is not a suffix", "x", "example.com/tool/v1", "", "v1"},
		{"package in a module", "kit", "example.com/kit", "cmd/plug", "plug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := mainModule(t, filepath.Join(t.TempDir(), tc.folder), tc.module, tc.pkg)

			byGo := t.TempDir()
			cmd := exec.Command("go", "build", "-o", byGo+string(filepath.Separator), ".")
			cmd.Dir = src
			cmd.Env = append(os.Environ(), moduleEnv...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, b)
			}
			entries, err := os.ReadDir(byGo)
			if err != nil || len(entries) != 1 {
				t.Fatalf("go build -o DIR/ wrote %v (%v)", entries, err)
			}
			if entries[0].Name() != tc.want {
				t.Fatalf("go build -o DIR/ named it %s; the case expects %s", entries[0].Name(), tc.want)
			}

			out := t.TempDir()
			got, err := devbuild.BuildAll(context.Background(), devbuild.Config{Sources: []string{src}, OutDir: out, Env: moduleEnv})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Err != nil || got[0].Plugin != tc.want || got[0].Output != filepath.Join(out, tc.want) {
				t.Fatalf("builds = %+v, want the plugin %s", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, tc.want)); err != nil {
				t.Errorf("harness dev's binary: %v", err)
			}
		})
	}
}

// TestWatchRebuildsAndTheToolboxReloads is `harness dev` end to end: an
// edited source is rebuilt into the plugin dir and the toolbox, watching
// that dir, serves the new version; a build error is reported compactly
// and the last good version keeps serving.
func TestWatchRebuildsAndTheToolboxReloads(t *testing.T) {
	t.Parallel()
	src, env := tempModule(t)
	out := filepath.Join(t.TempDir(), "plugins")
	var logs, stderr syncBuffer
	done := &builds{}
	cfg := devbuild.Config{
		Sources:  []string{src},
		OutDir:   out,
		Logger:   hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug}),
		Stderr:   &stderr,
		Debounce: 50 * time.Millisecond,
		Env:      env,
		OnBuild:  done.add,
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s\nstderr:\n%s", logs.String(), stderr.String())
		}
	})
	first := cfg
	first.OnBuild = nil
	if b, err := devbuild.BuildAll(context.Background(), first); err != nil || b[0].Err != nil {
		t.Fatalf("BuildAll: %+v, %v", b, err)
	}
	tb, err := toolbox.Open(context.Background(), toolbox.Config{
		Dirs:     []string{out},
		CacheDir: filepath.Join(t.TempDir(), "cache"),
		Logger:   hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug, Name: "toolbox"}),
		Watch:    true,
		Debounce: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	version := func() string {
		return tb.Call(context.Background(), tool.Call{Name: "version", Args: `{}`}).Content
	}
	if v := version(); v != "v1" {
		t.Fatalf("version = %q", v)
	}

	ctx, cancel := context.WithCancel(context.Background())
	watchErr := make(chan error, 1)
	go func() { watchErr <- devbuild.Watch(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watchErr; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
	// Watch logs this line once its watches are in place (it asks go list
	// for the binary's name first, which takes a while on a busy machine).
	waitFor(t, "Watch to watch", 60*time.Second, func() bool { return strings.Contains(logs.String(), "watching plugin sources") })

	// An edit: rebuilt, reloaded.
	begin := time.Now()
	writeVersion(t, src, "v2")
	waitFor(t, "v2 to serve", 60*time.Second, func() bool { return version() == "v2" })
	t.Logf("edit → v2 serving: %v", time.Since(begin))
	if b := done.get(0); b.Err != nil || b.Plugin != "plug" || !strings.HasSuffix(b.Trigger, "main.go") {
		t.Errorf("build = %+v", b)
	}

	// A syntax error: reported compactly; v2 serves on.
	writeFile(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() {\n\tthis is not go\n}\n")
	waitFor(t, "the failed build", 60*time.Second, func() bool { return done.count() == 2 })
	b := done.get(1)
	var be *devbuild.BuildError
	if !errors.As(b.Err, &be) {
		t.Fatalf("failed build = %+v", b)
	}
	report := stderr.String()
	t.Logf("report:\n%s", report)
	lines := strings.Split(strings.TrimSpace(report), "\n")
	if !strings.HasPrefix(lines[0], "plugin plug: build failed after ") || len(lines) < 2 || len(lines) > 22 ||
		!strings.Contains(report, "main.go:4") || strings.Contains(report, "# example.com") {
		t.Errorf("report:\n%s", report)
	}
	time.Sleep(200 * time.Millisecond)
	if v := version(); v != "v2" {
		t.Errorf("after a failed build, version = %q, want v2", v)
	}

	// Fixed, in a new subfolder file too: rebuilt once more.
	writeVersion(t, src, "v3")
	waitFor(t, "v3 to serve", 60*time.Second, func() bool { return version() == "v3" })
	if err := os.Mkdir(filepath.Join(src, "internal"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := done.count()
	writeFile(t, filepath.Join(src, "internal", "notes.txt"), "a file in a new subfolder\n")
	waitFor(t, "a build after a change in a new subfolder", 60*time.Second, func() bool { return done.count() > n })

	// Test files and editor files do not trigger builds.
	time.Sleep(300 * time.Millisecond) // any build in progress ends
	n = done.count()
	writeFile(t, filepath.Join(src, "main_test.go"), "package main\n")
	if err := os.WriteFile(filepath.Join(src, "main.go~"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if got := done.count(); got != n {
		t.Errorf("%d builds after test and editor files, want none", got-n)
	}
	if !strings.Contains(logs.String(), "plugin built") {
		t.Errorf("no build logged")
	}
}
