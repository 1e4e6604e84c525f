package pluginhost

import (
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// Conversions between the Go contract types and the generated ones, the
// host's way; package pluginapi has the plugin's. Nothing generated leaves
// this package.

func describeFromPB(r *pb.Describe_Response) pluginapi.Description {
	d := pluginapi.Description{
		Name:          r.GetPluginName(),
		Version:       r.GetPluginVersion(),
		ProtocolMinor: int(r.GetProtocolMinor()),
		EventTypes:    r.GetEventTypes(),
		SDKVersion:    r.GetSdkVersion(),
		StartEarly:    r.GetStartEarly(),
		Capabilities:  capsFromPB(r.GetCapabilities()),
	}
	for _, t := range r.GetTools() {
		d.Tools = append(d.Tools, pluginapi.ToolSpec{
			Name:            t.GetName(),
			Description:     t.GetDescription(),
			Schema:          json.RawMessage(t.GetParametersJsonSchema()),
			ConcurrencySafe: t.GetConcurrencySafe(),
			NeedsPermission: t.GetNeedsPermission(),
			Kind:            t.GetKind(),
			HasPreview:      t.GetHasPreview(),
			Title:           t.GetTitle(),
		})
	}
	return d
}

func callerToPB(c pluginapi.CallerKind) pb.Execute_Caller {
	switch c {
	case pluginapi.CallerAgent:
		return pb.Execute_CALLER_AGENT
	case pluginapi.CallerNone:
		return pb.Execute_CALLER_NONE
	}
	return pb.Execute_CALLER_UNSPECIFIED
}

func callToPB(c pluginapi.CallRequest) *pb.Execute_Request {
	return &pb.Execute_Request{
		Tool:      c.Tool,
		ArgsJson:  c.Args,
		SessionId: c.SessionID,
		Caller:    callerToPB(c.Caller),
		Turn:      uint32(max(c.Turn, 0)),
		CallId:    c.CallID,
		Cwd:       c.Cwd,
		Sandbox:   sandboxToPB(c.Sandbox),
	}
}

// sandboxToPB converts a call's sandbox; nil when there is none.
func sandboxToPB(s *pluginapi.CallSandbox) *pb.CallSandbox {
	if s == nil {
		return nil
	}
	return &pb.CallSandbox{
		Mode: s.Mode, Network: s.Network, WritableRoots: s.WritableRoots,
		DenyRead: s.DenyRead, PidsLimit: uint32(max(s.PidsLimit, 0)),
	}
}

func resultFromPB(r *pb.Execute_Result) pluginapi.Result {
	out := pluginapi.Result{Content: r.GetContent(), IsError: r.GetIsError(), HoldsState: r.GetHoldsState()}
	for _, e := range r.GetEvents() {
		out.Events = append(out.Events, pluginapi.Event{Type: e.GetType(), Data: json.RawMessage(e.GetDataJson())})
	}
	out.Meta = metaFromPB(r.GetMeta())
	return out
}

func metaFromPB(m *pb.ToolMeta) pluginapi.Meta {
	out := pluginapi.Meta{Title: m.GetTitle()}
	for _, l := range m.GetLocations() {
		out.Locations = append(out.Locations, pluginapi.Location{Path: l.GetPath(), Line: int(l.GetLine())})
	}
	for _, d := range m.GetDiffs() {
		out.Diffs = append(out.Diffs, pluginapi.Diff{Path: d.GetPath(), OldText: d.GetOldText(), NewText: d.GetNewText(), NewFile: d.GetNewFile()})
	}
	return out
}

func stateToPB(s pluginapi.ReadStateResponse) *pb.ReadState_Response {
	out := &pb.ReadState_Response{Cwd: s.Cwd}
	for _, t := range s.Todos {
		out.Todos = append(out.Todos, &pb.Todo{Content: t.Content, Status: t.Status})
	}
	return out
}

// capsFromPB converts a Describe's capabilities (nil: the default).
func capsFromPB(c *pb.Capabilities) pluginapi.Capabilities {
	if c == nil {
		return pluginapi.Capabilities{}
	}
	return pluginapi.Capabilities{Network: c.GetNetwork(), Write: c.GetWrite(), Read: c.GetRead(), Exec: c.GetExec(), Sandboxes: c.GetSandboxes()}
}
