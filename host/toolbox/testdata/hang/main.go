// Command hang is a test plugin that completes the plugin handshake and
// then never answers: every call of the harness protocol (Describe first)
// blocks until the host gives up on it. go-plugin's own services (health,
// broker, stdio, shutdown) work, so the host can still stop it.
package main

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-dev/harness/pluginapi"
)

type tools struct{ plugin.NetRPCUnsupportedPlugin }

func (tools) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error { return nil }
func (tools) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  pluginapi.ProtocolVersion,
			MagicCookieKey:   pluginapi.MagicCookieKey,
			MagicCookieValue: pluginapi.MagicCookieValue,
		},
		VersionedPlugins: map[int]plugin.PluginSet{pluginapi.ProtocolVersion: {"tools": tools{}}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.UnknownServiceHandler(func(_ any, s grpc.ServerStream) error {
				<-s.Context().Done()
				return s.Context().Err()
			}))...)
		},
	})
}
