// Package netproxy is the HTTP/HTTPS proxy through which a sandboxed
// command reaches the hosts of its network allow-list, and nothing else:
// the command runs in a network namespace of its own (loopback only), and
// its init forwards 127.0.0.1:<port> there to a Unix socket this proxy
// serves from outside the namespace (plugins/bash).
//
// It takes two kinds of request: CONNECT host:port (HTTPS, and any TCP a
// client tunnels), answered "200 Connection established" and then a byte
// tunnel; and an absolute-URI HTTP request (GET http://host/path),
// forwarded with net/http/httputil's ReverseProxy (hop-by-hop headers
// dropped, no X-Forwarded-For added, the Host header the URL's). Anything
// else is 400.
//
// # What is allowed
//
// Rules (sandbox.Network) decide by the host the client names and the
// port: a name by its entries of names and wildcards, an IP literal only
// when that address is listed. The proxy resolves a name itself and dials
// the addresses it checked (no second lookup a rebinding DNS server could
// answer differently); a name that resolves to a loopback, link-local
// (169.254.169.254, the clouds' metadata service), unspecified or
// multicast address is refused unless that address is itself on the list
// — an allowed name must not lead to the host's own services — except
// "localhost" listed, which means the host's loopback. Private
// addresses (10/8, 192.168/16, fc00::/7) are allowed for an allowed name:
// a company's registry lives there. A refusal is 403 with a one-line body
// saying the host is not on the allow-list and how to ask; it is logged
// (Options.Log, the host's log on stderr) and reported to the listener's
// refused callback, so that the command's result can say so.
//
// What it does not see: inside a CONNECT tunnel, TLS's SNI and an HTTP
// Host header may name another site served by the same allowed address
// (domain fronting through a CDN). The proxy dials directly: an upstream
// proxy of the host's environment is not used.
//
// # Bounds
//
// At most MaxConns client connections at a time on a listener (more wait in the
// listener's backlog), request headers within HeaderTimeout and
// MaxHeaderBytes, dials within DialTimeout, a tunnel or a keep-alive
// connection idle for IdleTimeout is closed.
//
// # Why no library
//
// A forward proxy needs CONNECT's tunnel, which is thirty lines of
// io.Copy over a hijacked connection; the libraries (goproxy, martian)
// are built for inspecting and rewriting traffic, with TLS interception
// and handler chains a sandbox must not have. net/http parses the
// requests with its bounds, httputil forwards plain HTTP; the package
// needs nothing outside the standard library, as sandbox/'s import rule
// wants.
package netproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Rules decide what the proxy may reach (sandbox.Network implements it).
type Rules interface {
	// Allows reports whether host (a name or an IP address, as the
	// client named it) at port may be reached.
	Allows(host string, port int) bool
}

// Options tune a Proxy; zero fields get the defaults.
type Options struct {
	// Log receives one line per refusal (the host's log); nil: none.
	Log func(line string)
	// Hint ends the body of a 403: how the user can widen the list.
	Hint string
	// MaxConns bounds the client connections open at once on one
	// listener (256).
	MaxConns int
	// HeaderTimeout bounds the reading of a request's headers (10 s);
	// MaxHeaderBytes their size (16 KiB).
	HeaderTimeout  time.Duration
	MaxHeaderBytes int
	// DialTimeout bounds a connection to a target (10 s).
	DialTimeout time.Duration
	// IdleTimeout closes a tunnel, or a client's keep-alive connection,
	// with no byte either way for that long (5 minutes).
	IdleTimeout time.Duration
	// Resolve looks a name up (net.DefaultResolver); Dial connects to
	// an address the proxy checked (a net.Dialer). Tests replace them.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	Dial    func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Proxy serves proxy requests on listeners, each typically one command's.
type Proxy struct {
	rules Rules
	o     Options
	fwd   *httputil.ReverseProxy
}

// New makes a proxy that lets through what rules allow.
func New(rules Rules, o Options) *Proxy {
	if o.MaxConns <= 0 {
		o.MaxConns = 256
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = 10 * time.Second
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 16 << 10
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.Resolve == nil {
		o.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if o.Dial == nil {
		d := &net.Dialer{}
		o.Dial = d.DialContext
	}
	p := &Proxy{rules: rules, o: o}
	p.fwd = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Host = "" // the URL's host: the one checked
		},
		Transport: &http.Transport{
			Proxy:                 nil, // never the host's own proxy variables
			DialContext:           p.dialChecked,
			DisableCompression:    true,
			MaxIdleConns:          32,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 2 * time.Minute,
		},
		ErrorLog:     log.New(io.Discard, "", 0),
		ErrorHandler: p.forwardFailed,
	}
	return p
}

// Serve serves ln until it is closed, then returns nil. refused, when
// not nil, is called with the host:port of each refused request.
func (p *Proxy) Serve(ln net.Listener, refused func(target string)) error {
	srv := &http.Server{
		Handler:           handler{p: p, refused: refused},
		ReadHeaderTimeout: p.o.HeaderTimeout,
		MaxHeaderBytes:    p.o.MaxHeaderBytes,
		IdleTimeout:       p.o.IdleTimeout,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	err := srv.Serve(&limited{Listener: ln, slots: make(chan struct{}, p.o.MaxConns)})
	if errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// handler serves one listener's requests.
type handler struct {
	p       *Proxy
	refused func(string)
}

// refusal is a request the rules refuse; its text is the 403's body and
// the log line's reason.
type refusal struct{ target, why string }

func (r *refusal) Error() string { return r.target + ": " + r.why }

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		h.connect(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == "http" && r.URL.Host != "":
		host, port, err := splitTarget(r.URL.Host, 80)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, err)
			return
		}
		if !h.p.rules.Allows(host, port) {
			h.refuse(w, r, &refusal{target: net.JoinHostPort(host, strconv.Itoa(port)), why: "not on the sandbox's network allow-list"})
			return
		}
		ctx := context.WithValue(r.Context(), handlerKey{}, h)
		h.p.fwd.ServeHTTP(w, r.WithContext(ctx))
	default:
		h.fail(w, r, http.StatusBadRequest, errors.New("harness's proxy takes CONNECT host:port and absolute http:// URLs only"))
	}
}

type handlerKey struct{}

// connect answers CONNECT: dial the checked target, then tunnel.
func (h handler) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := splitTarget(r.RequestURI, 0)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	target, err := h.p.dialChecked(r.Context(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	var ref *refusal
	switch {
	case errors.As(err, &ref):
		h.refuse(w, r, ref)
		return
	case err != nil:
		h.fail(w, r, http.StatusBadGateway, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = target.Close()
		h.fail(w, r, http.StatusInternalServerError, errors.New("cannot take over the connection"))
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		_ = target.Close()
		return
	}
	_ = client.SetDeadline(time.Time{})
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		_, _ = client.Close(), target.Close()
		return
	}
	// What the client sent after its request, already read.
	if n := buf.Reader.Buffered(); n > 0 {
		b, _ := buf.Reader.Peek(n)
		if _, err := target.Write(b); err != nil {
			_, _ = client.Close(), target.Close()
			return
		}
	}
	tunnel(client, target, h.p.o.IdleTimeout)
}

// forwardFailed answers a plain-HTTP request whose dial failed or was
// refused.
func (p *Proxy) forwardFailed(w http.ResponseWriter, r *http.Request, err error) {
	h, _ := r.Context().Value(handlerKey{}).(handler)
	var ref *refusal
	if errors.As(err, &ref) {
		h.refuse(w, r, ref)
		return
	}
	h.fail(w, r, http.StatusBadGateway, err)
}

// refuse answers 403, logs the refusal and reports it.
func (h handler) refuse(w http.ResponseWriter, r *http.Request, ref *refusal) {
	if h.p.o.Log != nil {
		h.p.o.Log(fmt.Sprintf("network proxy: refused %s %q: %s", r.Method, ref.target, ref.why))
	}
	if h.refused != nil {
		h.refused(ref.target)
	}
	body := "harness: " + ref.target + " is " + ref.why + "."
	if h.p.o.Hint != "" {
		body += " " + h.p.o.Hint
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusForbidden)
	_, _ = io.WriteString(w, body+"\n")
}

// fail answers status with err as a one-line body.
func (h handler) fail(w http.ResponseWriter, _ *http.Request, status int, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "harness proxy: "+strings.ReplaceAll(err.Error(), "\n", " ")+"\n")
}

// splitTarget reads host:port (an IPv6 host in brackets); without a port
// it is def, or an error when def is 0.
func splitTarget(authority string, def int) (string, int, error) {
	host, ps, err := net.SplitHostPort(authority)
	if err != nil {
		if def == 0 || strings.Count(authority, ":") > 0 && !strings.HasSuffix(authority, "]") {
			return "", 0, fmt.Errorf("target %q: want host:port", authority)
		}
		host, ps = strings.TrimSuffix(strings.TrimPrefix(authority, "["), "]"), strconv.Itoa(def)
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 || strconv.Itoa(port) != ps {
		return "", 0, fmt.Errorf("target %q: port %q is not a number from 1 to 65535", authority, ps)
	}
	if host == "" {
		return "", 0, fmt.Errorf("target %q: no host", authority)
	}
	return host, port, nil
}

// internal reports whether an address is one an allowed name must not
// lead to unless it is listed itself: the host's own (loopback,
// unspecified), link-local (the clouds' metadata service) or multicast.
func internal(a netip.Addr) bool {
	return a.IsLoopback() || a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast()
}

// dialChecked connects to addr (host:port) if the rules allow it: an IP
// literal as it is, a name through the addresses it resolves to, minus
// those internal ones the list does not name.
func (p *Proxy) dialChecked(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := splitTarget(addr, 0)
	if err != nil {
		return nil, err
	}
	target := net.JoinHostPort(host, strconv.Itoa(port))
	if !p.rules.Allows(host, port) {
		return nil, &refusal{target: target, why: "not on the sandbox's network allow-list"}
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.DialTimeout)
	defer cancel()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip.Unmap()}
	} else {
		found, err := p.o.Resolve(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		// "localhost" on the list means the host's loopback.
		local := strings.EqualFold(strings.TrimSuffix(host, "."), "localhost")
		for _, a := range found {
			a = a.Unmap()
			if !internal(a) || p.rules.Allows(a.String(), port) || local && a.IsLoopback() {
				addrs = append(addrs, a)
			}
		}
		if len(addrs) == 0 {
			return nil, &refusal{target: target, why: fmt.Sprintf("resolving to %v, a loopback, link-local or multicast address the network allow-list does not name", found)}
		}
	}
	var last error
	for _, a := range addrs {
		c, err := p.o.Dial(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, fmt.Errorf("connect to %s: %w", target, last)
}

// tunnel copies bytes both ways until both sides are done, or neither
// moved a byte for idle; then closes both.
func tunnel(a, b net.Conn, idle time.Duration) {
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	var wg sync.WaitGroup
	copyHalf := func(dst, src net.Conn) {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			_ = src.SetReadDeadline(time.Now().Add(idle))
			n, err := src.Read(buf)
			if n > 0 {
				last.Store(time.Now().UnixNano())
				_ = dst.SetWriteDeadline(time.Now().Add(idle))
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && time.Since(time.Unix(0, last.Load())) < idle {
				continue // the other way is busy: a long download
			}
			if err != nil {
				break
			}
		}
		closeWrite(dst)
		_ = src.SetReadDeadline(time.Now()) // the other half's reads end too if this side is gone
	}
	wg.Add(2)
	go copyHalf(a, b)
	go copyHalf(b, a)
	wg.Wait()
	_, _ = a.Close(), b.Close()
}

// closeWrite half-closes c where it can (TCP, Unix), else closes it.
func closeWrite(c net.Conn) {
	if l, ok := c.(*limitedConn); ok {
		c = l.Conn
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}

// limited is a listener that holds at most cap(slots) connections open.
type limited struct {
	net.Listener
	slots chan struct{}
}

func (l *limited) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// limitedConn gives its slot back once closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
