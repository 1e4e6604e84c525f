package pluginhost_test

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

func TestPluginEnv(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/u",
		"LANG=C.UTF-8",
		"LC_ALL=C",
		"LC_AUTH_TOKEN=lc-secret",
		"XDG_RUNTIME_DIR=/run/user/1000",
		"XDG_SESSION_COOKIE=xdg-secret",
		"XDG_SESSION_TYPE=x11",
		"TERM=xterm",
		"TMPDIR=/tmp/u",
		"HTTPS_PROXY=http://proxy:3128",
		"http_proxy=http://bob:hunter2@proxy:3128",
		"ALL_PROXY=bob:hunter2@proxy:1080",
		"NO_PROXY=localhost,127.0.0.1",
		"OPENAI_API_KEY=sk-xxx",
		"DATABASE_URL=postgres://app:pw@db/app",
		"GH_PAT=ghp_xxx",
		"HARNESS_API_KEY=hk",
		"HARNESS_PLUGIN_DEBUG=1",
		"GOFLAGS=-mod=mod",
		"GOAUTH=git dir",
		"JAVA_HOME=/usr/lib/jvm/java-21",
		"MY_TOKEN=t",
		"malformed",
		"=nameless",
	}
	tests := []struct {
		name        string
		pass        []string
		want        []string
		wantDropped []string
	}{
		{
			name: "defaults",
			want: []string{"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "XDG_RUNTIME_DIR=/run/user/1000",
				"XDG_SESSION_TYPE=x11", "TERM=xterm", "TMPDIR=/tmp/u", "HTTPS_PROXY=http://proxy:3128", "NO_PROXY=localhost,127.0.0.1",
				"GOFLAGS=-mod=mod", "JAVA_HOME=/usr/lib/jvm/java-21"},
			wantDropped: []string{"http_proxy", "ALL_PROXY"},
		},
		{
			name: "user names and prefixes",
			pass: []string{"GOFLAGS", "MY_*", "http_proxy"},
			want: []string{"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "XDG_RUNTIME_DIR=/run/user/1000",
				"XDG_SESSION_TYPE=x11", "TERM=xterm", "TMPDIR=/tmp/u", "HTTPS_PROXY=http://proxy:3128", "http_proxy=http://bob:hunter2@proxy:3128",
				"NO_PROXY=localhost,127.0.0.1", "GOFLAGS=-mod=mod", "JAVA_HOME=/usr/lib/jvm/java-21", "MY_TOKEN=t"},
			wantDropped: []string{"ALL_PROXY"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, dropped := pluginhost.PluginEnv(environ, tt.pass)
			if !slices.Equal(got, tt.want) {
				t.Errorf("env:\n got %q\nwant %q", got, tt.want)
			}
			if !slices.Equal(dropped, tt.wantDropped) {
				t.Errorf("dropped: got %q, want %q", dropped, tt.wantDropped)
			}
		})
	}
}

func TestCheckEnvNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		names []string
		ok    bool
	}{
		{nil, true},
		{[]string{"GOFLAGS", "_X1", "AWS_*", "go_path"}, true},
		{[]string{""}, false},
		{[]string{"*"}, false},
		{[]string{"A=B"}, false},
		{[]string{"1ABC"}, false},
		{[]string{"A*B"}, false},
		{[]string{"A B"}, false},
		{[]string{"A-B"}, false},
	}
	for _, tt := range tests {
		err := pluginhost.CheckEnvNames(tt.names)
		if (err == nil) != tt.ok {
			t.Errorf("CheckEnvNames(%q) = %v, want ok %v", tt.names, err, tt.ok)
		}
	}
}

// TestLaunchEnv reads the real environment of a launched plugin process
// (/proc/<pid>/environ): the host's secrets are not in it, the defaults,
// PassEnv and the launcher's variables are. Not parallel: it sets the
// host's environment.
func TestLaunchEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/<pid>/environ")
	}
	t.Setenv("OPENAI_API_KEY", "sk-launch-env-secret-1")
	t.Setenv("DATABASE_URL", "postgres://app:launch-env-secret-2@db/app")
	t.Setenv("HTTPS_PROXY", "http://bob:launch-env-secret-3@proxy:3128")
	t.Setenv("PLUGINAPI_PASSED", "passed-value")
	t.Setenv("HOME", "/home/launch-env")
	environ := func(t *testing.T, c *pluginhost.Client) map[string]string {
		t.Helper()
		b, err := os.ReadFile("/proc/" + strconv.Itoa(c.PID()) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"launch-env-secret-1", "launch-env-secret-2", "launch-env-secret-3"} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("the plugin's environment holds the host's secret %q", s)
			}
		}
		m := map[string]string{}
		for _, kv := range strings.Split(string(b), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	t.Run("default", func(t *testing.T) {
		env := environ(t, launch(t, "testplugin", func(c *pluginhost.LaunchConfig) {
			c.PassEnv = []string{"PLUGINAPI_PASSED"}
			c.Env = []string{"EXTRA=1"}
		}))
		want := map[string]string{"HOME": "/home/launch-env", "PATH": os.Getenv("PATH"), "PLUGINAPI_PASSED": "passed-value",
			"EXTRA": "1", pluginapi.EnvExitOnStdinEOF: "1", pluginapi.MagicCookieKey: pluginapi.MagicCookieValue}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("plugin's %s = %q, want %q", k, env[k], v)
			}
		}
		for _, k := range []string{"OPENAI_API_KEY", "DATABASE_URL", "HTTPS_PROXY"} {
			if _, ok := env[k]; ok {
				t.Errorf("plugin has %s", k)
			}
		}
		if _, ok := env["PLUGIN_PROTOCOL_VERSIONS"]; !ok {
			t.Errorf("plugin lacks go-plugin's PLUGIN_PROTOCOL_VERSIONS: %v", env)
		}
	})
	t.Run("skip host env", func(t *testing.T) {
		env := environ(t, launch(t, "testplugin", func(c *pluginhost.LaunchConfig) {
			c.SkipHostEnv = true
			c.PassEnv = []string{"PLUGINAPI_PASSED"}
		}))
		for _, k := range []string{"HOME", "PATH", "PLUGINAPI_PASSED"} {
			if _, ok := env[k]; ok {
				t.Errorf("plugin has %s with SkipHostEnv", k)
			}
		}
		if env[pluginapi.MagicCookieKey] != pluginapi.MagicCookieValue {
			t.Errorf("plugin lacks the magic cookie")
		}
	})
}
