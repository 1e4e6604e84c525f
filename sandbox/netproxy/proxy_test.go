package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/sandbox"
)

// backend is an HTTP server on 127.0.0.1 that answers "hello <path>".
func backend(t *testing.T) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s host=%s xff=%q", r.URL.Path, r.Host, r.Header.Get("X-Forwarded-For"))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// fakeDNS resolves the test's names: *.good.test and good.test to
// 127.0.0.1, meta.test to 169.254.169.254, public.test to 127.0.0.1 and
// a public address.
func fakeDNS(_ context.Context, host string) ([]netip.Addr, error) {
	switch h := strings.ToLower(strings.TrimSuffix(host, ".")); {
	case h == "good.test" || strings.HasSuffix(h, ".good.test"):
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	case h == "localhost":
		return []netip.Addr{netip.MustParseAddr("::1"), netip.MustParseAddr("127.0.0.1")}, nil
	case h == "meta.test":
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	case h == "mapped.test":
		return []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// started is a proxy serving on 127.0.0.1 with its refusals and log.
type started struct {
	addr    string
	mu      sync.Mutex
	refused []string
	logged  []string
}

func (s *started) got() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...), append([]string(nil), s.logged...)
}

func start(t *testing.T, list string, o Options) *started {
	t.Helper()
	n, err := sandbox.ParseNetwork(list)
	if err != nil {
		t.Fatal(err)
	}
	s := &started{}
	o.Log = func(l string) { s.mu.Lock(); s.logged = append(s.logged, l); s.mu.Unlock() }
	o.Hint = "Ask the user."
	if o.Resolve == nil {
		o.Resolve = fakeDNS
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- New(n, o).Serve(ln, func(target string) { s.mu.Lock(); s.refused = append(s.refused, target); s.mu.Unlock() })
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	s.addr = ln.Addr().String()
	return s
}

// raw sends req on a new connection to the proxy and returns the
// response, and the connection for a tunnel.
func raw(t *testing.T, addr, req string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the response to %q: %v", req, err)
	}
	return res, c, br
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

// TestProxy: what the proxy lets through and what it refuses, through
// plain HTTP (absolute URIs) and CONNECT tunnels, against a real
// backend on 127.0.0.1.
func TestProxy(t *testing.T) {
	t.Parallel()
	port := backend(t)
	other := backend(t)
	p := strconv.Itoa(port)
	tests := []struct {
		name   string
		list   string
		req    string // the request line's target: CONNECT's host:port, or an absolute URL
		status int
		body   string // in the answer (through a tunnel: the backend's)
	}{
		{"ip listed, http", "127.0.0.1", "http://127.0.0.1:" + p + "/a", 200, "hello /a host=127.0.0.1:" + p + ` xff=""`},
		{"ip listed, connect", "127.0.0.1", "127.0.0.1:" + p, 200, "hello /tunnel"},
		{"ip with its port", "127.0.0.1:" + p, "127.0.0.1:" + p, 200, "hello /tunnel"},
		{"ip, another port", "127.0.0.1:" + p, "127.0.0.1:" + strconv.Itoa(other), 403, "127.0.0.1:" + strconv.Itoa(other) + " is not on the sandbox's network allow-list. Ask the user."},
		{"ip, another port, http", "127.0.0.1:" + p, "http://127.0.0.1:" + strconv.Itoa(other) + "/", 403, "not on the sandbox's network allow-list"},
		{"another ip", "127.0.0.2", "127.0.0.1:" + p, 403, "not on the sandbox's network allow-list"},
		{"mapped ip listed", "127.0.0.1", "[::ffff:127.0.0.1]:" + p, 200, "hello /tunnel"},
		{"name not listed", "127.0.0.1", "evil.test:443", 403, "evil.test:443 is not on"},
		{"name resolving to loopback", "good.test", "good.test:" + p, 403, "resolving to [127.0.0.1], a loopback"},
		{"name resolving to a listed loopback", "good.test,127.0.0.1", "good.test:" + p, 200, "hello /tunnel"},
		{"name resolving to mapped loopback", "mapped.test", "mapped.test:" + p, 403, "a loopback"},
		{"metadata service", "meta.test", "meta.test:80", 403, "resolving to [169.254.169.254]"},
		{"localhost listed", "localhost", "localhost:" + p, 200, "hello /tunnel"},
		{"name resolving to loopback, http", "good.test", "http://good.test:" + p + "/", 403, "resolving to [127.0.0.1], a loopback"},
		{"wildcard", "*.good.test,127.0.0.1", "a.b.good.test:" + p, 200, "hello /tunnel"},
		{"wildcard, http", "*.good.test,127.0.0.1", "http://a.good.test:" + p + "/w", 200, "hello /w host=a.good.test:" + p},
		{"wildcard is not the domain", "*.good.test,127.0.0.1", "good.test:" + p, 403, "not on"},
		{"wildcard on a label boundary", "*.good.test,127.0.0.1", "notgood.test:" + p, 403, "not on"},
		{"upper case, trailing dot", "good.test,127.0.0.1", "GOOD.test.:" + p, 200, "hello /tunnel"},
		{"unresolvable", "nowhere.test", "nowhere.test:443", 502, "resolve nowhere.test"},
		{"connect without port", "127.0.0.1", "127.0.0.1", 400, "want host:port"},
		{"connect port 0", "127.0.0.1", "127.0.0.1:0", 400, "not a number from 1 to 65535"},
		{"https absolute", "127.0.0.1", "https://127.0.0.1:" + p + "/", 400, "CONNECT host:port and absolute http:// URLs only"},
		{"origin form", "127.0.0.1", "/a", 400, "absolute http:// URLs only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, tt.list, Options{})
			method := "GET"
			if !strings.Contains(tt.req, "/") {
				method = "CONNECT"
			}
			res, c, br := raw(t, s.addr, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: x\r\n\r\n", method, tt.req))
			got := ""
			if method == "CONNECT" && res.StatusCode == 200 {
				fmt.Fprintf(c, "GET /tunnel HTTP/1.1\r\nHost: inner\r\nConnection: close\r\n\r\n")
				inner, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("through the tunnel: %v", err)
				}
				got = body(t, inner)
			} else {
				got = body(t, res)
			}
			if res.StatusCode != tt.status || !strings.Contains(got, tt.body) {
				t.Fatalf("%s %s: %d %q; want %d with %q", method, tt.req, res.StatusCode, got, tt.status, tt.body)
			}
			refused, logged := s.got()
			if (tt.status == 403) != (len(refused) == 1 && len(logged) == 1) {
				t.Errorf("refused %q, logged %q; want one each for a 403", refused, logged)
			}
			if tt.status == 403 && !strings.Contains(logged[0], "network proxy: refused "+method) {
				t.Errorf("log line %q", logged[0])
			}
		})
	}
}

// TestProxyBounds: an over-long header is refused (431), a client that
// never finishes its header is dropped, an idle tunnel is closed, and a
// listener holds at most MaxConns connections: the next one is answered
// only once one closes.
func TestProxyBounds(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(backend(t))
	t.Run("header size", func(t *testing.T) {
		t.Parallel()
		s := start(t, "127.0.0.1", Options{MaxHeaderBytes: 1024})
		res, _, _ := raw(t, s.addr, "GET http://127.0.0.1:"+port+"/ HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 8<<10)+"\r\n\r\n")
		if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d, want 431", res.StatusCode)
		}
	})
	t.Run("slow header", func(t *testing.T) {
		t.Parallel()
		s := start(t, "127.0.0.1", Options{HeaderTimeout: 50 * time.Millisecond})
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = io.WriteString(c, "GET http://127.0.0.1:"+port+"/ HTTP/1.1\r\n")
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on the test, not a speed
		if b, err := io.ReadAll(c); err != nil || strings.Contains(string(b), "hello") {
			t.Errorf("a header never finished: %q, %v; want the connection closed", b, err)
		}
	})
	t.Run("idle tunnel", func(t *testing.T) {
		t.Parallel()
		s := start(t, "127.0.0.1", Options{IdleTimeout: 50 * time.Millisecond})
		res, c, br := raw(t, s.addr, "CONNECT 127.0.0.1:"+port+" HTTP/1.1\r\n\r\n")
		if res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
			t.Errorf("an idle tunnel: %v, want EOF", err)
		}
	})
	t.Run("max connections", func(t *testing.T) {
		t.Parallel()
		s := start(t, "127.0.0.1", Options{MaxConns: 1})
		res, first, _ := raw(t, s.addr, "CONNECT 127.0.0.1:"+port+" HTTP/1.1\r\n\r\n")
		if res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
		second, err := net.Dial("tcp", s.addr) // the kernel's backlog takes it
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		_, _ = io.WriteString(second, "GET http://127.0.0.1:"+port+"/2 HTTP/1.1\r\nHost: x\r\n\r\n")
		_ = second.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if n, err := second.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("a second connection was served while the first held the only slot (%d bytes, %v)", n, err)
		}
		_ = first.Close()
		_ = second.SetReadDeadline(time.Now().Add(30 * time.Second))
		r2, err := http.ReadResponse(bufio.NewReader(second), nil)
		if err != nil || r2.StatusCode != 200 || !strings.Contains(body(t, r2), "hello /2") {
			t.Fatalf("the second connection after the first closed: %v", err)
		}
	})
}

// FuzzRequest: whatever request a client sends, the proxy never panics
// and dials only what the allow-list allows: fakeDNS answers internal
// addresses only (loopback, link-local), so every address dialed must be
// on the list itself.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n",
		"CONNECT evil.test:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::1]:80 HTTP/1.1\r\n\r\n",
		"GET http://a.good.test/x HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"GET http://[::ffff:7f00:1]:80/ HTTP/1.1\r\n\r\n",
		"GET http://good.test.:8080/ HTTP/1.0\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	n, err := sandbox.ParseNetwork("*.good.test,127.0.0.1:443,[::1]")
	if err != nil {
		f.Fatal(err)
	}
	errNoNet := errors.New("no network in a fuzz test")
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		p := New(n, Options{Resolve: fakeDNS, Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				t.Fatalf("dialed %q, not a checked address", addr)
			}
			if ip := ap.Addr().String(); !n.Allows(ip, int(ap.Port())) {
				t.Fatalf("dialed %s, which the list does not allow (request %q)", addr, b)
			}
			return nil, errNoNet
		}})
		handler{p: p}.ServeHTTP(httptest.NewRecorder(), req)
	})
}
