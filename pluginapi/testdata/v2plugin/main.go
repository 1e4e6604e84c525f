// Command v2plugin speaks plugin protocol 2 only, with the harness cookie:
// a plugin built for a newer harness.
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
			ProtocolVersion:  2,
			MagicCookieKey:   pluginapi.MagicCookieKey,
			MagicCookieValue: pluginapi.MagicCookieValue,
		},
		VersionedPlugins: map[int]plugin.PluginSet{2: {"tools": tools{}}},
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}
