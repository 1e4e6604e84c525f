// Command previewcount is a test plugin that counts the Preview RPCs it
// gets, per tool: it serves ToolProvider itself (not through
// pluginapi.Serve, which answers Preview for a tool without one before any
// code of the plugin runs), so that every RPC is seen.
//
// Its tools: "plain" declares no preview, "shown" declares one (its
// preview titles the call "Show <what>"), and "count" answers the counts
// so far as JSON ({"plain":N,"shown":M}). It speaks the minor given at
// link time (-X main.minor=N, default 5): a plugin before minor 5 declares
// no preview, even for "shown".
package main

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harness-dev/harness/pluginapi"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// minor is the protocol minor the plugin says it speaks.
var minor = "5"

type server struct {
	pb.UnimplementedToolProviderServer
	minor uint32

	mu     sync.Mutex
	counts map[string]int
}

func (s *server) Describe(context.Context, *pb.Describe_Request) (*pb.Describe_Response, error) {
	schema := `{"type":"object","properties":{"what":{"type":"string"}}}`
	return &pb.Describe_Response{
		PluginName: "previewcount", PluginVersion: "0.0.1", ProtocolMinor: s.minor,
		Tools: []*pb.ToolSpec{
			{Name: "plain", Description: "Has no preview.", ParametersJsonSchema: schema},
			{Name: "shown", Description: "Has a preview.", ParametersJsonSchema: schema, Kind: pluginapi.KindEdit,
				HasPreview: s.minor >= 5},
			{Name: "count", Description: "Counts the Preview RPCs.", ParametersJsonSchema: `{"type":"object"}`},
		},
	}, nil
}

func (s *server) Configure(context.Context, *pb.Configure_Request) (*pb.Configure_Response, error) {
	return &pb.Configure_Response{}, nil
}

func (s *server) Preview(_ context.Context, req *pb.Preview_Request) (*pb.Preview_Response, error) {
	tool := req.GetCall().GetTool()
	s.mu.Lock()
	s.counts[tool]++
	s.mu.Unlock()
	if tool != "shown" {
		return &pb.Preview_Response{}, nil
	}
	var args struct{ What string }
	_ = json.Unmarshal(req.GetCall().GetArgsJson(), &args)
	return &pb.Preview_Response{Meta: &pb.ToolMeta{Title: "Show " + args.What}}, nil
}

func (s *server) Execute(req *pb.Execute_Request, stream grpc.ServerStreamingServer[pb.Execute_Event]) error {
	content := "ran " + req.GetTool()
	if req.GetTool() == "count" {
		s.mu.Lock()
		b, _ := json.Marshal(map[string]int{"plain": s.counts["plain"], "shown": s.counts["shown"]})
		s.mu.Unlock()
		content = string(b)
	}
	return stream.Send(&pb.Execute_Event{Event: &pb.Execute_Event_Result{Result: &pb.Execute_Result{Content: content}}})
}

type tools struct {
	plugin.NetRPCUnsupportedPlugin
	s *server
}

func (t tools) GRPCServer(_ *plugin.GRPCBroker, g *grpc.Server) error {
	pb.RegisterToolProviderServer(g, t.s)
	return nil
}

func (tools) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

func main() {
	m, err := strconv.ParseUint(minor, 10, 32)
	if err != nil {
		panic(err)
	}
	s := &server{minor: uint32(m), counts: map[string]int{}}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  pluginapi.ProtocolVersion,
			MagicCookieKey:   pluginapi.MagicCookieKey,
			MagicCookieValue: pluginapi.MagicCookieValue,
		},
		VersionedPlugins: map[int]plugin.PluginSet{pluginapi.ProtocolVersion: {"tools": tools{s: s}}},
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}
