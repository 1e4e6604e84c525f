package pluginapi

import (
	"bytes"
	"encoding/json"

	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// Conversions between the Go contract types and the generated ones. Nothing
// generated leaves this package.

func describeToPB(p *Plugin) *pb.Describe_Response {
	r := &pb.Describe_Response{
		PluginName:    p.Name,
		PluginVersion: p.Version,
		ProtocolMinor: ProtocolMinor,
		EventTypes:    append([]string(nil), p.EventTypes...),
	}
	for _, t := range p.Tools {
		r.Tools = append(r.Tools, &pb.ToolSpec{
			Name:                 t.Spec.Name,
			Description:          t.Spec.Description,
			ParametersJsonSchema: compactJSON(t.Spec.Schema),
			ConcurrencySafe:      t.Spec.ConcurrencySafe,
			NeedsPermission:      t.Spec.NeedsPermission,
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

func describeFromPB(r *pb.Describe_Response) Description {
	d := Description{
		Name:          r.GetPluginName(),
		Version:       r.GetPluginVersion(),
		ProtocolMinor: int(r.GetProtocolMinor()),
		EventTypes:    r.GetEventTypes(),
	}
	for _, t := range r.GetTools() {
		d.Tools = append(d.Tools, ToolSpec{
			Name:            t.GetName(),
			Description:     t.GetDescription(),
			Schema:          json.RawMessage(t.GetParametersJsonSchema()),
			ConcurrencySafe: t.GetConcurrencySafe(),
			NeedsPermission: t.GetNeedsPermission(),
		})
	}
	return d
}

func callerToPB(c CallerKind) pb.Execute_Caller {
	switch c {
	case CallerAgent:
		return pb.Execute_CALLER_AGENT
	case CallerNone:
		return pb.Execute_CALLER_NONE
	}
	return pb.Execute_CALLER_UNSPECIFIED
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

func callToPB(c CallRequest) *pb.Execute_Request {
	return &pb.Execute_Request{
		Tool:      c.Tool,
		ArgsJson:  c.Args,
		SessionId: c.SessionID,
		Caller:    callerToPB(c.Caller),
		Turn:      uint32(max(c.Turn, 0)),
		CallId:    c.CallID,
		Cwd:       c.Cwd,
	}
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
	}
}

func resultToPB(r Result) *pb.Execute_Result {
	out := &pb.Execute_Result{Content: r.Content, IsError: r.IsError}
	for _, e := range r.Events {
		out.Events = append(out.Events, &pb.SessionEvent{Type: e.Type, DataJson: e.Data})
	}
	return out
}

func resultFromPB(r *pb.Execute_Result) Result {
	out := Result{Content: r.GetContent(), IsError: r.GetIsError()}
	for _, e := range r.GetEvents() {
		out.Events = append(out.Events, Event{Type: e.GetType(), Data: json.RawMessage(e.GetDataJson())})
	}
	return out
}

func stateToPB(s ReadStateResponse) *pb.ReadState_Response {
	out := &pb.ReadState_Response{Cwd: s.Cwd}
	for _, t := range s.Todos {
		out.Todos = append(out.Todos, &pb.Todo{Content: t.Content, Status: t.Status})
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
