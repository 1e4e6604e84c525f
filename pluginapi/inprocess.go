package pluginapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

// InProcess is a plugin served inside this process by [ServeInProcess],
// for tests: package plugintest connects a host to it. Plugin authors use
// plugintest rather than this.
type InProcess struct {
	reattach  *plugin.ReattachConfig
	closed    <-chan struct{}
	stopServe context.CancelFunc
	server    *toolServer
}

// ServeInProcess serves p in this process through the same path as [Serve]
// (go-plugin in its test mode, gRPC over a Unix socket, the same server
// options and broker) and returns once it listens. logger receives the
// plugin's log (its Call.Logger, panics); nil means none. A host connects
// with pluginhost.StartInProcess.
func ServeInProcess(ctx context.Context, p Plugin, logger hclog.Logger) (*InProcess, error) {
	if err := validatePlugin(&p); err != nil {
		return nil, fmt.Errorf("start plugin in process: %w", err)
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	serveCtx, stopServe := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	server := newToolServer(&p, logger)
	go plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: pluginSets(server),
		GRPCServer:       wire.ServerFactory(logger),
		Logger:           logger,
		Test: &plugin.ServeTestConfig{
			Context:          serveCtx,
			ReattachConfigCh: reattach,
			CloseCh:          closed,
		},
	})
	select {
	case rc := <-reattach:
		return &InProcess{reattach: rc, closed: closed, stopServe: stopServe, server: server}, nil
	case <-closed:
		stopServe()
		return nil, errors.New("start plugin in process: the server stopped before serving")
	case <-ctx.Done():
		stopServe()
		<-closed
		return nil, fmt.Errorf("start plugin in process: %w", ctx.Err())
	}
}

// Reattach is where the server listens, for a go-plugin client.
func (s *InProcess) Reattach() *plugin.ReattachConfig { return s.reattach }

// Done is closed when the server has stopped.
func (s *InProcess) Done() <-chan struct{} { return s.closed }

// Stop stops the server, waits for it and calls the plugin's OnExit.
// Close the client's connection first: both at once race inside go-plugin
// (GRPCServer.Stop).
func (s *InProcess) Stop() {
	s.stopServe()
	<-s.closed
	s.server.exit()
}
