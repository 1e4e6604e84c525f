// Command mcptest is the MCP server the tests of harness run: built from
// the official Go MCP SDK, over stdio (or streamable HTTP with -http
// ADDR, or HTTP+SSE with -sse ADDR, printing its URL on stdout). Its
// tools: echo, peek (titled "Peek at a text", readOnlyHint), fail
// (isError), image, badschema (an input schema the host refuses),
// add_tool (a new tool "late" appears: tools/list_changed), hasenv
// (whether a variable is set, never its value), hang (never answers) and
// crash (exits mid-call), progress (notifications/progress under the
// call's token, then, once a release file exists if it names one, the
// answer or, with hold, a wait for the client's cancellation), big (a text of the size asked for), and for the sandbox's tests write (a file),
// read (a file) and dial (a TCP address), each answering "ok …" or an
// error result with the system's error. With -resources it offers
// resources too (addResources): test://note (text), test://picture (a
// PNG) and test://data (bytes), and the tool content, whose result holds
// each kind of content (addResources says which).
// For the client capabilities
// (caps.go): prompts greet and recap, add_prompt (prompts/list_changed),
// ask (elicitation), sample (sampling) and roots (roots/list), and the
// -instructions it gives in initialize.
// -sleep D waits D before serving
// (a slow start).
// With -tools N, N generated tools
// more (gen_01 …, a schema of about 1 KB each) for the tool budget.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArg struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type nameArg struct {
	Name string `json:"name" jsonschema:"an environment variable name"`
}

type none struct{}

type progressArg struct {
	Steps int  `json:"steps" jsonschema:"how many progress notifications to send"`
	Hold  bool `json:"hold,omitempty" jsonschema:"wait for the client to cancel the call after them"`
	// Release, when set, is a file the call waits for after the
	// notifications (its client creates it once it has seen them).
	Release string `json:"release,omitempty" jsonschema:"a file to wait for before answering"`
}

type sizeArg struct {
	Bytes int `json:"bytes" jsonschema:"how many bytes of text to return"`
}

type pathArg struct {
	Path string `json:"path" jsonschema:"a file's path"`
}

type addrArg struct {
	Addr string `json:"addr" jsonschema:"host:port to connect to over TCP"`
}

func failed(err error) *mcp.CallToolResult {
	r := text(err.Error())
	r.IsError = true
	return r
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.2.3"}, &mcp.ServerOptions{Instructions: *instructions, RootsListChangedHandler: noteRootsChanged})
	addCaps(s)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "echo called\n")
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "peek", Title: "Peek at a text", Description: "Says the text back; only reads.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArg) (*mcp.CallToolResult, any, error) {
			return text("peek: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			r := text("it failed on purpose")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Returns a tiny PNG."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			png := []byte("\x89PNG\r\n\x1a\n0123456789")
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here is a picture"},
				&mcp.ImageContent{Data: png, MIMEType: "image/png"},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Adds the tool late."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "late", Description: "Added by add_tool."},
				func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
					return text("late tool ran"), nil, nil
				})
			// the SDK sends tools/list_changed after 10 ms (debounced): let
			// it go out before the answer, as a server that announces first
			time.Sleep(100 * time.Millisecond)
			return text("added"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hasenv", Description: "Says whether a variable is set."},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameArg) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				return text(in.Name + " is unset"), nil, nil
			}
			return text(fmt.Sprintf("%s is set (%d bytes)", in.Name, len(v))), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "hanging on purpose\n")
			// Ignores cancellation, as a stuck server does. (A select {}
			// would end in the runtime's deadlock dump once stdin closes,
			// pushing the line above out of the client's stderr tail.)
			time.Sleep(24 * time.Hour)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits mid-call."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "crashing on purpose\n")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "write", Description: "Writes a line to a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, in pathArg) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte("written by mcptest\n"), 0o600); err != nil {
				return failed(err), nil, nil
			}
			return text("ok wrote " + in.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "read", Description: "Reads a file."},
		func(_ context.Context, _ *mcp.CallToolRequest, in pathArg) (*mcp.CallToolResult, any, error) {
			b, err := os.ReadFile(in.Path)
			if err != nil {
				return failed(err), nil, nil
			}
			return text("ok read: " + string(b)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "dial", Description: "Connects to a TCP address."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addrArg) (*mcp.CallToolResult, any, error) {
			c, err := net.DialTimeout("tcp", in.Addr, 5*time.Second)
			if err != nil {
				return failed(err), nil, nil
			}
			_ = c.Close()
			return text("ok connected to " + in.Addr), nil, nil
		})
	addProgress(s)
	// a schema the host refuses (an unknown type), which the SDK passes
	s.AddTool(&mcp.Tool{Name: "badschema", Description: "Has a bad schema.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"strng"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("never"), nil })
	if withResources {
		addResources(s)
	}
	return s
}

var instructions = flag.String("instructions", "", "the server's instructions in its initialize result")

// addGenerated adds n generated tools to s (the -tools flag, stdio
// only): gen_01, gen_02, …, each described in one line naming its
// number, with an input schema of about 1 KB, answering "gen_NN ran: "
// and its arguments.
func addGenerated(s *mcp.Server, n int) {
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("gen_%02d", i)
		props := map[string]any{}
		for _, p := range []string{"subject", "detail", "scope", "format"} {
			props[p] = map[string]any{"type": "string", "description": fmt.Sprintf(
				"The %s of the request to generated tool number %d: free text, as long as it needs to be, "+
					"which the tool answers back as it got it, for the tests of a host's tool budget.", p, i)}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": []string{"subject"}})
		s.AddTool(&mcp.Tool{Name: name, Description: fmt.Sprintf("Generated tool number %d: answers with its arguments.", i), InputSchema: json.RawMessage(schema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(name + " ran: " + string(req.Params.Arguments)), nil
			})
	}
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	sse := flag.String("sse", "", "serve the older HTTP+SSE transport on this address instead of stdio")
	_ = flag.String("tag", "", "ignored: tells the tests' processes apart")
	linger := flag.Bool("linger", false, "stay alive after stdin ends, as a careless server does")
	flag.BoolVar(&withResources, "resources", false, "offer resources and the content tool")
	sleep := flag.Duration("sleep", 0, "wait this long before serving, as a slow first start (npx fetching a package) does")
	generated := flag.Int("tools", 0, "list this many generated tools more, gen_01 …, each with a schema of about 1 KB")
	flag.Parse()
	if *sleep > 0 {
		fmt.Fprintf(os.Stderr, "mcptest sleeping %s before serving\n", *sleep)
		time.Sleep(*sleep)
	}
	fmt.Fprintf(os.Stderr, "mcptest up, pid %d\n", os.Getpid())
	var h http.Handler
	switch {
	case *addr != "":
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, nil)
	case *sse != "":
		h, addr = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return newServer() }, nil), sse
	}
	if h != nil {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr()) // stdout-ok: the test reads the URL
		log.Fatal(http.Serve(ln, h))
	}
	srv := newServer()
	addGenerated(srv, *generated)
	err := srv.Run(context.Background(), &mcp.StdioTransport{})
	if *linger {
		time.Sleep(time.Hour)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcptest: %v\n", err)
		os.Exit(1)
	}
}

// addProgress adds the tools progress and big.
func addProgress(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress, then answers (or, with hold, waits to be cancelled)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressArg) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return failed(fmt.Errorf("the call has no progress token")), nil, nil
			}
			// notifications a client must ignore: a token it never sent
			for _, stray := range []any{"harness-stray", 424242} {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: stray, Message: "stray", Progress: 1})
			}
			for i := 1; i <= in.Steps; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
					Message: fmt.Sprintf("step %d", i), Progress: float64(i), Total: float64(in.Steps)}); err != nil {
					return failed(err), nil, nil
				}
			}
			for in.Release != "" {
				if _, err := os.Stat(in.Release); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					return failed(ctx.Err()), nil, nil
				case <-time.After(20 * time.Millisecond):
				}
			}
			if in.Hold {
				<-ctx.Done()
				fmt.Fprintf(os.Stderr, "progress call cancelled by the client\n")
				return failed(ctx.Err()), nil, nil
			}
			return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns a text of the size asked for."},
		func(_ context.Context, _ *mcp.CallToolRequest, in sizeArg) (*mcp.CallToolResult, any, error) {
			line := "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxy\n"
			var b strings.Builder
			for b.Len() < in.Bytes {
				b.WriteString(line)
			}
			out := b.String()[:in.Bytes]
			if in.Bytes >= 8 {
				out = "BEGIN" + out[5:len(out)-3] + "END"
			}
			return text(out), nil, nil
		})
}

// withResources is the -resources flag.
var withResources bool

// onePixel is a 1×1 PNG.
var onePixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\xdac\xfc\xcf\xc0\xf0\x1f\x00\x05\x05\x02\x00_\xc8\xf1\xd2\x00\x00\x00\x00IEND\xaeB`\x82")

// addResources adds the resources test://note (text/plain, "a note
// from mcptest"), test://picture (image/png, onePixel) and test://data
// (application/octet-stream, 300 bytes), and the tool content, whose
// result is a text, a link to test://note, test://note embedded, the
// picture embedded, the data embedded and onePixel as image content.
func addResources(s *mcp.Server) {
	note := &mcp.ResourceContents{URI: "test://note", MIMEType: "text/plain", Text: "a note from mcptest"}
	picture := &mcp.ResourceContents{URI: "test://picture", MIMEType: "image/png", Blob: onePixel}
	data := &mcp.ResourceContents{URI: "test://data", MIMEType: "application/octet-stream", Blob: make([]byte, 300)}
	for _, c := range []*mcp.ResourceContents{note, picture, data} {
		s.AddResource(&mcp.Resource{URI: c.URI, Name: c.URI[len("test://"):], MIMEType: c.MIMEType},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "content", Description: "Returns each kind of content."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "all kinds"},
				&mcp.ResourceLink{URI: "test://note", Name: "note", MIMEType: "text/plain"},
				&mcp.EmbeddedResource{Resource: note},
				&mcp.EmbeddedResource{Resource: picture},
				&mcp.EmbeddedResource{Resource: data},
				&mcp.ImageContent{Data: onePixel, MIMEType: "image/png"},
			}}, nil, nil
		})
}
