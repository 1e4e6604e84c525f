package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
	"github.com/harness-dev/harness/pluginapi/internal/wire"
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

// FormatReattach returns the $HARNESS_REATTACH_PLUGINS value naming one
// plugin: {"<name>":<rc as JSON>}.
func FormatReattach(name string, rc ReattachConfig) string {
	b, _ := json.Marshal(map[string]ReattachConfig{name: rc}) // plain fields: cannot fail
	return string(b)
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
		VersionedPlugins: map[int]plugin.PluginSet{ProtocolVersion: {wire.PluginSetName: &debugPlugin{server: server}}},
		GRPCServer:       wire.ServerFactory(logger),
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
