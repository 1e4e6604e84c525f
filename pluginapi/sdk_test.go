package pluginapi

import (
	"runtime/debug"
	"testing"
)

func TestSDKVersionIn(t *testing.T) {
	t.Parallel()
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"required", debug.BuildInfo{Main: debug.Module{Path: "example.com/p"}, Deps: []*debug.Module{
			dep("google.golang.org/grpc", "v1.85.0", nil), dep(ModulePath, "v1.2.0", nil)}}, "v1.2.0"},
		{"replaced by a folder", debug.BuildInfo{Main: debug.Module{Path: "github.com/harness-dev/harness"}, Deps: []*debug.Module{
			dep(ModulePath, "v1.2.0", dep("./pluginapi", "", nil))}}, "v1.2.0+replaced"},
		{"replaced by another version", debug.BuildInfo{Main: debug.Module{Path: "example.com/p"}, Deps: []*debug.Module{
			dep(ModulePath, "v1.2.0", dep(ModulePath, "v1.2.1", nil))}}, "v1.2.1"},
		{"replaced by a fork", debug.BuildInfo{Main: debug.Module{Path: "example.com/p"}, Deps: []*debug.Module{
			dep(ModulePath, "v1.2.0", dep("example.com/fork", "v1.9.0", nil))}}, "v1.2.0+replaced"},
		{"this module", debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}}, "(devel)"},
		{"absent", debug.BuildInfo{Main: debug.Module{Path: "example.com/p"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := sdkVersionIn(&tc.bi); got != tc.want {
				t.Errorf("sdkVersionIn = %q, want %q", got, tc.want)
			}
		})
	}
}
