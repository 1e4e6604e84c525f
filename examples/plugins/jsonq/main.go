// Command jsonq is an example harness plugin, kept in its own Go module as
// a third party's would be: it serves json_query, which reads one value out
// of a JSON file in the session's working directory — a dependency's
// version in package-lock.json, one setting of a large config — so the
// model does not have to read the whole file.
//
// Build it into a plugin dir and check it:
//
//	go build -o ~/.local/share/harness/plugins/ .
//	harness plugins check ~/.local/share/harness/plugins/jsonq
//
// The tool reads files only under the session's cwd (through os.Root, so
// neither "../" nor a symlink leads out), holds no state and is safe to
// run concurrently. See docs/plugins.md in the harness repository.
package main

import "github.com/harness-dev/harness/pluginapi"

func main() {
	pluginapi.Serve(jsonqPlugin())
}

func jsonqPlugin() pluginapi.Plugin {
	return pluginapi.Plugin{
		Name:    "jsonq",
		Version: "0.1.0",
		Tools:   []pluginapi.Tool{queryTool()},
	}
}
