package modproxy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/internal/modproxy"
	"github.com/harness-dev/harness/pluginapi"
)

// sdkV13 is the commit the plugin SDK v1.3.0 (protocol minor 3) is served
// from: the parent of e3e03e1, the last commit before minor 4.
const (
	sdkV13Commit  = "c267764b5ebbb3ed0c386872c4162ed4413e4111"
	sdkV13Version = "v1.3.0"
	oldPlugin     = "testdata/oldplugin"
)

// TestOldPlugin builds testdata/oldplugin, a plugin whose go.mod requires
// the SDK v1.3.0 with no replace directive, through a module proxy serving
// v1.3.0 from its commit (the other modules from the module cache's
// downloads: no network), with -mod=readonly and the go.sum it holds,
// then runs it in today's toolbox: the protocol is additive, so a plugin
// before minor 5 still works. It declares no preview (minor 3), so the
// host asks it for a preview of every call as before: its tool with a
// preview previews each call, and every call comes back with its result.
// It needs the repository's history (CI clones main in full); a shallow
// clone fails with a message saying so.
func TestOldPlugin(t *testing.T) {
	t.Parallel()
	api, err := exec.Command("git", "-C", repoRoot, "show", sdkV13Commit+":pluginapi/api.go").Output()
	if err != nil {
		t.Fatalf("the SDK v1.3.0's commit %s is not in this clone (a shallow clone? git fetch --unshallow): %v", sdkV13Commit, err)
	}
	if !strings.Contains(string(api), "const ProtocolMinor = 3\n") {
		t.Fatalf("commit %s's pluginapi/api.go does not say ProtocolMinor = 3", sdkV13Commit)
	}
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	start := time.Now()
	served, err := modproxy.BuildAt(proxy, repoRoot, "pluginapi", sdkModule, sdkV13Version, sdkV13Commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the proxy serves %s@%s from the %s: %s", sdkModule, sdkV13Version, served.Source,
		strings.Join(modproxy.SumLines(sdkModule, sdkV13Version, served), "; "))
	mod := filepath.Join(tmp, "oldplugin")
	if _, err := modproxy.Copy(oldPlugin, mod, sdkModule, sdkV13Version, served); err != nil {
		t.Fatal(err)
	}
	// The other modules come from the module cache's downloads, as the
	// host module's own build fetched them; nothing from the network.
	modcache := goEnv(t, "GOMODCACHE")
	env := modproxy.Env(os.Environ(), proxy, modcache, sdkModule, "off", "file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download")))
	bin := filepath.Join(tmp, "plugins")
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator), ".")
	cmd.Dir, cmd.Env = mod, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in a copy of %s: %v\n%s", oldPlugin, err, out)
	}
	t.Logf("served and built in %v", time.Since(start).Round(100*time.Millisecond))

	tb, err := toolbox.Open(t.Context(), toolbox.Config{
		Dirs:        []string{bin},
		CacheDir:    filepath.Join(tmp, "state", "plugins", "cache"),
		Logger:      hclog.New(&hclog.LoggerOptions{Output: t.Output(), Level: hclog.Warn}),
		HostVersion: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := tb.Close(); err != nil {
			t.Errorf("close the toolbox: %v", err)
		}
	}()
	tools := map[string]tool.Tool{}
	for _, tl := range tb.Tools() {
		tools[tl.Spec.Name] = tl
	}
	for _, name := range []string{"echo", "note", "previews"} {
		if tl, ok := tools[name]; !ok || !tl.HasPreview {
			t.Errorf("tool %s: %+v; want it listed, asked for previews (minor 3 declares none)", name, tl)
		}
	}
	ctx := context.Background()
	const calls = 2
	for i := range calls {
		for _, tc := range []struct{ tool, title, content string }{
			{"echo", "", "hi"},
			{"note", "Note hi", "noted hi"},
		} {
			c := tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), Turn: 1, CallID: tc.tool + string(rune('0'+i)),
				Name: tc.tool, Args: `{"text":"hi"}`, Cwd: tmp}
			if m := tb.Preview(ctx, c); m.Title != tc.title {
				t.Errorf("preview of %s titled %q, want %q", tc.tool, m.Title, tc.title)
			}
			if r := tb.Call(ctx, c); r.IsError || r.Content != tc.content {
				t.Errorf("call %s = %+v, want %q", tc.tool, r, tc.content)
			}
		}
	}
	r := tb.Call(ctx, tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), CallID: "count", Name: "previews", Args: `{}`, Cwd: tmp})
	if want := "2"; r.Content != want {
		t.Errorf("the plugin made %q previews of note after %d calls, want %s", r.Content, calls, want)
	}
}
