package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
)

// A third party gets the plugin SDK, module github.com/harness-dev/harness/
// pluginapi, through the go command's normal resolution of a tagged
// version (pluginapi/vX.Y.Z in this repository). The tests here make that
// resolution real without a network release: sdkProxy builds a file-based
// module proxy (GOPROXY=file://DIR) serving this checkout's pluginapi/
// folder — the files a commit would hold, as `git ls-files` names them —
// under the version the docs name, with the @v/list, .info, .mod and .zip
// files the go command asks for. Every other module comes through the
// user's GOPROXY. No replace directive is involved.

// sdkModule is the SDK's module path.
const sdkModule = pluginapi.ModulePath

// proxyBuild caches the proxy built once per test process.
var proxyBuild struct {
	once    sync.Once
	dir     string // the proxy's root, for GOPROXY=file://dir
	version string
	err     error
}

// sdkProxy returns a file-based module proxy serving this checkout's
// pluginapi as version (which must name the protocol's major and minor).
func sdkProxy(t *testing.T, version string) string {
	t.Helper()
	proxyBuild.once.Do(func() {
		proxyBuild.version = version
		proxyBuild.dir, proxyBuild.err = buildSDKProxy(version)
	})
	if proxyBuild.err != nil {
		t.Fatal(proxyBuild.err)
	}
	if proxyBuild.version != version {
		t.Fatalf("the SDK proxy serves %s, this test asks for %s: the docs and the examples must name one version", proxyBuild.version, version)
	}
	return proxyBuild.dir
}

// sdkVersionRE is a release version of the SDK.
var sdkVersionRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)$`)

// checkSDKVersion fails unless version's major and minor are the plugin
// protocol's: the SDK's tag says which protocol revision it speaks.
func checkSDKVersion(version string) error {
	m := sdkVersionRE.FindStringSubmatch(version)
	if m == nil {
		return fmt.Errorf("SDK version %q is not vMAJOR.MINOR.PATCH", version)
	}
	if want := fmt.Sprintf("v%d.%d.", pluginapi.ProtocolVersion, pluginapi.ProtocolMinor); !strings.HasPrefix(version, want) {
		return fmt.Errorf("SDK version %s does not speak plugin protocol %d.%d (want %sN): the SDK's major and minor are the protocol's (docs/releasing.md)",
			version, pluginapi.ProtocolVersion, pluginapi.ProtocolMinor, want)
	}
	return nil
}

func buildSDKProxy(version string) (string, error) {
	if err := checkSDKVersion(version); err != nil {
		return "", err
	}
	root, err := filepath.Abs(filepath.Join(repoRoot, "pluginapi"))
	if err != nil {
		return "", err
	}
	files, err := moduleFiles(root)
	if err != nil {
		return "", err
	}
	dir, err := testTempDir("sdk-proxy-")
	if err != nil {
		return "", err
	}
	at := filepath.Join(dir, filepath.FromSlash(sdkModule), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, name := range files {
		w, err := zw.Create(sdkModule + "@" + version + "/" + name)
		if err != nil {
			return "", err
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		_, err = io.Copy(w, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("zip %s: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  zb.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// moduleFiles lists the files of the module in root as a commit would hold
// them — tracked, or new and not ignored (git ls-files) — slash-separated
// and relative to root. A module zip holds regular files only.
func moduleFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", ".")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list pluginapi's files (git ls-files in %s; the proxy needs git): %w", root, err)
	}
	var files []string
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet in the index
			}
			return nil, err
		}
		if fi.Mode().IsRegular() {
			files = append(files, name)
		}
	}
	slices.Sort(files)
	if !slices.Contains(files, "go.mod") {
		return nil, fmt.Errorf("pluginapi's files lack go.mod: %v", files)
	}
	return files, nil
}

// outsideEnv is the environment of a go command run as a third party's,
// on the module cache modcache: GOPROXY tries the SDK proxy first, then
// fallbacks (the user's GOPROXY at the end); the SDK is not in the
// checksum database before its release, so GONOSUMDB names it; the cache
// is writable (-modcacherw), so that the test's temp dir can be removed.
func outsideEnv(proxy, modcache string, fallbacks ...string) []string {
	goproxy := "file://" + filepath.ToSlash(proxy)
	for _, f := range fallbacks {
		goproxy += "," + f
	}
	goproxy += "," + goEnv("GOPROXY")
	return append(os.Environ(),
		"GOPROXY="+goproxy,
		"GONOSUMDB="+sdkModule,
		"GOMODCACHE="+modcache,
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -modcacherw"),
		"GOWORK=off",
	)
}

// goEnv is `go env name`, as the go command would use it.
func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// sharedCache is a module cache the kit's tests share (TestPluginDoc,
// jsonqPlugin): empty at first, it takes the SDK from the proxy and the
// other modules from the user's module cache when it holds them, else from
// GOPROXY. TestThirdPartyPath uses an empty cache of its own instead.
var sharedCache struct {
	once sync.Once
	dir  string
	err  error
}

// kitEnv is outsideEnv on the shared module cache.
func kitEnv(t *testing.T, version string) []string {
	t.Helper()
	proxy := sdkProxy(t, version)
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
	return outsideEnv(proxy, sharedCache.dir, fallbacks...)
}

// requiredSDK returns the version of the SDK the go.mod in dir requires,
// and fails if that go.mod has a replace directive: a third party's module
// has none.
func requiredSDK(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?m)^\s*replace\b`).Match(b) {
		t.Fatalf("%s/go.mod has a replace directive; a third party's module has none:\n%s", dir, b)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(sdkModule) + `\s+(v\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s/go.mod does not require %s:\n%s", dir, sdkModule, b)
	}
	return string(m[1])
}

// copyOutside copies the module in src to a temp dir outside the
// repository, without the SDK's lines in go.sum (the go command adds them
// from the proxy: before a release, this checkout's pluginapi is not the
// tagged one byte for byte), and returns the copy.
func copyOutside(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel == "go.sum" {
			var keep []string
			for _, line := range strings.SplitAfter(string(b), "\n") {
				if !strings.HasPrefix(line, sdkModule+" ") {
					keep = append(keep, line)
				}
			}
			b = []byte(strings.Join(keep, ""))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
