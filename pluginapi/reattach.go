package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"

	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// Debugging a plugin by reattaching, as Terraform does with
// TF_REATTACH_PROVIDERS: the developer starts the plugin by hand (under a
// debugger), it serves and prints where; the host, given that address,
// attaches to the running process instead of launching one.
const (
	// EnvDebug=1, in a plugin run by hand (without the host's cookie),
	// makes Serve run in debug mode: no handshake on stdout, logs as text
	// on stderr, stdout and stderr left to the terminal; it prints the
	// HARNESS_REATTACH_PLUGINS line to give a host, and serves until
	// Ctrl-C or SIGTERM. A host that attached never stops it.
	EnvDebug = "HARNESS_PLUGIN_DEBUG"
	// EnvReattach holds the running plugins a host attaches to instead of
	// launching: a JSON object mapping each plugin's name to its
	// [ReattachConfig] (see [ParseReattach]).
	EnvReattach = "HARNESS_REATTACH_PLUGINS"
)

// ReattachConfig says where a plugin serving in debug mode listens. Its
// JSON form is go-plugin's, as Terraform prints it:
// {"Protocol":"grpc","ProtocolVersion":1,"Pid":4242,"Test":true,"Addr":{"Network":"unix","String":"/tmp/plugin123"}}.
type ReattachConfig struct {
	// Protocol is "grpc" (the only one harness plugins speak; empty means
	// grpc).
	Protocol string
	// ProtocolVersion is the plugin protocol's major version,
	// [ProtocolVersion].
	ProtocolVersion int
	// Pid is the plugin's process id; the host notices the process going
	// away through it.
	Pid int
	// Test is true for a plugin in debug mode: the host must not stop it.
	// Attach treats every plugin so.
	Test bool
	// Addr is the plugin's gRPC listener.
	Addr ReattachAddr
}

// ReattachAddr is a listener's address: Network "unix" and a socket path,
// or "tcp" and host:port.
type ReattachAddr struct {
	Network string
	String  string
}

// ParseReattach parses the value of $HARNESS_REATTACH_PLUGINS: a JSON
// object mapping plugin names to ReattachConfigs. An empty value gives no
// plugins. Each entry is checked: protocol grpc, the protocol version this
// package speaks, a unix or tcp address, a pid.
func ParseReattach(value string) (map[string]ReattachConfig, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	var m map[string]ReattachConfig
	if err := json.Unmarshal([]byte(value), &m); err != nil {
		return nil, fmt.Errorf("parse %s: %s", EnvReattach, strings.TrimPrefix(err.Error(), "json: "))
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := m[name].check(); err != nil {
			return nil, fmt.Errorf("parse %s: plugin %q: %w", EnvReattach, name, err)
		}
	}
	return m, nil
}

func (rc ReattachConfig) check() error {
	switch {
	case rc.Protocol != "" && rc.Protocol != string(plugin.ProtocolGRPC):
		return fmt.Errorf("protocol %q: harness plugins speak grpc", rc.Protocol)
	case rc.ProtocolVersion != ProtocolVersion:
		return fmt.Errorf("plugin protocol %d; this harness speaks %d", rc.ProtocolVersion, ProtocolVersion)
	case rc.Pid <= 0:
		return errors.New("no Pid")
	}
	_, err := rc.Addr.netAddr()
	return err
}

func (a ReattachAddr) netAddr() (net.Addr, error) {
	switch a.Network {
	case "unix":
		if a.String == "" {
			return nil, errors.New("no socket path in Addr")
		}
		return &net.UnixAddr{Net: "unix", Name: a.String}, nil
	case "tcp":
		addr, err := net.ResolveTCPAddr("tcp", a.String)
		if err != nil {
			return nil, fmt.Errorf("address %q: %w", a.String, err)
		}
		return addr, nil
	}
	return nil, fmt.Errorf("address network %q: want unix or tcp", a.Network)
}

// FormatReattach returns the $HARNESS_REATTACH_PLUGINS value naming one
// plugin: {"<name>":<rc as JSON>}.
func FormatReattach(name string, rc ReattachConfig) string {
	b, _ := json.Marshal(map[string]ReattachConfig{name: rc}) // plain fields: cannot fail
	return string(b)
}

// Attach connects to a plugin serving in debug mode (see [EnvDebug]) and
// returns a Client for it, as Launch does for a process it starts. The
// plugin belongs to whoever started it: Close only disconnects, and
// Configure, Execute and the rest work as usual. Exited is closed when the
// process is gone, and PID is 0. Attach fails if the plugin does not
// answer gRPC's health check within ctx.
func Attach(ctx context.Context, name string, rc ReattachConfig, logger hclog.Logger) (*Client, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if err := rc.check(); err != nil {
		return nil, fmt.Errorf("attach to plugin %s: %w", name, err)
	}
	addr, _ := rc.Addr.netAddr() // checked
	detached := make(chan struct{})
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake(),
		// A reattached client takes its plugin set from Plugins.
		Plugins: pluginSets(nil)[ProtocolVersion],
		Reattach: &plugin.ReattachConfig{
			Protocol:        plugin.ProtocolGRPC,
			ProtocolVersion: rc.ProtocolVersion,
			Addr:            addr,
			Pid:             rc.Pid,
			// Test: go-plugin's Kill leaves the process alone.
			Test: true,
			ReattachFunc: func() (runner.AttachedRunner, error) {
				return &attachedProc{pid: rc.Pid, detached: detached}, nil
			},
		},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger,
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes))},
	})
	cp, err := pc.Client()
	if err != nil {
		close(detached)
		return nil, fmt.Errorf("attach to plugin %s: %w", name, err)
	}
	gc := cp.(*plugin.GRPCClient)
	// Only the connection goes: GRPCClient.Close would send Shutdown and
	// stop the plugin under the developer's debugger.
	detach := func() {
		close(detached)
		_ = gc.Conn.Close()
	}
	_, err = grpc_health_v1.NewHealthClient(gc.Conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: plugin.GRPCServiceName})
	var raw any
	if err == nil {
		raw, err = cp.Dispense(pluginSetName)
	}
	if err != nil {
		detach()
		return nil, fmt.Errorf("attach to plugin %s at %s %s (pid %d): %w", name, rc.Addr.Network, rc.Addr.String, rc.Pid, err)
	}
	d := raw.(*dispensed)
	c := &Client{
		name:   name,
		logger: logger.Named(name),
		d:      d,
		pc:     pc,
		tail:   &lineTail{},
		exited: d.exited.Done(),
		// Close detaches (the field serves in-process and attached
		// plugins alike: there is no process of ours to stop).
		stopInProc: detach,
	}
	return c, nil
}

// attachedProc is the go-plugin runner of an attached plugin: Wait
// returns when the process is gone or the host detached.
type attachedProc struct {
	pid      int
	detached <-chan struct{}
}

func (p *attachedProc) Wait(context.Context) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.detached:
			return nil
		case <-tick.C:
			if !processAlive(p.pid) {
				return nil
			}
		}
	}
}

func (p *attachedProc) Kill(context.Context) error { return nil }
func (p *attachedProc) ID() string                 { return strconv.Itoa(p.pid) }
func (p *attachedProc) PluginToHost(n, a string) (string, string, error) {
	return n, a, nil
}
func (p *attachedProc) HostToPlugin(n, a string) (string, string, error) {
	return n, a, nil
}

// processAlive reports whether process pid exists (signal 0).
func processAlive(pid int) bool {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = proc.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// serveDebug serves p in debug mode (EnvDebug): go-plugin's test mode,
// which skips the handshake and the cookie, then prints the reattach line
// on stdout and serves until SIGINT or SIGTERM. It returns the exit
// status.
func serveDebug(p *Plugin, level hclog.Level, stdout, stderr io.Writer) int {
	logger := hclog.New(&hclog.LoggerOptions{Name: p.Name, Level: level, Output: stderr})
	server := newToolServer(p, logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: map[int]plugin.PluginSet{ProtocolVersion: {pluginSetName: &debugPlugin{server: server}}},
		GRPCServer:       serverFactory(logger),
		Logger:           logger,
		Test: &plugin.ServeTestConfig{
			Context:          ctx,
			ReattachConfigCh: reattach,
			CloseCh:          closed,
		},
	})
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-closed:
		fmt.Fprintf(stderr, "plugin %s could not serve in debug mode; see the log above\n", p.Name)
		return 1
	}
	line := FormatReattach(p.Name, ReattachConfig{
		Protocol:        string(rc.Protocol),
		ProtocolVersion: rc.ProtocolVersion,
		Pid:             rc.Pid,
		Test:            true,
		Addr:            ReattachAddr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	})
	fmt.Fprintf(stdout, "plugin %s %s serves in debug mode (pid %d). A host attaches to it with\n\n\t%s='%s'\n\nin its environment (e.g. harness plugins check --reattach). Ctrl-C stops the plugin.\n",
		p.Name, p.Version, rc.Pid, EnvReattach, line)
	<-closed
	logger.Info("stopped serving; exiting")
	server.exit()
	return 0
}

// debugPlugin serves ToolProvider in debug mode, where one plugin process
// may serve several hosts in turn (one harness run after another).
type debugPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server *toolServer
}

func (p *debugPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	p.server.broker = broker
	pb.RegisterToolProviderServer(s, &debugToolServer{toolServer: p.server})
	return nil
}

func (p *debugPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("debug mode serves plugins only")
}

// debugToolServer is ToolProvider for hosts that attach in turn. go-plugin
// gives a server one broker, which closes with the first host's
// connection: only the first host's HostServices can be reached. Later
// hosts are configured without them (their calls of Call.Host fail with
// ErrUnimplemented), with a warning, rather than failing Configure after
// the broker's 5 s timeout.
type debugToolServer struct {
	*toolServer

	mu     sync.Mutex
	served bool // a host's HostServices were dialled
}

func (s *debugToolServer) Configure(ctx context.Context, req *pb.Configure_Request) (*pb.Configure_Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.GetHostServicesBrokerId() == 0 {
		return s.toolServer.Configure(ctx, req)
	}
	if !s.served {
		resp, err := s.toolServer.Configure(ctx, req)
		if err == nil {
			s.served = true
		}
		return resp, err
	}
	const warning = "this plugin runs in debug mode and served an earlier host: the host services (Call.Host) are not available to this one; restart the plugin to get them"
	s.logger.Warn(warning)
	plain := proto.Clone(req).(*pb.Configure_Request)
	plain.HostServicesBrokerId = 0
	s.toolServer.mu.Lock()
	s.toolServer.host = noHost{}
	s.toolServer.mu.Unlock()
	resp, err := s.toolServer.Configure(ctx, plain)
	if err != nil {
		return nil, err
	}
	resp.Warnings = append(resp.Warnings, warning)
	return resp, nil
}
