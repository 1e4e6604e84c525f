package pluginapi

import (
	"bytes"
	"encoding/json"

	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// Conversions between the Go contract types and the generated ones, the
// plugin's way; package pluginhost has the host's. Nothing generated leaves
// this package.

func describeToPB(p *Plugin) *pb.Describe_Response {
	r := &pb.Describe_Response{
		PluginName:    p.Name,
		PluginVersion: p.Version,
		ProtocolMinor: ProtocolMinor,
		EventTypes:    append([]string(nil), p.EventTypes...),
		SdkVersion:    SDKVersion(),
		StartEarly:    p.StartEarly,
		Capabilities:  capsToPB(p.Capabilities),
	}
	for _, t := range p.Tools {
		r.Tools = append(r.Tools, &pb.ToolSpec{
			Name:                 t.Spec.Name,
			Description:          t.Spec.Description,
			ParametersJsonSchema: compactJSON(t.Spec.Schema),
			ConcurrencySafe:      t.Spec.ConcurrencySafe,
			NeedsPermission:      t.Spec.NeedsPermission,
			Kind:                 t.Spec.Kind,
			HasPreview:           t.Preview != nil,
			Title:                t.Spec.Title,
		})
	}
	return r
}

// compactJSON drops the insignificant space of a schema file.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func callerFromPB(c pb.Execute_Caller) CallerKind {
	switch c {
	case pb.Execute_CALLER_AGENT:
		return CallerAgent
	case pb.Execute_CALLER_NONE:
		return CallerNone
	}
	return ""
}

func callFromPB(r *pb.Execute_Request) CallRequest {
	return CallRequest{
		Tool:      r.GetTool(),
		Args:      json.RawMessage(r.GetArgsJson()),
		SessionID: r.GetSessionId(),
		Caller:    callerFromPB(r.GetCaller()),
		Turn:      int(r.GetTurn()),
		CallID:    r.GetCallId(),
		Cwd:       r.GetCwd(),
		Sandbox:   sandboxFromPB(r.GetSandbox()),
	}
}

// sandboxFromPB converts a call's sandbox; nil when the host sent none.
func sandboxFromPB(s *pb.CallSandbox) *CallSandbox {
	if s == nil {
		return nil
	}
	return &CallSandbox{
		Mode: s.GetMode(), Network: s.GetNetwork(), WritableRoots: s.GetWritableRoots(),
		DenyRead: s.GetDenyRead(), PidsLimit: int(s.GetPidsLimit()),
	}
}

func resultToPB(r Result) *pb.Execute_Result {
	out := &pb.Execute_Result{Content: r.Content, IsError: r.IsError, HoldsState: r.HoldsState}
	for _, e := range r.Events {
		out.Events = append(out.Events, &pb.SessionEvent{Type: e.Type, DataJson: e.Data})
	}
	out.Meta = metaToPB(r.Meta)
	return out
}

// metaToPB converts m; nil when it says nothing.
func metaToPB(m Meta) *pb.ToolMeta {
	if m.IsZero() {
		return nil
	}
	out := &pb.ToolMeta{Title: m.Title}
	for _, l := range m.Locations {
		out.Locations = append(out.Locations, &pb.Location{Path: l.Path, Line: uint32(max(l.Line, 0))})
	}
	for _, d := range m.Diffs {
		out.Diffs = append(out.Diffs, &pb.FileDiff{Path: d.Path, OldText: d.OldText, NewText: d.NewText, NewFile: d.NewFile})
	}
	return out
}

func stateFromPB(r *pb.ReadState_Response) ReadStateResponse {
	out := ReadStateResponse{Cwd: r.GetCwd()}
	for _, t := range r.GetTodos() {
		out.Todos = append(out.Todos, Todo{Content: t.GetContent(), Status: t.GetStatus()})
	}
	return out
}

// capsToPB converts c; nil when it asks for nothing.
func capsToPB(c Capabilities) *pb.Capabilities {
	if c.IsDefault() {
		return nil
	}
	return &pb.Capabilities{
		Network:   c.Network,
		Write:     append([]string(nil), c.Write...),
		Read:      append([]string(nil), c.Read...),
		Exec:      c.Exec,
		Sandboxes: c.Sandboxes,
	}
}
