// Command whoami is a test plugin for provenance across a hot reload: its
// tool "whoami" answers "version=<v> pid=<pid>", the version it was built
// with (-ldflags "-X main.version=v2") and the pid of the process that
// ran the call, so that a test can tell which process really served a
// call and compare it with what the session log says.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/harness-dev/harness/pluginapi"
)

// version is set with -ldflags -X.
var version = "v0"

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "whoami",
		Version: version,
		Tools: []pluginapi.Tool{{
			Spec: pluginapi.ToolSpec{Name: "whoami", Description: "Answers the plugin's version and pid.",
				Schema: json.RawMessage(`{"type":"object"}`), ConcurrencySafe: true},
			Run: func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: fmt.Sprintf("version=%s pid=%d", version, os.Getpid())}, nil
			},
		}},
	})
}
