package toolbox

import (
	"encoding/json"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// The crossing between the host's tool vocabulary (host/tool) and the
// plugin SDK's (pluginapi): toPlugin one way, fromPlugin (with
// metaFromPlugin; checkEvents makes the events) the other. Nothing else
// in the host converts them.

// toPlugin is c as a plugin is sent it, with its arguments checked (args).
func toPlugin(c tool.Call, args json.RawMessage) pluginapi.CallRequest {
	req := pluginapi.CallRequest{Tool: c.Name, Args: args, SessionID: c.SessionID,
		Caller: pluginapi.CallerKind(c.Caller), Turn: c.Turn, CallID: c.CallID, Cwd: c.Cwd}
	if s := c.Sandbox; s != nil {
		req.Sandbox = &pluginapi.CallSandbox{Mode: s.Mode, Network: s.Network, WritableRoots: s.Roots,
			DenyRead: s.DenyRead, PidsLimit: s.PidsLimit}
	}
	return req
}

// fromPlugin is a plugin's result in the host's vocabulary, with its
// events as checkEvents returned them.
func fromPlugin(r pluginapi.Result, events []tool.Emitted) tool.Result {
	return tool.Result{Content: r.Content, IsError: r.IsError, Events: events, Meta: metaFromPlugin(r.Meta)}
}

// metaFromPlugin is a plugin's Meta in the host's vocabulary.
func metaFromPlugin(m pluginapi.Meta) tool.Meta {
	out := tool.Meta{Title: m.Title}
	for _, l := range m.Locations {
		out.Locations = append(out.Locations, event.Location{Path: l.Path, Line: l.Line})
	}
	for _, d := range m.Diffs {
		out.Diffs = append(out.Diffs, event.Diff{Path: d.Path, OldText: d.OldText, NewText: d.NewText, NewFile: d.NewFile})
	}
	return out
}
