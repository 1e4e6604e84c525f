package modproxy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/modproxy"
	"github.com/harness-dev/harness/pluginapi"
)

const (
	repoRoot     = "../.."
	jsonqExample = repoRoot + "/examples/plugins/jsonq"
	sdkModule    = pluginapi.ModulePath
)

// TestThirdPartyPath builds examples/plugins/jsonq as an outside team
// would: a copy outside this repository whose go.mod requires a tagged
// pluginapi version with no replace directive, on an empty module cache,
// with -mod=readonly, the SDK resolved by the go command through a module
// proxy built from the repository's tag pluginapi/VERSION (the checkout's
// pluginapi/ when the tag is absent: the log says which) and everything
// else through the user's GOPROXY. The copy's go.sum keeps jsonq's lines
// for the SDK, which must be the tag's: the go command checks the
// download against them (GONOSUMDB names the SDK, which is in no public
// checksum database from here; go.sum is not skipped). It runs the jsonq
// README's commands (go test, go build -o DIR/, harness plugins check)
// and go vet, checks that the plugin's packages and module graph hold no
// host-only module, and that `harness plugins` shows the SDK version the
// plugin was built with. It logs the first build's time and the module
// cache's size, the figures docs/plugins.md quotes
// (go test -count=1 -run TestThirdPartyPath -v ./internal/modproxy).
func TestThirdPartyPath(t *testing.T) {
	t.Parallel()
	version, err := modproxy.Required(jsonqExample, sdkModule)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("v%d.%d.", pluginapi.ProtocolVersion, pluginapi.ProtocolMinor); !strings.HasPrefix(version, want) {
		t.Fatalf("jsonq requires SDK %s, which does not speak plugin protocol %d.%d (want %sN; docs/releasing.md)", version, pluginapi.ProtocolVersion, pluginapi.ProtocolMinor, want)
	}
	tmp := t.TempDir()
	harness := buildHarness(t, tmp)
	proxy := filepath.Join(tmp, "proxy")
	served, err := modproxy.Build(proxy, repoRoot, "pluginapi", sdkModule, version)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the proxy serves %s@%s from the %s: %s", sdkModule, version, served.Source, strings.Join(modproxy.SumLines(sdkModule, version, served), "; "))
	modcache := filepath.Join(tmp, "modcache") // empty: nothing is cached
	env := modproxy.Env(os.Environ(), proxy, modcache, sdkModule, goEnv(t, "GOPROXY"))
	// harness keeps its state and reads its config in the temp dir.
	env = append(env, "HARNESS_STATE_DIR="+filepath.Join(tmp, "state"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
	mod := filepath.Join(tmp, "jsonq")
	kept, err := modproxy.Copy(jsonqExample, mod, sdkModule, version, served)
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = mod
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s in a copy of examples/plugins/jsonq: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if kept {
		t.Logf("go.sum's lines for the SDK are checked: examples/plugins/jsonq/go.sum holds what the proxy serves")
	} else {
		// Only without the tag, when pluginapi/ changed since it or the
		// version is not released: the served zip is not the release's.
		t.Logf("go.sum's lines for the SDK differ from the checkout's zip (no tag %s): dropped, go mod download adds the served ones", "pluginapi/"+version)
		run("go", "mod", "download", sdkModule)
	}

	pluginDir := filepath.Join(tmp, "harness-plugins")
	start := time.Now()
	run("go", "build", "-o", pluginDir+string(filepath.Separator), ".")
	t.Logf("first build of jsonq on an empty module cache (downloads included): %v; module cache %s",
		time.Since(start).Round(100*time.Millisecond), duSize(modcache))

	// The packages the plugin links, by module.
	deps := strings.Fields(run("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "."))
	if host := modproxy.HostOnly(deps); len(host) > 0 {
		t.Errorf("jsonq links packages of the host-only modules %q", host)
	}
	if !slices.Contains(deps, sdkModule) {
		t.Errorf("go list -deps of jsonq names no package of %s: %q", sdkModule, deps)
	}
	// The module graph, which go mod download fetches go.mod files of.
	graph := run("go", "list", "-m", "all")
	mods := map[string]string{}
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(graph), "\n") {
		path, v, _ := strings.Cut(line, " ")
		mods[path] = v
		paths = append(paths, path)
	}
	if mods[sdkModule] != version {
		t.Errorf("go list -m all names %s %q, want %s:\n%s", sdkModule, mods[sdkModule], version, graph)
	}
	if host := modproxy.HostOnly(paths); len(host) > 0 {
		t.Errorf("a plugin's module graph holds the host-only modules %q:\n%s", host, graph)
	}
	t.Logf("go list -m all: %d modules\n%s", len(mods), graph)

	run("go", "vet", "./...")
	run("go", "test", "./...")

	bin := filepath.Join(pluginDir, "jsonq")
	out := run(harness, "plugins", "check", bin)
	if !strings.Contains(out, "ok: jsonq 0.1.0 passed") {
		t.Errorf("harness plugins check %s:\n%s", bin, out)
	}
	out = run(harness, "plugins", "--plugin-dir", pluginDir)
	if !regexp.MustCompile(`(?m)^jsonq\s+0\.1\.0\s+` + regexp.QuoteMeta(version) + `\s`).MatchString(out) {
		t.Errorf("harness plugins does not show the SDK jsonq was built with (%s):\n%s", version, out)
	}
}

// buildHarness builds cmd/harness into dir, as the README does.
func buildHarness(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/harness")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/harness: %v\n%s", err, out)
	}
	return filepath.Join(dir, "harness")
}

// goEnv is `go env name`.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// duSize is the size of the files under dir, for the docs' figures.
func duSize(dir string) string {
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
