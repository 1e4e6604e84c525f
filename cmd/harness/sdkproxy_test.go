package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/internal/modproxy"
	"github.com/harness-dev/harness/pluginapi"
)

// A third party gets the plugin SDK, module github.com/harness-dev/harness/
// pluginapi, through the go command's normal resolution of a tagged
// version (pluginapi/vX.Y.Z in this repository). The kit's tests here
// (TestPluginDoc, jsonqPlugin) make that resolution real without a network
// release: sdkProxy is a file-based module proxy (package modproxy)
// serving the version the docs name from the repository's tag
// pluginapi/VERSION (from the checkout's pluginapi/ when the tag is
// absent, e.g. a clone without tags; the test log says which).
// internal/modproxy's TestThirdPartyPath does the same on an empty module
// cache, and measures it.

// sdkModule is the SDK's module path.
const sdkModule = pluginapi.ModulePath

// proxyBuild caches the proxy built once per test process.
var proxyBuild struct {
	once    sync.Once
	dir     string // the proxy's root, for GOPROXY=file://dir
	version string
	served  modproxy.Served
	err     error
}

// sdkProxy returns a file-based module proxy serving pluginapi as
// version (which must name the protocol's major and minor), and what it
// serves.
func sdkProxy(t *testing.T, version string) (string, modproxy.Served) {
	t.Helper()
	proxyBuild.once.Do(func() {
		proxyBuild.version = version
		if proxyBuild.err = checkSDKVersion(version); proxyBuild.err != nil {
			return
		}
		if proxyBuild.dir, proxyBuild.err = testTempDir("sdk-proxy-"); proxyBuild.err != nil {
			return
		}
		proxyBuild.served, proxyBuild.err = modproxy.Build(proxyBuild.dir, repoRoot, "pluginapi", sdkModule, version)
	})
	if proxyBuild.err != nil {
		t.Fatal(proxyBuild.err)
	}
	if proxyBuild.version != version {
		t.Fatalf("the SDK proxy serves %s, this test asks for %s: the docs and the examples must name one version", proxyBuild.version, version)
	}
	t.Logf("the SDK proxy serves %s@%s from the %s", sdkModule, version, proxyBuild.served.Source)
	return proxyBuild.dir, proxyBuild.served
}

// checkSDKVersion fails unless version's major and minor are the plugin
// protocol's: the SDK's tag says which protocol revision it speaks.
func checkSDKVersion(version string) error {
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(version) {
		return fmt.Errorf("SDK version %q is not vMAJOR.MINOR.PATCH", version)
	}
	if want := fmt.Sprintf("v%d.%d.", pluginapi.ProtocolVersion, pluginapi.ProtocolMinor); !strings.HasPrefix(version, want) {
		return fmt.Errorf("SDK version %s does not speak plugin protocol %d.%d (want %sN): the SDK's major and minor are the protocol's (docs/releasing.md)",
			version, pluginapi.ProtocolVersion, pluginapi.ProtocolMinor, want)
	}
	return nil
}

// goEnv is `go env name`, as the go command would use it.
func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// sharedCache is the module cache the kit's tests share: empty at first,
// it takes the SDK from the proxy and the other modules from the user's
// module cache when it holds them, else from GOPROXY.
var sharedCache struct {
	once sync.Once
	dir  string
	err  error
}

// kitEnv is the environment of a third party's go command, on the shared
// module cache, with the SDK proxy serving version.
func kitEnv(t *testing.T, version string) []string {
	t.Helper()
	proxy, _ := sdkProxy(t, version)
	sharedCache.once.Do(func() { sharedCache.dir, sharedCache.err = testTempDir("kit-modcache-") })
	if sharedCache.err != nil {
		t.Fatal(sharedCache.err)
	}
	var fallbacks []string
	if mc := goEnv("GOMODCACHE"); mc != "" {
		if _, err := os.Stat(filepath.Join(mc, "cache", "download")); err == nil {
			fallbacks = append(fallbacks, "file://"+filepath.ToSlash(filepath.Join(mc, "cache", "download")))
		}
	}
	return modproxy.Env(os.Environ(), proxy, sharedCache.dir, sdkModule, goEnv("GOPROXY"), fallbacks...)
}

// requiredSDK returns the SDK version the go.mod in dir requires, and
// fails if that go.mod has a replace directive.
func requiredSDK(t *testing.T, dir string) string {
	t.Helper()
	v, err := modproxy.Required(dir, sdkModule)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// copyOutside copies the module in src, which requires a tagged SDK with
// no replace directive, to a temp dir outside the repository and returns
// the copy:
// its go.sum's lines for the SDK are kept and must be the served tag's
// (modproxy.Copy; the go command checks the download against them).
func copyOutside(t *testing.T, src string) string {
	t.Helper()
	version := requiredSDK(t, src)
	_, served := sdkProxy(t, version)
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	kept, err := modproxy.Copy(src, dst, sdkModule, version, served)
	if err != nil {
		t.Fatal(err)
	}
	if !kept {
		t.Logf("%s/go.sum's lines for %s@%s are not the checkout's zip (%s): dropped, go mod download adds them", src, sdkModule, version, served.Source)
	}
	return dst
}
