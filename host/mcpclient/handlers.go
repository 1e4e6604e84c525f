package mcpclient

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newClient is the MCP client of the server's connection gen: what it
// tells the server it can do (its capabilities) and how it handles what
// the server sends it unasked. A notification of an older connection
// (gen no longer current) is ignored.
//
// It offers roots (the session's folders, list_changed sent when they
// change: roots.go), elicitation in form mode (elicit.go) and sampling
// (sampling.go: refused unless the server's entry allows it), so that a
// server shows the tools that need them; a request it cannot serve gets
// an answer saying why.
func (sv *server) newClient(gen int64) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: sv.opts.ClientName, Version: sv.opts.ClientVersion}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
			Sampling:    &mcp.SamplingCapabilities{},
		},
		ElicitationHandler:   sv.elicit,
		CreateMessageHandler: sv.sample,
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			if sv.gen.Load() == gen {
				go sv.refreshPrompts(gen)
			}
		},
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
	sv.caps.roots.attach(sv, c)
	return c
}
