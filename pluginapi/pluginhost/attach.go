package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

// ParseReattach parses the value of $HARNESS_REATTACH_PLUGINS: a JSON
// object mapping plugin names to ReattachConfigs. An empty value gives no
// plugins. Each entry is checked: protocol grpc, the protocol version this
// package speaks, a unix or tcp address, a pid.
func ParseReattach(value string) (map[string]pluginapi.ReattachConfig, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	var m map[string]pluginapi.ReattachConfig
	if err := json.Unmarshal([]byte(value), &m); err != nil {
		return nil, fmt.Errorf("parse %s: %s", pluginapi.EnvReattach, strings.TrimPrefix(err.Error(), "json: "))
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := checkReattach(m[name]); err != nil {
			return nil, fmt.Errorf("parse %s: plugin %q: %w", pluginapi.EnvReattach, name, err)
		}
	}
	return m, nil
}

func checkReattach(rc pluginapi.ReattachConfig) error {
	switch {
	case rc.Protocol != "" && rc.Protocol != string(plugin.ProtocolGRPC):
		return fmt.Errorf("protocol %q: harness plugins speak grpc", rc.Protocol)
	case rc.ProtocolVersion != pluginapi.ProtocolVersion:
		return fmt.Errorf("plugin protocol %d; this harness speaks %d", rc.ProtocolVersion, pluginapi.ProtocolVersion)
	case rc.Pid <= 0:
		return errors.New("no Pid")
	}
	_, err := netAddr(rc.Addr)
	return err
}

func netAddr(a pluginapi.ReattachAddr) (net.Addr, error) {
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

// Attach connects to a plugin serving in debug mode (see [EnvDebug]) and
// returns a Client for it, as Launch does for a process it starts. The
// plugin belongs to whoever started it: Close only disconnects, and
// Configure, Execute and the rest work as usual. Exited is closed when the
// process is gone, and PID is 0. Attach fails if the plugin does not
// answer gRPC's health check within ctx.
func Attach(ctx context.Context, name string, rc pluginapi.ReattachConfig, logger hclog.Logger) (*Client, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if err := checkReattach(rc); err != nil {
		return nil, fmt.Errorf("attach to plugin %s: %w", name, err)
	}
	addr, _ := netAddr(rc.Addr) // checked
	detached := make(chan struct{})
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake(),
		// A reattached client takes its plugin set from Plugins.
		Plugins: pluginSets()[pluginapi.ProtocolVersion],
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
		GRPCDialOptions:  wire.DialOptions(),
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
	var d *dispensed
	if err == nil {
		d, err = dispense(cp)
	}
	if err != nil {
		detach()
		return nil, fmt.Errorf("attach to plugin %s at %s %s (pid %d): %w", name, rc.Addr.Network, rc.Addr.String, rc.Pid, err)
	}
	c := newClient(name, logger.Named(name), pc, d.exited.Done(), nil)
	c.d = d
	// Close detaches (the field serves in-process and attached plugins
	// alike: there is no process of ours to stop).
	c.stopInProc = detach
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
