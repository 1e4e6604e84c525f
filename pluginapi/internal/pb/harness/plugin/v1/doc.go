// Package pluginv1 is the Go code generated from
// pluginapi/proto/harness/plugin/v1/plugin.proto. Only package pluginapi
// imports it; regenerate with `go generate ./pluginapi/...`.
package pluginv1
