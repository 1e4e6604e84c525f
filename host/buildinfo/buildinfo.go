package buildinfo

import (
	"runtime/debug"

	"github.com/harness-dev/harness/pluginapi"
)

// Version is the version of the running program: stamped (a version set
// at build time) unless it is "" or "dev", else "dev-" and the commit the
// binary was built from (from the Go build info), "-dirty" when the tree
// had changes, else "dev".
func Version(stamped string) string {
	version := stamped
	if version == "" {
		version = "dev"
	}
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return version
	case dirty:
		return "dev-" + rev + "-dirty"
	}
	return "dev-" + rev
}

// SDKVersion is the version of the plugin SDK module this binary was
// built with, the contract it speaks to plugins ("unknown" without build
// info).
func SDKVersion() string {
	if v := pluginapi.SDKVersion(); v != "" {
		return v
	}
	return "unknown"
}
