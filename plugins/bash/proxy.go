//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/harness-dev/harness/sandbox"
	"github.com/harness-dev/harness/sandbox/netproxy"
)

// proxies serve the network allow-list: each command in a network
// namespace of its own gets a Unix socket of its own in dir (the
// plugin's private folder, which no command may write), served by one
// netproxy.Proxy; the command's init forwards 127.0.0.1:<port> in the
// namespace to it (init_linux.go). A socket per command tells whose
// connections were refused, for its result, and goes away with it.
type proxies struct {
	proxy *netproxy.Proxy
	list  sandbox.Network
	dir   string
	seq   atomic.Int64
	swept sync.Once
}

// hint ends a refusal's body and the result's note: only the user can
// widen the list.
const hint = "Only the user can allow another host: the sandbox-network setting (--sandbox-network, HARNESS_SANDBOX_NETWORK, or sandbox-network in config.toml)."

// newProxies serves list's hosts; nil when list is no allow-list.
func newProxies(list sandbox.Network, dir string) *proxies {
	if !list.IsAllowList() {
		return nil
	}
	return &proxies{
		list: list,
		dir:  dir,
		proxy: netproxy.New(list, netproxy.Options{
			Hint: hint,
			Log:  func(line string) { fmt.Fprintf(os.Stderr, "bash: %s\n", line) },
		}),
	}
}

// cmdProxy is one command's socket and what it refused.
type cmdProxy struct {
	list sandbox.Network
	path string
	ln   net.Listener
	mu   sync.Mutex
	refs []string // refused host:port, distinct, at most maxRefused
}

// maxRefused bounds what a command's result lists.
const maxRefused = 5

// open makes a command's socket and serves it until close.
func (x *proxies) open() (*cmdProxy, error) {
	if err := ensurePrivate(x.dir); err != nil {
		return nil, fmt.Errorf("start the network proxy: %w", err)
	}
	x.swept.Do(x.sweep)
	path := filepath.Join(x.dir, "net-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(x.seq.Add(1), 10)+".sock")
	_ = os.Remove(path) // a socket a killed plugin of the same pid left
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("start the network proxy: %w", err)
	}
	c := &cmdProxy{list: x.list, path: path, ln: ln}
	go func() { _ = x.proxy.Serve(ln, c.refused) }()
	return c, nil
}

// sweep removes the sockets a plugin killed before it could close them
// left in dir: those whose plugin (the pid in their name) is gone.
func (x *proxies) sweep() {
	names, _ := filepath.Glob(filepath.Join(x.dir, "net-*-*.sock"))
	for _, n := range names {
		pid, err := strconv.Atoi(strings.Split(filepath.Base(n), "-")[1])
		if err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.Remove(n)
		}
	}
}

func (c *cmdProxy) refused(target string) {
	if strings.ContainsFunc(target, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:[]", r))
	}) {
		target = strconv.QuoteToASCII(target) // the command chose it: nothing raw reaches the result
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.refs) < maxRefused && !slices.Contains(c.refs, target) {
		c.refs = append(c.refs, target)
	}
}

// close stops serving the socket and removes it; tunnels open end with
// the command's init.
func (c *cmdProxy) close() {
	_ = c.ln.Close() // a Unix listener removes its file
}

// note is the result's line naming the hosts the proxy refused to the
// command; "" when none.
func (c *cmdProxy) note() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	refs := slices.Clone(c.refs)
	c.mu.Unlock()
	if len(refs) == 0 {
		return ""
	}
	return "[the sandbox's network proxy refused " + strings.Join(refs, ", ") + ": not on the network allow-list (" +
		string(c.list) + "). " + hint + "]"
}
