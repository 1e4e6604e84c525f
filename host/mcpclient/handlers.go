package mcpclient

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newClient is the MCP client of the server's connection gen: what it
// tells the server it can do (its capabilities) and how it handles what
// the server sends it unasked. A notification of an older connection
// (gen no longer current) is ignored.
func (sv *server) newClient(gen int64) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: sv.opts.ClientName, Version: sv.opts.ClientVersion}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			if sv.gen.Load() == gen {
				sv.stale.Store(true)
			}
		},
		// progress of a running call, routed by its token (progress.go)
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			sv.prog.notify(req.Session, req.Params)
		},
	})
}
