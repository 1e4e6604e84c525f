package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// ResourceServers names the set's servers that are up and advertise
// resources (initialize's capabilities.resources), in their configuration's
// order; it waits for servers still starting, as Tools does.
func (s *Set) ResourceServers() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sv := range s.servers {
		sv.settle()
		sv.mu.Lock()
		if sv.cs != nil {
			if r := sv.cs.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Resources != nil {
				out = append(out, sv.cfg.Name)
			}
		}
		sv.mu.Unlock()
	}
	return out
}

// ReadResourceSpec is the mcp_read_resource tool for servers, the
// servers that offer resources (ResourceServers), as the loop is given
// it: of kind read (resources/read changes nothing, by the protocol),
// needing permission as every MCP tool does, safe to run with other
// reads. Its calls are titled "server: read uri" (ReadResourceTitle); it
// names no server of its own (tool.Tool.MCP is nil): the call's server is
// its argument.
func ReadResourceSpec(servers []string) tool.Tool {
	enum, _ := json.Marshal(servers)
	schema := `{"type":"object","properties":{` +
		`"server":{"type":"string","enum":` + string(enum) + `,"description":"The MCP server that has the resource."},` +
		`"uri":{"type":"string","description":"The resource's URI, as a resource link or the server's resource list gives it."}},` +
		`"required":["server","uri"],"additionalProperties":false}`
	desc := "Read a resource of an MCP server (resources/read): the text, images and other contents at its URI. " +
		"Use it for the resource links that MCP tool results name. Servers with resources: " + strings.Join(servers, ", ") + "."
	return tool.Tool{
		Spec:            llm.ToolSpec{Name: ReadResourceTool, Description: desc, Parameters: json.RawMessage(schema)},
		NeedsPermission: true,
		ConcurrencySafe: true,
		Kind:            pluginapi.KindRead,
		Title:           readResourceTitle,
	}
}

// ReadResourceTitle is how an editor names a call of mcp_read_resource
// with args: "server: read uri", else the tool's title.
func ReadResourceTitle(args string) string {
	var a struct{ Server, URI string }
	if json.Unmarshal([]byte(args), &a) != nil || a.Server == "" || a.URI == "" {
		return readResourceTitle
	}
	return a.Server + ": read " + a.URI
}

const readResourceTitle = "MCP: read resource"

// ReadResource calls resources/read on a server of the set with args,
// the mcp_read_resource tool's arguments ({"server", "uri"}), and renders
// what it gives as a tool result's content is rendered (render): text as
// text under a line naming its URI, images as image blocks, other blobs
// named by URI, type and size. A failure the model can fix (an unknown
// server or URI) is an error result; a server that dies during the read is
// treated as in Call.
func (s *Set) ReadResource(ctx context.Context, args json.RawMessage) tool.Result {
	var a struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Result{Content: "arguments are not a JSON object with server and uri: " + err.Error(), IsError: true}
	}
	if a.Server == "" || a.URI == "" {
		return tool.Result{Content: "give both server and uri", IsError: true}
	}
	var sv *server
	if s != nil {
		i := slices.IndexFunc(s.servers, func(sv *server) bool { return sv.cfg.Name == a.Server })
		if i >= 0 {
			sv = s.servers[i]
		}
	}
	if sv == nil || !slices.Contains(s.ResourceServers(), a.Server) {
		return tool.Result{Content: fmt.Sprintf("no MCP server %s with resources in this session; servers with resources: %s", a.Server, strings.Join(s.ResourceServers(), ", ")), IsError: true}
	}
	return sv.readResource(ctx, a.URI)
}

func (sv *server) readResource(ctx context.Context, uri string) tool.Result {
	cs, err := sv.session(ctx)
	if err != nil {
		return tool.Result{Content: err.Error(), IsError: true}
	}
	cctx, cancel := context.WithTimeout(ctx, sv.opts.CallTimeout)
	defer cancel()
	res, err := cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{Content: "cancelled", IsError: true}
		}
		msg := sv.redact(err.Error())
		if cctx.Err() != nil || sv.exited() || errors.Is(err, mcp.ErrConnectionClosed) {
			sv.down(cs)
			return tool.Result{Content: fmt.Sprintf("MCP server %s failed during resources/read: %s; it is started again on next use", sv.cfg.Name, msg), IsError: true}
		}
		return tool.Result{Content: fmt.Sprintf("MCP server %s could not read %s: %s", sv.cfg.Name, uri, msg), IsError: true}
	}
	text, bs := renderResource(res)
	return tool.Result{Content: text, Blocks: bs}
}
