//go:build linux

package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness-dev/harness/sandbox"
)

// web is an HTTP server the test runs on addr (a loopback address of the
// machine, outside every sandbox) that answers "hello from <addr>" and
// counts the connections it accepted.
type web struct {
	port  int
	conns atomic.Int64
}

func serveWeb(t *testing.T, addr string) *web {
	t.Helper()
	ln, err := net.Listen("tcp4", addr+":0")
	if err != nil {
		t.Fatal(err)
	}
	w := &web{port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { fmt.Fprintf(rw, "hello from %s\n", addr) }),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				w.conns.Add(1)
			}
		},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return w
}

// TestSandboxAllowList: with the network an allow-list of 127.0.0.2 the
// real plugin's commands reach a listener the test runs on 127.0.0.2
// only through harness's proxy — curl and python3 by the proxy
// variables the command gets, curl through a CONNECT tunnel — while a
// listener on 127.0.0.1 (the machine's: the namespace has its own
// loopback) is refused by the proxy, with a result saying so and how to
// ask, and is never connected to; a direct connection without the proxy
// and the proxy's socket used by hand get nowhere. A port rule
// ("127.0.0.2:<port>") refuses the same address's other port. In the
// fallback without namespaces the allow-list cannot be had: no network
// at all, and the result says why.
func TestSandboxAllowList(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine") // the proxy's own tests (sandbox/netproxy) still run
	}
	// Each case has listeners of its own: A, the allowed one on
	// 127.0.0.2; O, another port of 127.0.0.2; H, one on 127.0.0.1.
	// {A}, {O}, {H} in a line or a list are their ports.
	tests := []struct {
		name, list string
		env        []string
		line, out  string // out: in the result
		reached    string // the listener the command must reach; "": none
		never      string // listeners that must see no connection
	}{
		{"curl by the variables", "127.0.0.2", nil, "curl -sS http://127.0.0.2:{A}/", "hello from 127.0.0.2", "A", "OH"},
		{"curl through CONNECT", "127.0.0.2", nil, "curl -sS --proxytunnel http://127.0.0.2:{A}/", "hello from 127.0.0.2", "A", "OH"},
		{"python3 urllib", "127.0.0.2", nil,
			`python3 -c "import urllib.request as u; print(u.urlopen('http://127.0.0.2:{A}/', timeout=20).read().decode())"`,
			"hello from 127.0.0.2", "A", "OH"},
		{"the proxy variables", "127.0.0.2", nil, `echo "$HTTPS_PROXY $http_proxy $NO_PROXY"`, "http://127.0.0.1:", "", "AOH"},
		{"a host not on the list", "127.0.0.2", nil, "curl -sS --noproxy '' http://127.0.0.1:{H}/",
			"[the sandbox's network proxy refused 127.0.0.1:{H}: not on the network allow-list (127.0.0.2). Only the user can allow another host", "", "AOH"},
		{"a name not on the list, https", "127.0.0.2", nil, "curl -sS https://example.com/",
			"refused example.com:443: not on the network allow-list", "", "AOH"},
		{"another port of a listed address", "127.0.0.2:{A}", nil, "curl -sS http://127.0.0.2:{O}/", "refused 127.0.0.2:{O}", "", "AOH"},
		{"no proxy, direct", "127.0.0.2", nil, "curl -sS --noproxy '*' http://127.0.0.2:{A}/",
			"the network only to 127.0.0.2 through the proxy", "", "AOH"},
		{"the proxy's socket by hand", "127.0.0.1", nil,
			`for s in $(dirname "$TMPDIR")/net-*.sock; do curl -sS --unix-socket "$s" http://127.0.0.1:{H}/; done`,
			"absolute http:// URLs only", "", "AOH"},
		{"fallback: no namespace, no network", "127.0.0.2", []string{envNoNamespace + "=1"}, "curl -sS http://127.0.0.2:{A}/",
			"no network: the allow-list 127.0.0.2 needs a network namespace of its own", "", "AOH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(tt.line, "python3") {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("no python3 on this machine")
				}
			}
			webs := map[string]*web{"A": serveWeb(t, "127.0.0.2"), "O": serveWeb(t, "127.0.0.2"), "H": serveWeb(t, "127.0.0.1")}
			ports := strings.NewReplacer("{A}", strconv.Itoa(webs["A"].port), "{O}", strconv.Itoa(webs["O"].port), "{H}", strconv.Itoa(webs["H"].port))
			s := newSandboxed(t, sandbox.WorkspaceWrite, 0, append(tt.env, envSandboxNetwork+"="+ports.Replace(tt.list))...)
			got := s.exec(t, call{args: map[string]any{"command": ports.Replace(tt.line), "timeout_ms": 60000}}).Content
			if want := ports.Replace(tt.out); !strings.Contains(got, want) {
				t.Errorf("the result lacks %q:\n%s", want, got)
			}
			for name, w := range webs {
				n := w.conns.Load()
				switch {
				case name == tt.reached && n == 0:
					t.Errorf("listener %s got no connection:\n%s", name, got)
				case name != tt.reached && strings.Contains(tt.never, name) && n != 0:
					t.Errorf("listener %s got %d connections:\n%s", name, n, got)
				}
			}
		})
	}
}

// BenchmarkTrueAllowList is BenchmarkTrueSandboxed's workspace-write
// `true` with the network off and with an allow-list (a network
// namespace either way; with the list, a proxy socket per command and
// the init's forwarder).
func BenchmarkTrueAllowList(b *testing.B) {
	for _, n := range []string{"off", "127.0.0.1,*.example.com"} {
		b.Run("network="+n, func(b *testing.B) {
			benchTrue(b, 20*time.Millisecond, envSandbox+"=workspace-write", envSandboxNetwork+"="+n)
		})
	}
}

// TestSandboxAllowListBackground: a background task's connections go
// through the proxy too, and bash_output names what it refused once the
// task ended.
func TestSandboxAllowListBackground(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine")
	}
	allowed, host := serveWeb(t, "127.0.0.2"), serveWeb(t, "127.0.0.1")
	s := newSandboxed(t, sandbox.WorkspaceWrite, 0, envSandboxNetwork+"=127.0.0.2")
	id, _ := s.startTask(t, "", fmt.Sprintf("curl -sS http://127.0.0.2:%d/; curl -sS --noproxy '' http://127.0.0.1:%d/", allowed.port, host.port))
	got, _ := s.readUntil(t, id, func(_, status string) bool { return strings.HasPrefix(status, "exited") })
	for _, want := range []string{"hello from 127.0.0.2", fmt.Sprintf("the sandbox's network proxy refused 127.0.0.1:%d", host.port)} {
		if !strings.Contains(got, want) {
			t.Errorf("bash_output lacks %q:\n%s", want, got)
		}
	}
	if host.conns.Load() != 0 || allowed.conns.Load() == 0 {
		t.Errorf("connections: allowed %d, 127.0.0.1 %d", allowed.conns.Load(), host.conns.Load())
	}
}

// TestProxySocketsSwept: the first command's socket sweeps what a killed
// plugin left (its pid gone), not another live plugin's; the command's
// own socket goes once it is closed.
func TestProxySocketsSwept(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "private")
	if err := ensurePrivate(dir); err != nil {
		t.Fatal(err)
	}
	dead, live := filepath.Join(dir, "net-999999999-1.sock"), filepath.Join(dir, "net-1-1.sock")
	for _, f := range []string{dead, live} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	x := newProxies("a.example", dir)
	c, err := x.open()
	if err != nil {
		t.Fatal(err)
	}
	if exists(dead) || !exists(live) || !exists(c.path) {
		t.Errorf("after the first open: dead left %v, live kept %v, own socket %v", exists(dead), exists(live), exists(c.path))
	}
	c.close()
	if exists(c.path) {
		t.Errorf("the closed socket %s is still there", c.path)
	}
}
