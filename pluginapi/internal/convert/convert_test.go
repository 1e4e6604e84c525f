package convert

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/harness-dev/harness/pluginapi/internal/contract"
	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

// mapping is one message's mapping both ways, over any: its Go value
// goes to proto and back, its proto message to Go and back.
type mapping struct {
	name string
	to   func(any) proto.Message
	from func(proto.Message) any
	// empty is a new empty message of the kind, for decoding.
	empty func() proto.Message
}

func m[G any, P proto.Message](name string, to func(G) P, from func(P) G, empty func() P) mapping {
	return mapping{
		name:  name,
		to:    func(v any) proto.Message { return to(v.(G)) },
		from:  func(p proto.Message) any { return from(p.(P)) },
		empty: func() proto.Message { return empty() },
	}
}

// mappings are every message the two sides exchange, by name.
var mappings = allMappings()

func allMappings() map[string]mapping {
	out := map[string]mapping{}
	for _, mp := range []mapping{
		m("Meta", MetaToProto, MetaFromProto, func() *pb.ToolMeta { return new(pb.ToolMeta) }),
		m("Capabilities", CapabilitiesToProto, CapabilitiesFromProto, func() *pb.Capabilities { return new(pb.Capabilities) }),
		m("CallSandbox", SandboxToProto, SandboxFromProto, func() *pb.CallSandbox { return new(pb.CallSandbox) }),
		m("Description", DescriptionToProto, DescriptionFromProto, func() *pb.Describe_Response { return new(pb.Describe_Response) }),
		m("ToolSpec", ToolSpecToProto, ToolSpecFromProto, func() *pb.ToolSpec { return new(pb.ToolSpec) }),
		m("CallRequest", CallToProto, CallFromProto, func() *pb.Execute_Request { return new(pb.Execute_Request) }),
		m("Result", ResultToProto, ResultFromProto, func() *pb.Execute_Result { return new(pb.Execute_Result) }),
		m("ReadStateRequest", ReadStateRequestToProto, ReadStateRequestFromProto, func() *pb.ReadState_Request { return new(pb.ReadState_Request) }),
		m("ReadStateResponse", StateToProto, StateFromProto, func() *pb.ReadState_Response { return new(pb.ReadState_Response) }),
		m("PermissionRequest", PermissionRequestToProto, PermissionRequestFromProto, func() *pb.RequestPermission_Request { return new(pb.RequestPermission_Request) }),
		m("PermissionResponse", PermissionResponseToProto, PermissionResponseFromProto, func() *pb.RequestPermission_Response { return new(pb.RequestPermission_Response) }),
		m("SubagentRequest", SubagentRequestToProto, SubagentRequestFromProto, func() *pb.SpawnSubagent_Request { return new(pb.SpawnSubagent_Request) }),
		m("SubagentResult", SubagentResultToProto, SubagentResultFromProto, func() *pb.SpawnSubagent_Final { return new(pb.SpawnSubagent_Final) }),
		m("ReadTextFileRequest", ReadTextFileRequestToProto, ReadTextFileRequestFromProto, func() *pb.ReadTextFile_Request { return new(pb.ReadTextFile_Request) }),
		m("ReadTextFile", ReadTextFileToProto, ReadTextFileFromProto, func() *pb.ReadTextFile_Response { return new(pb.ReadTextFile_Response) }),
		m("WriteTextFileRequest", WriteTextFileRequestToProto, WriteTextFileRequestFromProto, func() *pb.WriteTextFile_Request { return new(pb.WriteTextFile_Request) }),
		m("WriteTextFile", WriteTextFileToProto, WriteTextFileFromProto, func() *pb.WriteTextFile_Response { return new(pb.WriteTextFile_Response) }),
	} {
		out[mp.name] = mp
	}
	return out
}

// unmapped are the messages of plugin.proto with no Go type of their own:
// envelopes and requests the sides build from their own state, and parts
// mapped inside a mapped message.
var unmapped = map[string]string{
	"Describe": "envelope", "Describe.Request": "empty", "Configure": "envelope",
	"Configure.Request": "built by the host from its config", "Configure.Response": "warnings only",
	"Execute": "envelope", "Execute.Event": "stream envelope", "Execute.Progress": "text only",
	"Cancel": "envelope", "Cancel.Request": "a call id", "Cancel.Response": "empty",
	"SessionClosed": "envelope", "SessionClosed.Request": "a session id", "SessionClosed.Response": "empty",
	"Preview": "envelope", "Preview.Request": "a CallRequest", "Preview.Response": "a Meta",
	"Location": "inside Meta", "FileDiff": "inside Meta", "SessionEvent": "inside Result", "Todo": "inside ReadStateResponse",
	"ReadState": "envelope", "RequestPermission": "envelope", "SpawnSubagent": "envelope",
	"SpawnSubagent.Event": "stream envelope", "SpawnSubagent.Progress": "text only",
	"ReadTextFile": "envelope", "WriteTextFile": "envelope",
}

// TestEveryMessageMapped: each message of plugin.proto has a mapping or
// is listed as having none, so that a new message cannot go unmapped.
func TestEveryMessageMapped(t *testing.T) {
	t.Parallel()
	mapped := map[string]bool{}
	for _, mp := range mappings {
		mapped[string(mp.empty().ProtoReflect().Descriptor().FullName())] = true
	}
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			d := ms.Get(i)
			full := string(d.FullName())
			short := strings.TrimPrefix(full, "harness.plugin.v1.")
			if !mapped[full] && unmapped[short] == "" {
				t.Errorf("message %s has no mapping in package convert", short)
			}
			walk(d.Messages())
		}
	}
	walk(pb.File_harness_plugin_v1_plugin_proto.Messages())
}

var equateEmpty = cmpopts.EquateEmpty()

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	meta := contract.Meta{Title: "Edit a.go", Locations: []contract.Location{{Path: "/a.go", Line: 3}, {Path: "/b"}},
		Diffs: []contract.Diff{{Path: "/a.go", OldText: "x", NewText: "y"}, {Path: "/n", NewText: "new", NewFile: true}}}
	spec := contract.ToolSpec{Name: "edit", Description: "Edits.", Schema: json.RawMessage(`{"type":"object"}`),
		ConcurrencySafe: true, NeedsPermission: true, Kind: "edit", HasPreview: true, Title: "Edit {path}"}
	tests := []struct {
		name string
		v    any
	}{
		{"Description", contract.Description{Name: "p", Version: "1.0", ProtocolMinor: 5, Tools: []contract.ToolSpec{spec, {Name: "t", Schema: json.RawMessage(`{}`)}},
			EventTypes: []string{"todo/write"}, SDKVersion: "v1.5.0", StartEarly: true,
			Capabilities: contract.Capabilities{Network: true, Write: []string{"cwd", "/x"}, Read: []string{"home"}, Exec: true, Sandboxes: true}}},
		{"Description", contract.Description{Name: "bare", Tools: []contract.ToolSpec{{Name: "t", Schema: json.RawMessage(`{}`)}}}},
		{"ToolSpec", spec},
		{"Meta", meta},
		{"Meta", contract.Meta{Title: "only a title"}},
		{"Capabilities", contract.Capabilities{Exec: true}},
		{"CallSandbox", &contract.CallSandbox{Mode: "read-only", Network: "on"}},
		{"ToolSpec", contract.ToolSpec{Name: "plain", Schema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		{"CallRequest", contract.CallRequest{Tool: "bash", Args: json.RawMessage(`{"command":"ls"}`), SessionID: "s", Caller: contract.CallerAgent,
			Turn: 4, CallID: "c1", Cwd: "/src", Sandbox: &contract.CallSandbox{Mode: "workspace-write", Network: "off",
				WritableRoots: []string{"/src"}, DenyRead: []string{"/secret"}, PidsLimit: 64}}},
		{"CallRequest", contract.CallRequest{Tool: "t", Caller: contract.CallerNone}},
		{"CallRequest", contract.CallRequest{Tool: "t"}},
		{"Result", contract.Result{Content: "out", IsError: true, HoldsState: true, Meta: meta,
			Events: []contract.Event{{Type: "todo/write", Data: json.RawMessage(`{"todos":[]}`)}}}},
		{"Result", contract.Result{}},
		{"ReadStateRequest", contract.ReadStateRequest{SessionID: "s"}},
		{"ReadStateResponse", contract.ReadStateResponse{Cwd: "/src", Todos: []contract.Todo{{Content: "a", Status: "pending"}}}},
		{"PermissionRequest", contract.PermissionRequest{SessionID: "s", CallID: "c", Tool: "t", Title: "May I?", Args: json.RawMessage(`{"x":1}`)}},
		{"PermissionResponse", contract.PermissionResponse{Allowed: true}},
		{"PermissionResponse", contract.PermissionResponse{Reason: "no"}},
		{"SubagentRequest", contract.SubagentRequest{ParentSessionID: "s", ParentCallID: "c", Description: "d", Prompt: "p"}},
		{"SubagentResult", contract.SubagentResult{Text: "done", IsError: true}},
		{"ReadTextFileRequest", contract.ReadTextFileRequest{SessionID: "s", Path: "/a"}},
		{"ReadTextFile", contract.TextFile{Content: "text", Source: contract.SourceEditor}},
		{"WriteTextFileRequest", contract.WriteTextFileRequest{SessionID: "s", Path: "/a", Content: "new"}},
		{"WriteTextFile", contract.TextFile{Source: contract.SourceDisk}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		mp, ok := mappings[tc.name]
		if !ok {
			t.Fatalf("no mapping %s", tc.name)
		}
		seen[tc.name] = true
		msg := mp.to(tc.v)
		if diff := cmp.Diff(tc.v, mp.from(msg), equateEmpty); diff != "" {
			t.Errorf("%s: Go → proto → Go (-want +got):\n%s", tc.name, diff)
		}
		// The message survives the wire, and decodes to the same value.
		b, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		back := mp.empty()
		if err := proto.Unmarshal(b, back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(msg, mp.to(mp.from(back)), protocmp.Transform()); diff != "" {
			t.Errorf("%s: proto → Go → proto (-want +got):\n%s", tc.name, diff)
		}
	}
	for name := range mappings {
		if !seen[name] {
			t.Errorf("mapping %s has no round-trip case", name)
		}
	}
}

// TestOptionalNil: a value that says nothing maps to no message where the
// field is optional, and no message maps back to it.
func TestOptionalNil(t *testing.T) {
	t.Parallel()
	if MetaToProto(contract.Meta{}) != nil || CapabilitiesToProto(contract.Capabilities{}) != nil || SandboxToProto(nil) != nil {
		t.Error("an empty Meta, default Capabilities or nil sandbox is sent as a message")
	}
	if !MetaFromProto(nil).IsZero() || !CapabilitiesFromProto(nil).IsDefault() || SandboxFromProto(nil) != nil {
		t.Error("an absent Meta, Capabilities or sandbox does not read as none")
	}
	if got := CallerFromProto(pb.Execute_Caller(42)); got != "" {
		t.Errorf("an unknown caller reads %q", got)
	}
	if got := PermissionResponseFromProto(&pb.RequestPermission_Response{}); got.Allowed {
		t.Error("an unspecified outcome reads as allowed")
	}
	if got := ToolSpecToProto(contract.ToolSpec{Schema: json.RawMessage("{ \"type\" : \"object\" }")}).GetParametersJsonSchema(); got != `{"type":"object"}` {
		t.Errorf("schema sent as %q, want it compacted", got)
	}
}

// FuzzFromProto decodes arbitrary bytes as each message the two sides
// exchange and maps it to Go: no panic, and the Go value is stable after
// one normalizing round trip (Go → proto → Go changes nothing more).
func FuzzFromProto(f *testing.F) {
	for _, p := range []proto.Message{
		DescriptionToProto(contract.Description{Name: "p", ProtocolMinor: 5, Tools: []contract.ToolSpec{{Name: "t", Schema: json.RawMessage(`{ }`), Title: "{x}"}},
			Capabilities: contract.Capabilities{Write: []string{"cwd"}}}),
		CallToProto(contract.CallRequest{Tool: "t", Args: json.RawMessage(`{}`), Sandbox: &contract.CallSandbox{Mode: "off"}}),
		ResultToProto(contract.Result{Content: "x", Meta: contract.Meta{Title: "t", Diffs: []contract.Diff{{Path: "/a"}}}}),
	} {
		b, _ := proto.Marshal(p)
		for i := range len(mappings) {
			f.Add(uint8(i), b)
		}
	}
	names := make([]string, 0, len(mappings))
	for name := range mappings {
		names = append(names, name)
	}
	// a fixed order, so that a corpus entry names the same message
	slices.Sort(names)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		mp := mappings[names[int(which)%len(names)]]
		msg := mp.empty()
		if proto.Unmarshal(data, msg) != nil {
			return
		}
		once := mp.from(mp.to(mp.from(msg)))
		twice := mp.from(mp.to(once))
		if diff := cmp.Diff(once, twice, equateEmpty); diff != "" {
			t.Errorf("%s is not stable after a round trip (-once +twice):\n%s", mp.name, diff)
		}
	})
}
