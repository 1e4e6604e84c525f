package pluginapi

import "runtime/debug"

// ModulePath is the module path of this SDK, the Go module a plugin
// requires (github.com/harness-dev/harness/pluginapi, tagged
// pluginapi/vX.Y.Z in the harness repository; X is [ProtocolVersion], Y
// is [ProtocolMinor]).
const ModulePath = "github.com/harness-dev/harness/pluginapi"

// SDKVersion is the version of this module the running binary was built
// with, read from its build info: "v1.2.0" for a plugin that requires it;
// "v1.2.0+replaced" when a replace directive pointed the requirement at a
// folder or another module; for a binary of this module itself, what the
// go command stamped from the repository: "(devel)", the version of a
// pluginapi/vX.Y.Z tag on the commit built, or a pseudo-version after one;
// "" when the binary carries no build info or does not contain the module.
// [Serve] sends it in Describe, so that `harness plugins` can show which
// SDK a plugin was built with.
func SDKVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return sdkVersionIn(bi)
}

// sdkVersionIn finds this module's version in bi.
func sdkVersionIn(bi *debug.BuildInfo) string {
	if bi.Main.Path == ModulePath {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path != ModulePath {
			continue
		}
		if d.Replace != nil {
			if d.Replace.Version != "" && d.Replace.Path == ModulePath {
				return d.Replace.Version
			}
			return d.Version + "+replaced"
		}
		return d.Version
	}
	return ""
}
