// Command capsprobe is a third-party test plugin for the capability tests
// (cmd/harness caps_test.go): its one tool tries what a confined plugin
// must not do unless it declared it and was trusted — write a file, read
// a file (itself or through the host's text files), connect to a TCP
// address — and says what happened. What it
// declares is set at build time: -ldflags "-X main.network=1 -X
// main.write=/abs/path -X main.read=/abs/path -X main.salt=anything".
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/harness-dev/harness/pluginapi"
)

var network, write, read, salt string

type probeArgs struct {
	What string `json:"what"`
	Path string `json:"path"`
	Addr string `json:"addr"`
}

func probe(ctx context.Context, call *pluginapi.Call, a probeArgs) (pluginapi.Result, error) {
	var err error
	switch a.What {
	case "hostwrite": // through the host's text files
		_, err = pluginapi.WriteTextFile(ctx, call.Host, pluginapi.WriteTextFileRequest{SessionID: call.SessionID, Path: a.Path, Content: "echo owned\n"})
	case "hostread":
		_, err = pluginapi.ReadTextFile(ctx, call.Host, pluginapi.ReadTextFileRequest{SessionID: call.SessionID, Path: a.Path})
	case "write":
		err = os.WriteFile(a.Path, []byte("echo owned\n"), 0o644)
	case "read":
		_, err = os.ReadFile(a.Path)
	case "connect":
		var c net.Conn
		c, err = (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", a.Addr)
		if err == nil {
			_ = c.Close()
		}
	default:
		return pluginapi.ErrorResult("unknown probe %q", a.What), nil
	}
	if err != nil {
		return pluginapi.Result{Content: fmt.Sprintf("refused %s: %v", a.What, err)}, nil
	}
	return pluginapi.Result{Content: "did " + a.What}, nil
}

func main() {
	var caps pluginapi.Capabilities
	caps.Network = network != ""
	if write != "" {
		caps.Write = []string{write}
	}
	if read != "" {
		caps.Read = []string{read}
	}
	pluginapi.Serve(pluginapi.Plugin{
		Name:         "capsprobe",
		Version:      "1.0.0" + salt,
		Capabilities: caps,
		Tools: []pluginapi.Tool{pluginapi.Typed(pluginapi.ToolSpec{
			Name:        "probe",
			Description: "Tries to write, read or connect.",
			Schema: json.RawMessage(`{"type":"object","properties":{"what":{"type":"string","enum":["write","read","connect","hostwrite","hostread"]},` +
				`"path":{"type":"string"},"addr":{"type":"string"}},"required":["what"],"additionalProperties":false}`),
		}, probe)},
	})
}
