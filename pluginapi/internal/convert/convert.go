// Package convert is the plugin protocol's protobuf mapping, in one place
// and both ways: XToProto turns the Go type X of package contract (which
// package pluginapi names by aliases) into its generated message, and
// XFromProto turns the message back, for every message the two sides
// exchange. The plugin side (package pluginapi) and the host side
// (package pluginhost) both use it, so a field added to the protocol is
// mapped once. FromProto accepts nil (the zero value); ToProto of a value
// that says nothing returns nil where the field is optional (Meta,
// Capabilities, CallSandbox). Nothing generated leaves the SDK's module.
package convert

import (
	"bytes"
	"encoding/json"

	"github.com/harness-dev/harness/pluginapi/internal/contract"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// DescriptionToProto maps a plugin's description (Describe's answer).
func DescriptionToProto(d contract.Description) *pb.Describe_Response {
	r := &pb.Describe_Response{
		PluginName:    d.Name,
		PluginVersion: d.Version,
		ProtocolMinor: uint32(max(d.ProtocolMinor, 0)),
		EventTypes:    append([]string(nil), d.EventTypes...),
		SdkVersion:    d.SDKVersion,
		StartEarly:    d.StartEarly,
		Capabilities:  CapabilitiesToProto(d.Capabilities),
	}
	for _, t := range d.Tools {
		r.Tools = append(r.Tools, ToolSpecToProto(t))
	}
	return r
}

// DescriptionFromProto maps Describe's answer.
func DescriptionFromProto(r *pb.Describe_Response) contract.Description {
	d := contract.Description{
		Name:          r.GetPluginName(),
		Version:       r.GetPluginVersion(),
		ProtocolMinor: int(r.GetProtocolMinor()),
		EventTypes:    r.GetEventTypes(),
		SDKVersion:    r.GetSdkVersion(),
		StartEarly:    r.GetStartEarly(),
		Capabilities:  CapabilitiesFromProto(r.GetCapabilities()),
	}
	for _, t := range r.GetTools() {
		d.Tools = append(d.Tools, ToolSpecFromProto(t))
	}
	return d
}

// ToolSpecToProto maps a tool's spec; its schema is sent compacted.
func ToolSpecToProto(t contract.ToolSpec) *pb.ToolSpec {
	return &pb.ToolSpec{
		Name:                 t.Name,
		Description:          t.Description,
		ParametersJsonSchema: compactJSON(t.Schema),
		ConcurrencySafe:      t.ConcurrencySafe,
		NeedsPermission:      t.NeedsPermission,
		Kind:                 t.Kind,
		HasPreview:           t.HasPreview,
		Title:                t.Title,
	}
}

// ToolSpecFromProto maps a tool's spec.
func ToolSpecFromProto(t *pb.ToolSpec) contract.ToolSpec {
	return contract.ToolSpec{
		Name:            t.GetName(),
		Description:     t.GetDescription(),
		Schema:          json.RawMessage(t.GetParametersJsonSchema()),
		ConcurrencySafe: t.GetConcurrencySafe(),
		NeedsPermission: t.GetNeedsPermission(),
		Kind:            t.GetKind(),
		HasPreview:      t.GetHasPreview(),
		Title:           t.GetTitle(),
	}
}

// compactJSON drops the insignificant space of a schema file.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// CapabilitiesToProto maps c; nil when it asks for nothing.
func CapabilitiesToProto(c contract.Capabilities) *pb.Capabilities {
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

// CapabilitiesFromProto maps a Describe's capabilities (nil: the default).
func CapabilitiesFromProto(c *pb.Capabilities) contract.Capabilities {
	return contract.Capabilities{Network: c.GetNetwork(), Write: c.GetWrite(), Read: c.GetRead(), Exec: c.GetExec(), Sandboxes: c.GetSandboxes()}
}

// CallerToProto maps who makes a call; an unknown kind is unspecified.
func CallerToProto(c contract.CallerKind) pb.Execute_Caller {
	switch c {
	case contract.CallerAgent:
		return pb.Execute_CALLER_AGENT
	case contract.CallerNone:
		return pb.Execute_CALLER_NONE
	}
	return pb.Execute_CALLER_UNSPECIFIED
}

// CallerFromProto maps who makes a call; unspecified or unknown is "".
func CallerFromProto(c pb.Execute_Caller) contract.CallerKind {
	switch c {
	case pb.Execute_CALLER_AGENT:
		return contract.CallerAgent
	case pb.Execute_CALLER_NONE:
		return contract.CallerNone
	}
	return ""
}

// CallToProto maps a call (Execute's request, and Preview's call).
func CallToProto(c contract.CallRequest) *pb.Execute_Request {
	return &pb.Execute_Request{
		Tool:      c.Tool,
		ArgsJson:  c.Args,
		SessionId: c.SessionID,
		Caller:    CallerToProto(c.Caller),
		Turn:      uint32(max(c.Turn, 0)),
		CallId:    c.CallID,
		Cwd:       c.Cwd,
		Sandbox:   SandboxToProto(c.Sandbox),
	}
}

// CallFromProto maps a call.
func CallFromProto(r *pb.Execute_Request) contract.CallRequest {
	return contract.CallRequest{
		Tool:      r.GetTool(),
		Args:      json.RawMessage(r.GetArgsJson()),
		SessionID: r.GetSessionId(),
		Caller:    CallerFromProto(r.GetCaller()),
		Turn:      int(r.GetTurn()),
		CallID:    r.GetCallId(),
		Cwd:       r.GetCwd(),
		Sandbox:   SandboxFromProto(r.GetSandbox()),
	}
}

// SandboxToProto maps a call's sandbox; nil when there is none.
func SandboxToProto(s *contract.CallSandbox) *pb.CallSandbox {
	if s == nil {
		return nil
	}
	return &pb.CallSandbox{
		Mode: s.Mode, Network: s.Network, WritableRoots: s.WritableRoots,
		DenyRead: s.DenyRead, PidsLimit: uint32(max(s.PidsLimit, 0)),
	}
}

// SandboxFromProto maps a call's sandbox; nil when the host sent none.
func SandboxFromProto(s *pb.CallSandbox) *contract.CallSandbox {
	if s == nil {
		return nil
	}
	return &contract.CallSandbox{
		Mode: s.GetMode(), Network: s.GetNetwork(), WritableRoots: s.GetWritableRoots(),
		DenyRead: s.GetDenyRead(), PidsLimit: int(s.GetPidsLimit()),
	}
}

// ResultToProto maps a call's result.
func ResultToProto(r contract.Result) *pb.Execute_Result {
	out := &pb.Execute_Result{Content: r.Content, IsError: r.IsError, HoldsState: r.HoldsState, Meta: MetaToProto(r.Meta)}
	for _, e := range r.Events {
		out.Events = append(out.Events, &pb.SessionEvent{Type: e.Type, DataJson: e.Data})
	}
	return out
}

// ResultFromProto maps a call's result.
func ResultFromProto(r *pb.Execute_Result) contract.Result {
	out := contract.Result{Content: r.GetContent(), IsError: r.GetIsError(), HoldsState: r.GetHoldsState(), Meta: MetaFromProto(r.GetMeta())}
	for _, e := range r.GetEvents() {
		out.Events = append(out.Events, contract.Event{Type: e.GetType(), Data: json.RawMessage(e.GetDataJson())})
	}
	return out
}

// MetaToProto maps m; nil when it says nothing.
func MetaToProto(m contract.Meta) *pb.ToolMeta {
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

// MetaFromProto maps a call's meta (nil: none).
func MetaFromProto(m *pb.ToolMeta) contract.Meta {
	out := contract.Meta{Title: m.GetTitle()}
	for _, l := range m.GetLocations() {
		out.Locations = append(out.Locations, contract.Location{Path: l.GetPath(), Line: int(l.GetLine())})
	}
	for _, d := range m.GetDiffs() {
		out.Diffs = append(out.Diffs, contract.Diff{Path: d.GetPath(), OldText: d.GetOldText(), NewText: d.GetNewText(), NewFile: d.GetNewFile()})
	}
	return out
}

// ReadStateRequestToProto maps HostServices.ReadState's request.
func ReadStateRequestToProto(r contract.ReadStateRequest) *pb.ReadState_Request {
	return &pb.ReadState_Request{SessionId: r.SessionID}
}

// ReadStateRequestFromProto maps HostServices.ReadState's request.
func ReadStateRequestFromProto(r *pb.ReadState_Request) contract.ReadStateRequest {
	return contract.ReadStateRequest{SessionID: r.GetSessionId()}
}

// StateToProto maps a session's state (ReadState's answer).
func StateToProto(s contract.ReadStateResponse) *pb.ReadState_Response {
	out := &pb.ReadState_Response{Cwd: s.Cwd}
	for _, t := range s.Todos {
		out.Todos = append(out.Todos, &pb.Todo{Content: t.Content, Status: t.Status})
	}
	return out
}

// StateFromProto maps a session's state.
func StateFromProto(r *pb.ReadState_Response) contract.ReadStateResponse {
	out := contract.ReadStateResponse{Cwd: r.GetCwd()}
	for _, t := range r.GetTodos() {
		out.Todos = append(out.Todos, contract.Todo{Content: t.GetContent(), Status: t.GetStatus()})
	}
	return out
}

// PermissionRequestToProto maps HostServices.RequestPermission's request.
func PermissionRequestToProto(r contract.PermissionRequest) *pb.RequestPermission_Request {
	return &pb.RequestPermission_Request{SessionId: r.SessionID, CallId: r.CallID, Tool: r.Tool, Title: r.Title, ArgsJson: r.Args}
}

// PermissionRequestFromProto maps HostServices.RequestPermission's request.
func PermissionRequestFromProto(r *pb.RequestPermission_Request) contract.PermissionRequest {
	return contract.PermissionRequest{SessionID: r.GetSessionId(), CallID: r.GetCallId(), Tool: r.GetTool(),
		Title: r.GetTitle(), Args: json.RawMessage(r.GetArgsJson())}
}

// PermissionResponseToProto maps the user's answer: allowed or denied.
func PermissionResponseToProto(r contract.PermissionResponse) *pb.RequestPermission_Response {
	out := &pb.RequestPermission_Response{Outcome: pb.RequestPermission_OUTCOME_DENY, Reason: r.Reason}
	if r.Allowed {
		out.Outcome = pb.RequestPermission_OUTCOME_ALLOW
	}
	return out
}

// PermissionResponseFromProto maps the user's answer; anything but allow
// (unspecified included) is a denial.
func PermissionResponseFromProto(r *pb.RequestPermission_Response) contract.PermissionResponse {
	return contract.PermissionResponse{Allowed: r.GetOutcome() == pb.RequestPermission_OUTCOME_ALLOW, Reason: r.GetReason()}
}

// SubagentRequestToProto maps HostServices.SpawnSubagent's request.
func SubagentRequestToProto(r contract.SubagentRequest) *pb.SpawnSubagent_Request {
	return &pb.SpawnSubagent_Request{ParentSessionId: r.ParentSessionID, ParentCallId: r.ParentCallID,
		Description: r.Description, Prompt: r.Prompt}
}

// SubagentRequestFromProto maps HostServices.SpawnSubagent's request.
func SubagentRequestFromProto(r *pb.SpawnSubagent_Request) contract.SubagentRequest {
	return contract.SubagentRequest{ParentSessionID: r.GetParentSessionId(), ParentCallID: r.GetParentCallId(),
		Description: r.GetDescription(), Prompt: r.GetPrompt()}
}

// SubagentResultToProto maps a child's final answer.
func SubagentResultToProto(r contract.SubagentResult) *pb.SpawnSubagent_Final {
	return &pb.SpawnSubagent_Final{Text: r.Text, IsError: r.IsError}
}

// SubagentResultFromProto maps a child's final answer.
func SubagentResultFromProto(r *pb.SpawnSubagent_Final) contract.SubagentResult {
	return contract.SubagentResult{Text: r.GetText(), IsError: r.GetIsError()}
}

// ReadTextFileRequestToProto maps HostServices.ReadTextFile's request.
func ReadTextFileRequestToProto(r contract.ReadTextFileRequest) *pb.ReadTextFile_Request {
	return &pb.ReadTextFile_Request{SessionId: r.SessionID, Path: r.Path}
}

// ReadTextFileRequestFromProto maps HostServices.ReadTextFile's request.
func ReadTextFileRequestFromProto(r *pb.ReadTextFile_Request) contract.ReadTextFileRequest {
	return contract.ReadTextFileRequest{SessionID: r.GetSessionId(), Path: r.GetPath()}
}

// ReadTextFileToProto maps ReadTextFile's answer.
func ReadTextFileToProto(f contract.TextFile) *pb.ReadTextFile_Response {
	return &pb.ReadTextFile_Response{Content: f.Content, Source: f.Source}
}

// ReadTextFileFromProto maps ReadTextFile's answer.
func ReadTextFileFromProto(r *pb.ReadTextFile_Response) contract.TextFile {
	return contract.TextFile{Content: r.GetContent(), Source: r.GetSource()}
}

// WriteTextFileRequestToProto maps HostServices.WriteTextFile's request.
func WriteTextFileRequestToProto(r contract.WriteTextFileRequest) *pb.WriteTextFile_Request {
	return &pb.WriteTextFile_Request{SessionId: r.SessionID, Path: r.Path, Content: r.Content}
}

// WriteTextFileRequestFromProto maps HostServices.WriteTextFile's request.
func WriteTextFileRequestFromProto(r *pb.WriteTextFile_Request) contract.WriteTextFileRequest {
	return contract.WriteTextFileRequest{SessionID: r.GetSessionId(), Path: r.GetPath(), Content: r.GetContent()}
}

// WriteTextFileToProto maps WriteTextFile's answer (a source, no content).
func WriteTextFileToProto(f contract.TextFile) *pb.WriteTextFile_Response {
	return &pb.WriteTextFile_Response{Source: f.Source}
}

// WriteTextFileFromProto maps WriteTextFile's answer.
func WriteTextFileFromProto(r *pb.WriteTextFile_Response) contract.TextFile {
	return contract.TextFile{Source: r.GetSource()}
}
