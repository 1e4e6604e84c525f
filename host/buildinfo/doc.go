// Package buildinfo says which build is running: Version is the
// program's version (the one stamped at build time, else "dev-" and the
// commit from the Go build info), SDKVersion the version of the plugin SDK
// module it was built with. It reads only the binary's build info.
package buildinfo
