package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

// Environment variables the host sets for a plugin.
const (
	// EnvLogLevel is the level of the plugin's log: trace, debug, info,
	// warn or error (default info).
	EnvLogLevel = "HARNESS_PLUGIN_LOG_LEVEL"
	// EnvExitOnStdinEOF=1 tells Serve that stdin is a pipe whose write end
	// only the host holds: EOF on it means the host died, and the plugin
	// exits.
	EnvExitOnStdinEOF = "HARNESS_PLUGIN_EXIT_ON_STDIN_EOF"
)

// DescribeFlag is the argument that makes Serve print the plugin's
// description as JSON on stdout and exit, without a host.
const DescribeFlag = "--describe"

func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   MagicCookieKey,
		MagicCookieValue: MagicCookieValue,
	}
}

// grpcPlugin binds ToolProvider to go-plugin on the plugin's side; the
// host's binding is in package pluginhost.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server *toolServer
}

func (p *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	p.server.broker = broker
	pb.RegisterToolProviderServer(s, p.server)
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("package pluginapi serves plugins; hosts use package pluginhost")
}

func pluginSets(server *toolServer) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{ProtocolVersion: {wire.PluginSetName: &grpcPlugin{server: server}}}
}

// Serve serves p as a harness plugin; call it from main. It never returns:
// it exits the process, with status 0 when the host shut the plugin down or
// went away, 1 when p is invalid or the plugin cannot serve.
//
// Run by hand with the argument --describe, the binary prints its
// description as JSON and exits. Run by hand with $HARNESS_PLUGIN_DEBUG=1,
// it serves in debug mode for a host to attach to (see [EnvDebug]). Run by
// hand otherwise, it says it is a plugin and exits 1.
func Serve(p Plugin) {
	os.Exit(serve(p))
}

func serve(p Plugin) int {
	stderr := os.Stderr
	if err := validatePlugin(&p); err != nil {
		fmt.Fprintf(stderr, "invalid plugin: %v\n", err)
		return 1
	}
	if len(os.Args) > 1 && os.Args[1] == DescribeFlag {
		return printDescription(os.Stdout, &p) // stdout-ok: run by hand, no host
	}
	level := hclog.LevelFromString(os.Getenv(EnvLogLevel))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	// A host sets the cookie: a plugin it launches never enters debug mode,
	// even if HARNESS_PLUGIN_DEBUG leaked into the host's environment.
	if os.Getenv(EnvDebug) == "1" && os.Getenv(MagicCookieKey) == "" {
		return serveDebug(&p, level, os.Stdout, stderr) // stdout-ok: run by hand, under a debugger
	}
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       p.Name,
		Level:      level,
		Output:     stderr, // the original stderr: go-plugin relays it
		JSONFormat: true,
	})
	server := newToolServer(&p, logger)
	// exit runs the plugin's OnExit hook and exits; every way out but
	// go-plugin's own exit on a failure to serve goes through it.
	exit := func(why string) {
		logger.Info(why + "; exiting")
		server.exit()
		os.Exit(0)
	}
	if os.Getenv(EnvExitOnStdinEOF) == "1" {
		go exitOnEOF(os.Stdin, exit)
	}
	go exitOnOrphan(os.Getppid(), exit)
	go exitOnSignal(exit)

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: pluginSets(server),
		GRPCServer:       wire.ServerFactory(logger),
		Logger:           logger,
	})
	// go-plugin returns when the host shut the server down, or exits by
	// itself (status 1) when it cannot serve.
	server.exit()
	return 0
}

// exitOnEOF exits the process when the host-held stdin pipe closes.
func exitOnEOF(stdin io.Reader, exit func(why string)) {
	_, _ = io.Copy(io.Discard, stdin)
	exit("host is gone (stdin closed)")
}

// exitOnOrphan exits the process when its parent changes, i.e. the host
// died and the plugin was reparented.
func exitOnOrphan(ppid int, exit func(why string)) {
	for {
		time.Sleep(500 * time.Millisecond)
		if os.Getppid() != ppid {
			exit("host is gone (parent changed)")
		}
	}
}

// exitOnSignal exits the process, through the OnExit hook, on SIGTERM,
// unless the plugin ignores SIGTERM. (go-plugin ignores SIGINT: an editor's
// Ctrl-C is for the host.)
func exitOnSignal(exit func(why string)) {
	if signal.Ignored(syscall.SIGTERM) {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	<-ch
	signal.Reset(syscall.SIGTERM) // a second SIGTERM kills at once
	exit("got SIGTERM")
}

// describeJSON is the --describe output.
type describeJSON struct {
	Name          string         `json:"name"`
	Version       string         `json:"version"`
	Protocol      int            `json:"protocol"`
	ProtocolMinor int            `json:"protocolMinor"`
	Tools         []toolSpecJSON `json:"tools"`
	EventTypes    []string       `json:"eventTypes"`
	SDKVersion    string         `json:"sdkVersion,omitempty"`
	StartEarly    bool           `json:"startEarly,omitempty"`
	Capabilities  *Capabilities  `json:"capabilities,omitempty"`
}

type toolSpecJSON struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	Parameters      json.RawMessage `json:"parameters"`
	ConcurrencySafe bool            `json:"concurrencySafe"`
	NeedsPermission bool            `json:"needsPermission"`
	Kind            string          `json:"kind,omitempty"`
	Preview         bool            `json:"preview,omitempty"`
	Title           string          `json:"title,omitempty"`
}

func printDescription(w io.Writer, p *Plugin) int {
	d := describeJSON{
		Name: p.Name, Version: p.Version, Protocol: ProtocolVersion, ProtocolMinor: ProtocolMinor,
		Tools: []toolSpecJSON{}, EventTypes: append([]string{}, p.EventTypes...),
		SDKVersion: SDKVersion(), StartEarly: p.StartEarly,
	}
	if !p.Capabilities.IsDefault() {
		c := p.Capabilities
		d.Capabilities = &c
	}
	for _, t := range p.Tools {
		d.Tools = append(d.Tools, toolSpecJSON{
			Name: t.Spec.Name, Description: t.Spec.Description, Parameters: t.Spec.Schema,
			ConcurrencySafe: t.Spec.ConcurrencySafe, NeedsPermission: t.Spec.NeedsPermission,
			Kind: t.Spec.Kind, Preview: t.Preview != nil, Title: t.Spec.Title,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return 1
	}
	return 0
}
