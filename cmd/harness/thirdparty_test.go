package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
)

// hostOnlyModules are modules the host needs and a plugin must never pull
// in: the plugin SDK's dependency graph is go-plugin, gRPC, protobuf and
// hclog (and what they need).
var hostOnlyModules = []string{
	"github.com/harness-dev/harness ", // the host module itself
	"github.com/coder/acp-go-sdk",
	"github.com/fsnotify/fsnotify",
	"github.com/modelcontextprotocol/go-sdk",
	"github.com/go-git/go-git",
	"mvdan.cc/sh",
	"github.com/BurntSushi/toml",
}

// TestThirdPartyPath builds examples/plugins/jsonq as an outside team
// would: a copy outside this repository whose go.mod requires a tagged
// pluginapi version with no replace directive, on an empty module cache,
// the SDK resolved by the go command through a module proxy built from
// this checkout (sdkProxy) and everything else through GOPROXY. It runs
// the jsonq README's commands (go vet, go test, go build -o DIR/), checks
// the plugin's dependency graph holds no host-only module, runs `harness
// plugins check` on the binary, and checks `harness plugins` shows the
// SDK version the plugin was built with. It logs the first build's time
// and the module cache's size, the figures docs/plugins.md quotes.
func TestThirdPartyPath(t *testing.T) {
	t.Parallel()
	version := requiredSDK(t, jsonqExample)
	proxy := sdkProxy(t, version)
	modcache := t.TempDir() // empty: nothing is cached
	env := outsideEnv(proxy, modcache)
	mod := copyOutside(t, jsonqExample)
	gocmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in a copy of examples/plugins/jsonq: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// What the go command adds to go.sum for the SDK, as a third party
	// runs it after copying the example.
	gocmd("mod", "download", sdkModule)
	sumLines(t, mod, filepath.Join(jsonqExample, "go.sum"))

	pluginDir := filepath.Join(t.TempDir(), "harness-plugins")
	start := time.Now()
	gocmd("build", "-o", pluginDir+string(filepath.Separator), ".")
	t.Logf("first build of jsonq on an empty module cache (downloads included): %v; module cache %s",
		time.Since(start).Round(100*time.Millisecond), duSize(t, modcache))

	graph := gocmd("list", "-m", "all")
	if !strings.Contains(graph, sdkModule+" "+version+"\n") {
		t.Errorf("go list -m all lacks %s %s:\n%s", sdkModule, version, graph)
	}
	for _, host := range hostOnlyModules {
		if strings.Contains(graph, "\n"+host) {
			t.Errorf("a plugin's dependency graph holds the host-only module %s:\n%s", strings.TrimSpace(host), graph)
		}
	}
	t.Logf("go list -m all: %d modules\n%s", strings.Count(graph, "\n"), graph)

	gocmd("vet", "./...")
	gocmd("test", "./...")

	bin := filepath.Join(pluginDir, "jsonq")
	wantChecksPass(t, bin, "jsonq 0.1.0")
	code, out, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": t.TempDir()}, "plugins", "--plugin-dir", pluginDir)
	if code != exitOK {
		t.Fatalf("harness plugins: exit %d\n%s\n%s", code, out, errOut)
	}
	if !regexp.MustCompile(`(?m)^jsonq\s+0\.1\.0\s+` + regexp.QuoteMeta(version) + `\s`).MatchString(out) {
		t.Errorf("harness plugins does not show the SDK jsonq was built with (%s):\n%s", version, out)
	}
}

// sumLines logs (it is no failure before a release) when the SDK's lines
// the go command wrote in mod's go.sum differ from those committed in
// committed: docs/releasing.md refreshes them once the tag is published.
func sumLines(t *testing.T, mod, committed string) {
	t.Helper()
	lines := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, sdkModule+" ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	got, want := lines(filepath.Join(mod, "go.sum")), lines(committed)
	if got == "" {
		t.Fatalf("go mod download %s wrote no go.sum line", sdkModule)
	}
	if got != want {
		t.Logf("%s's SDK lines differ from this checkout's pluginapi (fine before a release):\n%s", committed, got)
	}
}

// duSize is the size of the files under dir, for the docs' figures.
func duSize(t *testing.T, dir string) string {
	t.Helper()
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// TestVersionShowsSDK checks that `harness version` names the plugin
// protocol the host speaks and the SDK module version it was built with
// (in this repository, the folder next to it: "+replaced").
func TestVersionShowsSDK(t *testing.T) {
	t.Parallel()
	code, out, errOut := harness(t, map[string]string{}, "version")
	if code != exitOK {
		t.Fatalf("harness version: exit %d\n%s", code, errOut)
	}
	want := fmt.Sprintf("plugin protocol %d.%d, %s v%d.%d.", pluginapi.ProtocolVersion, pluginapi.ProtocolMinor, sdkModule, pluginapi.ProtocolVersion, pluginapi.ProtocolMinor)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "harness ") || !strings.HasPrefix(lines[1], want) || !strings.HasSuffix(lines[1], "+replaced") {
		t.Errorf("harness version =\n%s\nwant a second line %q…\"+replaced\"", out, want)
	}
}
