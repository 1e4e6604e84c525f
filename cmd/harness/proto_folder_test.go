package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// protoFolder is the proto folder for plugins in other languages.
const protoFolder = repoRoot + "/pluginapi/proto"

// TestProtoFolderWire: the go-plugin and gRPC health protos that
// pluginapi/proto gives plugins in other languages are wire-compatible
// with what the host links. Every service and method they declare exists
// in the descriptors go-plugin and grpc register in this binary, with the
// same streaming and the same message shapes (field numbers, names,
// kinds, cardinalities, nested messages and enum values; message names
// may differ, as plugin.Empty stands for google.protobuf.Empty). It needs
// protoc (Debian's protobuf-compiler): skipped without it, except in CI.
func TestProtoFolderWire(t *testing.T) {
	t.Parallel()
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		const msg = "protoc not found (apt-get install protobuf-compiler): pluginapi/proto is not compared with go-plugin's protocol"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must install it")
		}
		t.Skip(msg)
	}
	for _, file := range []string{"plugin/goplugin.proto", "grpc/health/v1/health.proto"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "set.binpb")
			if b, err := exec.Command(protoc, "-I", protoFolder, "--descriptor_set_out="+out, file).CombinedOutput(); err != nil {
				t.Fatalf("protoc %s: %v\n%s", file, err, b)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var set descriptorpb.FileDescriptorSet
			if err := proto.Unmarshal(b, &set); err != nil {
				t.Fatal(err)
			}
			ours, err := protodesc.NewFile(set.GetFile()[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			if ours.Services().Len() == 0 {
				t.Fatalf("%s declares no service", file)
			}
			for i := range ours.Services().Len() {
				compareService(t, ours.Services().Get(i))
			}
		})
	}
}

func compareService(t *testing.T, ours protoreflect.ServiceDescriptor) {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(ours.FullName())
	if err != nil {
		t.Errorf("service %s: the host links no such service: %v", ours.FullName(), err)
		return
	}
	theirs, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		t.Errorf("%s is not a service in the host's descriptors", ours.FullName())
		return
	}
	for i := range ours.Methods().Len() {
		m := ours.Methods().Get(i)
		tm := theirs.Methods().ByName(m.Name())
		if tm == nil {
			t.Errorf("%s/%s: the host's %s has no such method", ours.FullName(), m.Name(), theirs.ParentFile().Path())
			continue
		}
		if m.IsStreamingClient() != tm.IsStreamingClient() || m.IsStreamingServer() != tm.IsStreamingServer() {
			t.Errorf("%s/%s: streaming (client %v, server %v), the host's (client %v, server %v)", ours.FullName(), m.Name(),
				m.IsStreamingClient(), m.IsStreamingServer(), tm.IsStreamingClient(), tm.IsStreamingServer())
		}
		for _, pair := range [][2]protoreflect.MessageDescriptor{{m.Input(), tm.Input()}, {m.Output(), tm.Output()}} {
			if got, want := shape(pair[0], 0), shape(pair[1], 0); got != want {
				t.Errorf("%s/%s: message %s has the shape\n  %s\nthe host's %s\n  %s", ours.FullName(), m.Name(),
					pair[0].FullName(), got, pair[1].FullName(), want)
			}
		}
	}
}

// shape is what of a message reaches the wire: its fields by number, with
// their names (for JSON), kinds and cardinalities, nested messages and enum
// values; not the message's own name.
func shape(md protoreflect.MessageDescriptor, depth int) string {
	if depth > 8 {
		return "…"
	}
	fields := make([]string, 0, md.Fields().Len())
	for i := range md.Fields().Len() {
		f := md.Fields().Get(i)
		s := fmt.Sprintf("%d:%s %s %s", f.Number(), f.Name(), f.Cardinality(), f.Kind())
		switch f.Kind() {
		case protoreflect.MessageKind, protoreflect.GroupKind:
			s += "{" + shape(f.Message(), depth+1) + "}"
		case protoreflect.EnumKind:
			var vals []string
			for j := range f.Enum().Values().Len() {
				v := f.Enum().Values().Get(j)
				vals = append(vals, fmt.Sprintf("%s=%d", v.Name(), v.Number()))
			}
			s += "(" + strings.Join(vals, ",") + ")"
		}
		if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
			s += " oneof " + string(o.Name())
		}
		fields = append(fields, s)
	}
	sort.Strings(fields)
	return strings.Join(fields, "; ")
}
