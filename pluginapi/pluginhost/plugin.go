package pluginhost

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-dev/harness/pluginapi"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  pluginapi.ProtocolVersion,
		MagicCookieKey:   pluginapi.MagicCookieKey,
		MagicCookieValue: pluginapi.MagicCookieValue,
	}
}

// grpcPlugin binds ToolProvider to go-plugin on the host's side; the
// plugin's binding is in package pluginapi.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("package pluginhost is the host side; plugins serve with pluginapi.Serve")
}

// GRPCClient returns the host's handle on a dispensed plugin; exited is
// cancelled by go-plugin when the plugin process is gone.
func (grpcPlugin) GRPCClient(exited context.Context, broker *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return &dispensed{tp: pb.NewToolProviderClient(cc), broker: broker, exited: exited}, nil
}

type dispensed struct {
	tp     pb.ToolProviderClient
	broker *plugin.GRPCBroker
	exited context.Context
}

func pluginSets() map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{pluginapi.ProtocolVersion: {wire.PluginSetName: grpcPlugin{}}}
}
