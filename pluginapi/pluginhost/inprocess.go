package pluginhost

import (
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/internal/wire"

	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
)

// InProcessConfig configures StartInProcess.
type InProcessConfig struct {
	// Logger receives the plugin's log (its Call.Logger, panics); default
	// none.
	Logger hclog.Logger
}

// StartInProcess serves p in this process and returns a Client connected
// to it through the same path as a launched plugin: go-plugin (in its test
// mode, reattached), gRPC over a Unix socket, the same server options and
// the same broker for HostServices. There is no process: PID is 0 and Close
// stops the server. Package plugintest wraps it for tests; prefer that.
func StartInProcess(ctx context.Context, p pluginapi.Plugin, cfg InProcessConfig) (*Client, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	srv, err := pluginapi.ServeInProcess(ctx, p, logger)
	if err != nil {
		return nil, err
	}
	closed := srv.Done()
	rc := srv.Reattach()
	// Our own attached runner: go-plugin's default would poll this
	// process's pid every second, forever.
	rc.ReattachFunc = func() (runner.AttachedRunner, error) { return inProcRunner{closed: closed}, nil }
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake(),
		// A reattached client takes its plugin set from Plugins.
		Plugins:          pluginSets()[pluginapi.ProtocolVersion],
		Reattach:         rc,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger,
		GRPCDialOptions:  wire.DialOptions(),
	})
	c := newClient(p.Name, logger.Named(p.Name), pc, closed, nil)
	proto, err := pc.Client()
	if err == nil {
		c.d, err = dispense(proto)
	}
	c.stopInProc = func() {
		// Close the broker, ask the server to stop (Shutdown) and close
		// the conn; cancel go-plugin's test context only if that failed:
		// both at once race inside go-plugin (GRPCServer.Stop).
		if proto != nil {
			_ = proto.Close()
			select {
			case <-closed:
			case <-time.After(2 * time.Second):
			}
		}
		srv.Stop()
	}
	if err != nil {
		c.stopInProc()
		return nil, fmt.Errorf("start plugin in process: connect: %w", err)
	}
	return c, nil
}

// inProcRunner stands for the plugin "process" of StartInProcess: it is
// gone when the in-process server has stopped.
type inProcRunner struct{ closed <-chan struct{} }

func (r inProcRunner) Wait(context.Context) error {
	<-r.closed
	return nil
}
func (r inProcRunner) Kill(context.Context) error { return nil }
func (r inProcRunner) ID() string                 { return "in-process" }
func (r inProcRunner) PluginToHost(n, a string) (string, string, error) {
	return n, a, nil
}
func (r inProcRunner) HostToPlugin(n, a string) (string, string, error) {
	return n, a, nil
}
