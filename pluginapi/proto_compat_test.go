package pluginapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	pb "github.com/harness-dev/harness/pluginapi/internal/pb/harness/plugin/v1"
)

var update = flag.Bool("update", false, "record additive changes of the plugin protocol in its wire snapshot")

// wireSnapshot is the committed record of the v1 wire contract: what
// TestProtoCompatible compares the compiled descriptor against. It is our
// `buf breaking`.
const wireSnapshot = "proto/harness/plugin/v1/plugin.snapshot.json"

// wireFile is what matters on the wire (binary and JSON) of a proto file:
// messages and their fields by number, enums and their values by number,
// services and their methods. Names are full names without the package.
type wireFile struct {
	Package  string        `json:"package"`
	Messages []wireMessage `json:"messages"`
	Enums    []wireEnum    `json:"enums"`
	Services []wireService `json:"services"`
}

type wireMessage struct {
	Name   string      `json:"name"`
	Fields []wireField `json:"fields"`
}

type wireField struct {
	Number int    `json:"number"`
	Name   string `json:"name"`
	// Type is the kind, with the full name of a message or enum type:
	// "string", "message harness.plugin.v1.ToolSpec".
	Type     string `json:"type"`
	Repeated bool   `json:"repeated,omitempty"`
	Oneof    string `json:"oneof,omitempty"`
}

type wireEnum struct {
	Name   string      `json:"name"`
	Values []wireValue `json:"values"`
}

type wireValue struct {
	Number int    `json:"number"`
	Name   string `json:"name"`
}

type wireService struct {
	Name    string       `json:"name"`
	Methods []wireMethod `json:"methods"`
}

type wireMethod struct {
	Name            string `json:"name"`
	Input           string `json:"input"`
	Output          string `json:"output"`
	ClientStreaming bool   `json:"clientStreaming,omitempty"`
	ServerStreaming bool   `json:"serverStreaming,omitempty"`
}

// wireOf renders a file descriptor's wire contract, every list sorted.
func wireOf(fd protoreflect.FileDescriptor) wireFile {
	pkg := string(fd.Package()) + "."
	local := func(n protoreflect.FullName) string { return strings.TrimPrefix(string(n), pkg) }
	w := wireFile{Package: string(fd.Package())}
	var addEnums func(protoreflect.EnumDescriptors)
	addEnums = func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			e := es.Get(i)
			we := wireEnum{Name: local(e.FullName())}
			for j := range e.Values().Len() {
				v := e.Values().Get(j)
				we.Values = append(we.Values, wireValue{Number: int(v.Number()), Name: string(v.Name())})
			}
			slices.SortFunc(we.Values, func(a, b wireValue) int { return a.Number - b.Number })
			w.Enums = append(w.Enums, we)
		}
	}
	var addMessages func(protoreflect.MessageDescriptors)
	addMessages = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			wm := wireMessage{Name: local(m.FullName()), Fields: []wireField{}}
			for j := range m.Fields().Len() {
				f := m.Fields().Get(j)
				typ := f.Kind().String()
				switch f.Kind() {
				case protoreflect.MessageKind, protoreflect.GroupKind:
					typ += " " + string(f.Message().FullName())
				case protoreflect.EnumKind:
					typ += " " + string(f.Enum().FullName())
				}
				wf := wireField{Number: int(f.Number()), Name: string(f.Name()), Type: typ, Repeated: f.IsList()}
				if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
					wf.Oneof = string(o.Name())
				}
				wm.Fields = append(wm.Fields, wf)
			}
			slices.SortFunc(wm.Fields, func(a, b wireField) int { return a.Number - b.Number })
			w.Messages = append(w.Messages, wm)
			addMessages(m.Messages())
			addEnums(m.Enums())
		}
	}
	addMessages(fd.Messages())
	addEnums(fd.Enums())
	for i := range fd.Services().Len() {
		s := fd.Services().Get(i)
		ws := wireService{Name: local(s.FullName())}
		for j := range s.Methods().Len() {
			m := s.Methods().Get(j)
			ws.Methods = append(ws.Methods, wireMethod{
				Name: string(m.Name()), Input: string(m.Input().FullName()), Output: string(m.Output().FullName()),
				ClientStreaming: m.IsStreamingClient(), ServerStreaming: m.IsStreamingServer(),
			})
		}
		slices.SortFunc(ws.Methods, func(a, b wireMethod) int { return strings.Compare(a.Name, b.Name) })
		w.Services = append(w.Services, ws)
	}
	slices.SortFunc(w.Messages, func(a, b wireMessage) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(w.Enums, func(a, b wireEnum) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(w.Services, func(a, b wireService) int { return strings.Compare(a.Name, b.Name) })
	return w
}

// breakingChanges lists what in cur breaks a peer built against old: a
// removed message, enum, service or method; a field or enum value removed,
// renamed, retyped, made repeated or singular, or moved into or out of a
// oneof; a method whose types or streaming changed; another package. New
// messages, fields, values, services and methods are not breaking.
func breakingChanges(old, cur wireFile) []string {
	var out []string
	if old.Package != cur.Package {
		out = append(out, fmt.Sprintf("package %s became %s", old.Package, cur.Package))
	}
	msgs := map[string]wireMessage{}
	for _, m := range cur.Messages {
		msgs[m.Name] = m
	}
	for _, om := range old.Messages {
		cm, ok := msgs[om.Name]
		if !ok {
			out = append(out, fmt.Sprintf("message %s was removed", om.Name))
			continue
		}
		fields := map[int]wireField{}
		for _, f := range cm.Fields {
			fields[f.Number] = f
		}
		for _, of := range om.Fields {
			cf, ok := fields[of.Number]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("field %s.%s = %d was removed (deprecate it instead; never reuse its number)", om.Name, of.Name, of.Number))
			case cf.Name != of.Name:
				out = append(out, fmt.Sprintf("field %s = %d was renamed from %s to %s (JSON uses names)", om.Name, of.Number, of.Name, cf.Name))
			case cf.Type != of.Type:
				out = append(out, fmt.Sprintf("field %s.%s = %d changed type from %s to %s", om.Name, of.Name, of.Number, of.Type, cf.Type))
			case cf.Repeated != of.Repeated:
				out = append(out, fmt.Sprintf("field %s.%s = %d changed between repeated and singular", om.Name, of.Name, of.Number))
			case cf.Oneof != of.Oneof:
				out = append(out, fmt.Sprintf("field %s.%s = %d moved from oneof %q to oneof %q", om.Name, of.Name, of.Number, of.Oneof, cf.Oneof))
			}
		}
	}
	enums := map[string]wireEnum{}
	for _, e := range cur.Enums {
		enums[e.Name] = e
	}
	for _, oe := range old.Enums {
		ce, ok := enums[oe.Name]
		if !ok {
			out = append(out, fmt.Sprintf("enum %s was removed", oe.Name))
			continue
		}
		values := map[int]string{}
		for _, v := range ce.Values {
			values[v.Number] = v.Name
		}
		for _, ov := range oe.Values {
			name, ok := values[ov.Number]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("enum value %s.%s = %d was removed", oe.Name, ov.Name, ov.Number))
			case name != ov.Name:
				out = append(out, fmt.Sprintf("enum value %s = %d was renamed from %s to %s", oe.Name, ov.Number, ov.Name, name))
			}
		}
	}
	services := map[string]wireService{}
	for _, s := range cur.Services {
		services[s.Name] = s
	}
	for _, osv := range old.Services {
		cs, ok := services[osv.Name]
		if !ok {
			out = append(out, fmt.Sprintf("service %s was removed", osv.Name))
			continue
		}
		methods := map[string]wireMethod{}
		for _, m := range cs.Methods {
			methods[m.Name] = m
		}
		for _, om := range osv.Methods {
			cm, ok := methods[om.Name]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("rpc %s.%s was removed", osv.Name, om.Name))
			case cm.Input != om.Input || cm.Output != om.Output:
				out = append(out, fmt.Sprintf("rpc %s.%s changed from (%s) returns (%s) to (%s) returns (%s)",
					osv.Name, om.Name, om.Input, om.Output, cm.Input, cm.Output))
			case cm.ClientStreaming != om.ClientStreaming || cm.ServerStreaming != om.ServerStreaming:
				out = append(out, fmt.Sprintf("rpc %s.%s changed its streaming", osv.Name, om.Name))
			}
		}
	}
	return out
}

func encodeWire(t *testing.T, w wireFile) []byte {
	t.Helper()
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestProtoCompatible is the plugin protocol's `buf breaking`: the
// compiled v1 descriptor must keep everything the committed wire snapshot
// records (v1 is frozen: changes are additive only). Additions pass the
// breaking check but must be recorded: go test ./pluginapi -run
// TestProtoCompatible -update rewrites the snapshot, and refuses to while
// a change is breaking.
func TestProtoCompatible(t *testing.T) {
	t.Parallel()
	cur := wireOf(pb.File_harness_plugin_v1_plugin_proto)
	b, err := os.ReadFile(wireSnapshot)
	if errors.Is(err, fs.ErrNotExist) && *update {
		if err := os.WriteFile(wireSnapshot, encodeWire(t, cur), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("created %s", wireSnapshot)
		return
	}
	if err != nil {
		t.Fatalf("read the wire snapshot (create it with -update): %v", err)
	}
	var old wireFile
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatalf("parse %s: %v", wireSnapshot, err)
	}
	if broken := breakingChanges(old, cur); len(broken) > 0 {
		t.Fatalf("breaking changes to plugin protocol v1 (it is frozen: make the change additive, or start harness.plugin.v2):\n\t%s",
			strings.Join(broken, "\n\t"))
	}
	now := encodeWire(t, cur)
	if bytes.Equal(now, b) {
		return
	}
	if *update {
		if err := os.WriteFile(wireSnapshot, now, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded the additive changes in %s", wireSnapshot)
		return
	}
	t.Errorf("the v1 descriptor has additive changes not recorded in %s (fine, but record them: (cd pluginapi && go test -run TestProtoCompatible -update .)):\n%s",
		wireSnapshot, cmp.Diff(old, cur))
}

// TestBreakingChanges checks that the check catches each kind of break
// and lets additions through.
func TestBreakingChanges(t *testing.T) {
	t.Parallel()
	base := wireOf(pb.File_harness_plugin_v1_plugin_proto)
	clone := func() wireFile {
		var w wireFile
		b, _ := json.Marshal(base)
		_ = json.Unmarshal(b, &w)
		return w
	}
	msg := func(w *wireFile, name string) *wireMessage {
		for i := range w.Messages {
			if w.Messages[i].Name == name {
				return &w.Messages[i]
			}
		}
		t.Fatalf("no message %s", name)
		return nil
	}
	tests := map[string]struct {
		change func(w *wireFile)
		want   string // "" = not breaking
	}{
		"new field": {change: func(w *wireFile) {
			m := msg(w, "ToolSpec")
			m.Fields = append(m.Fields, wireField{Number: 99, Name: "read_only", Type: "bool"})
		}},
		"new message and rpc": {change: func(w *wireFile) {
			w.Messages = append(w.Messages, wireMessage{Name: "Ping"})
			w.Services[0].Methods = append(w.Services[0].Methods, wireMethod{Name: "Ping", Input: "x", Output: "y"})
		}},
		"removed field": {change: func(w *wireFile) {
			m := msg(w, "ToolSpec")
			m.Fields = m.Fields[1:]
		}, want: "field ToolSpec.name = 1 was removed"},
		"renumbered field": {change: func(w *wireFile) {
			msg(w, "ToolSpec").Fields[0].Number = 9
		}, want: "field ToolSpec.name = 1 was removed"},
		"renamed field": {change: func(w *wireFile) {
			msg(w, "ToolSpec").Fields[0].Name = "tool_name"
		}, want: "field ToolSpec = 1 was renamed from name to tool_name"},
		"retyped field": {change: func(w *wireFile) {
			msg(w, "ToolSpec").Fields[3].Type = "string"
		}, want: "field ToolSpec.concurrency_safe = 4 changed type from bool to string"},
		"repeated": {change: func(w *wireFile) {
			msg(w, "ToolSpec").Fields[0].Repeated = true
		}, want: "changed between repeated and singular"},
		"into a oneof": {change: func(w *wireFile) {
			msg(w, "ToolSpec").Fields[0].Oneof = "x"
		}, want: `moved from oneof "" to oneof "x"`},
		"removed message": {change: func(w *wireFile) {
			w.Messages = slices.DeleteFunc(w.Messages, func(m wireMessage) bool { return m.Name == "Todo" })
		}, want: "message Todo was removed"},
		"removed rpc": {change: func(w *wireFile) {
			for i := range w.Services {
				w.Services[i].Methods = slices.DeleteFunc(w.Services[i].Methods, func(m wireMethod) bool { return m.Name == "Cancel" })
			}
		}, want: "rpc ToolProvider.Cancel was removed"},
		"stream no more": {change: func(w *wireFile) {
			for i := range w.Services {
				for j := range w.Services[i].Methods {
					w.Services[i].Methods[j].ServerStreaming = false
				}
			}
		}, want: "rpc ToolProvider.Execute changed its streaming"},
		"enum value renamed": {change: func(w *wireFile) {
			w.Enums[0].Values[1].Name = "CALLER_MODEL"
		}, want: "was renamed from CALLER_AGENT to CALLER_MODEL"},
		"package": {change: func(w *wireFile) { w.Package = "harness.plugin.v2" }, want: "package harness.plugin.v1 became harness.plugin.v2"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := clone()
			tc.change(&w)
			got := strings.Join(breakingChanges(base, w), "\n")
			if tc.want == "" && got != "" {
				t.Errorf("an additive change was called breaking:\n%s", got)
			}
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("breaking changes\n%s\nlack %q", got, tc.want)
			}
		})
	}
}

// TestProtoGenerated checks that the committed .proto file, which plugins
// in other languages load, describes the same wire contract as the
// generated Go code: a .proto edited without go generate fails here. It
// needs protoc (Debian's protobuf-compiler); without it, it is skipped,
// except in CI ($CI set to true), where it fails.
func TestProtoGenerated(t *testing.T) {
	t.Parallel()
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		const msg = "protoc not found (apt-get install protobuf-compiler): the .proto is not compared with the generated code"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must install it")
		}
		t.Skip(msg)
	}
	out := filepath.Join(t.TempDir(), "plugin.binpb")
	cmd := exec.Command(protoc, "-I", "proto", "--descriptor_set_out="+out, "harness/plugin/v1/plugin.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(set.GetFile()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wireOf(pb.File_harness_plugin_v1_plugin_proto), wireOf(fd)); diff != "" {
		t.Errorf("proto/harness/plugin/v1/plugin.proto and the generated code differ: run go generate in pluginapi/ (-generated +proto):\n%s", diff)
	}
}
