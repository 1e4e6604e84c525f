package pluginhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

const objSchema = `{"type":"object","properties":{},"additionalProperties":false}`

func rawTool(name string, run func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error)) pluginapi.Tool {
	return pluginapi.Tool{Spec: pluginapi.ToolSpec{Name: name, Description: name, Schema: json.RawMessage(objSchema)}, Run: run}
}

type numArgs struct {
	N    int    `json:"n"`
	Note string `json:"note"`
}

func sdkPlugin() pluginapi.Plugin {
	return pluginapi.Plugin{
		Name:       "sdk",
		Version:    "0.1.0",
		EventTypes: []string{"sdk/event"},
		Tools: []pluginapi.Tool{
			rawTool("progress", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				call.Progress("one")
				call.Progress("two")
				return pluginapi.Result{Content: "done", Events: []pluginapi.Event{{Type: "sdk/event", Data: json.RawMessage(`{"a":1}`)}}}, nil
			}),
			rawTool("fail", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{}, errors.New("the disk is full")
			}),
			rawTool("panic", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				var m map[string]int
				m["x"] = 1 // a runtime panic, not a panic(string)
				return pluginapi.Result{}, nil
			}),
			rawTool("undeclared", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: "x", Events: []pluginapi.Event{{Type: "other/event", Data: json.RawMessage(`{}`)}}}, nil
			}),
			rawTool("notjson", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) {
				return pluginapi.Result{Content: "x", Events: []pluginapi.Event{{Type: "sdk/event", Data: json.RawMessage(`{`)}}}, nil
			}),
			rawTool("state", func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				st, err := call.Host.ReadState(ctx, pluginapi.ReadStateRequest{SessionID: call.SessionID})
				if err != nil {
					return pluginapi.ErrorResult("%v (unimplemented: %v)", err, errors.Is(err, pluginapi.ErrUnimplemented)), nil
				}
				b, _ := json.Marshal(st)
				return pluginapi.Result{Content: string(b)}, nil
			}),
			rawTool("latin1", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				call.Progress("reading caf\xe9.txt")
				return pluginapi.Result{Content: "caf\xe9"}, nil
			}),
			rawTool("context", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
				b, _ := json.Marshal(call.CallRequest)
				return pluginapi.Result{Content: string(b)}, nil
			}),
			pluginapi.Typed(pluginapi.ToolSpec{Name: "typed", Description: "typed",
				Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"note":{"type":"string"},"extra":{"type":"string"}},"required":["n"]}`)},
				func(_ context.Context, _ *pluginapi.Call, a numArgs) (pluginapi.Result, error) {
					return pluginapi.Result{Content: strings.Repeat("x", a.N) + a.Note}, nil
				}),
		},
	}
}

func TestSDK(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, sdkPlugin())
	tests := []struct {
		tool, args string
		want       string
		isError    bool
	}{
		{tool: "progress", args: `{}`, want: "done"},
		{tool: "fail", args: `{}`, want: "Error: the disk is full", isError: true},
		{tool: "panic", args: `{}`, want: "Error: tool panic panicked: assignment to entry in nil map", isError: true},
		{tool: "undeclared", args: `{}`, want: `Error: tool undeclared proposed event type "other/event", which plugin sdk does not declare`, isError: true},
		{tool: "notjson", args: `{}`, want: `Error: tool notjson proposed a sdk/event event whose data is not JSON`, isError: true},
		{tool: "nope", args: `{}`, want: `Error: unknown tool "nope"`, isError: true},
		{tool: "state", args: `{}`, want: `{"Todos":null,"Cwd":""}`},
		// A result must be UTF-8 to cross gRPC: the SDK says what it replaced
		// (grpc's own error would name neither the tool nor the field).
		{tool: "latin1", args: `{}`, want: "caf\uFFFD\n[plugin SDK: 1 string(s) of this result were not UTF-8; their invalid bytes were replaced with U+FFFD]"},
		{tool: "typed", args: `{"n":3,"note":"!"}`, want: "xxx!"},
		{tool: "typed", args: ``, want: `Error: invalid arguments: missing required property "n"`, isError: true},
		{tool: "typed", args: `{"n":"3"}`, want: `Error: invalid arguments: n: expected integer, got string`, isError: true},
		{tool: "typed", args: `{"n":1.5}`, want: `Error: invalid arguments: n: expected integer, got number`, isError: true},
		{tool: "typed", args: `{"n":1} {}`, want: `Error: invalid arguments: malformed JSON: data after the arguments object`, isError: true},
		{tool: "typed", args: `{"n":1,"other":true}`, want: `Error: invalid arguments: unknown field "other"`, isError: true},
		{tool: "typed", args: `{"n":1,"extra":"in the schema, not in the struct"}`, want: `Error: invalid arguments: unknown field "extra"`, isError: true},
		{tool: "typed", args: `{"n":99999999999999999999}`, want: `Error: invalid arguments: n: expected integer, got number 99999999999999999999`, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			t.Parallel()
			res := plugintest.Exec(t, c, pluginapi.CallRequest{Tool: tt.tool, Args: json.RawMessage(tt.args)})
			if res.Content != tt.want || res.IsError != tt.isError {
				t.Errorf("got (%q, %v), want (%q, %v)", res.Content, res.IsError, tt.want, tt.isError)
			}
			if tt.isError && len(res.Events) > 0 {
				t.Errorf("an error result carries events: %v", res.Events)
			}
		})
	}
}

func TestProgressAndEvents(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, sdkPlugin())
	var got []string
	res, err := c.Execute(t.Context(), pluginapi.CallRequest{Tool: "progress", Args: json.RawMessage(`{}`)}, func(s string) { got = append(got, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("progress %q", got)
	}
	if len(res.Events) != 1 || res.Events[0].Type != "sdk/event" || string(res.Events[0].Data) != `{"a":1}` {
		t.Errorf("events %+v", res.Events)
	}
}

// TestCallContext: every field of a call reaches the handler.
func TestCallContext(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, sdkPlugin())
	req := pluginapi.CallRequest{Tool: "context", Args: json.RawMessage(`{}`), SessionID: "s9", Caller: pluginapi.CallerAgent, Turn: 7, CallID: "c3", Cwd: "/src"}
	res := plugintest.Exec(t, c, req)
	var got pluginapi.CallRequest
	if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
		t.Fatal(err)
	}
	if got.Tool != req.Tool || got.SessionID != req.SessionID || got.Caller != req.Caller || got.Turn != req.Turn || got.CallID != req.CallID || got.Cwd != req.Cwd || string(got.Args) != "{}" {
		t.Errorf("handler saw %+v, want %+v", got, req)
	}
}

type errHost struct{ err error }

func (h errHost) ReadState(context.Context, pluginapi.ReadStateRequest) (pluginapi.ReadStateResponse, error) {
	return pluginapi.ReadStateResponse{}, h.err
}

func TestHostServices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  plugintest.Option
		want string
	}{
		{"fake host", plugintest.WithHost(&plugintest.FakeHost{Todos: []pluginapi.Todo{{Content: "a", Status: "completed"}}, Cwd: "/w"}),
			`{"Todos":[{"content":"a","status":"completed"}],"Cwd":"/w"}`},
		{"no host", plugintest.WithoutHost(),
			`Error: read state: no host services: not implemented by this host (unimplemented: true)`},
		{"host without the method", plugintest.WithHost(errHost{err: pluginapi.ErrUnimplemented}),
			`Error: read state: not implemented by this host (unimplemented: true)`},
		{"host failure", plugintest.WithHost(errHost{err: errors.New("session s1 not found")}),
			`Error: read state: session s1 not found (unimplemented: false)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := plugintest.Start(t, sdkPlugin(), tt.opt)
			res := plugintest.Exec(t, c, pluginapi.CallRequest{Tool: "state", Args: json.RawMessage(`{}`)})
			if res.Content != tt.want {
				t.Errorf("got %s\nwant %s", res.Content, tt.want)
			}
		})
	}
}

func TestInvalidPlugin(t *testing.T) {
	t.Parallel()
	ok := rawTool("ok", func(context.Context, *pluginapi.Call) (pluginapi.Result, error) { return pluginapi.Result{}, nil })
	bad := ok
	bad.Spec.Schema = json.RawMessage(`{"type":"object","required":["x"]}`)
	tests := []struct {
		name string
		p    pluginapi.Plugin
		want string
	}{
		{"no name", pluginapi.Plugin{Version: "1"}, "plugin has no name"},
		{"no version", pluginapi.Plugin{Name: "p"}, "plugin p has no version"},
		{"tool twice", pluginapi.Plugin{Name: "p", Version: "1", Tools: []pluginapi.Tool{ok, ok}}, "plugin p: tool ok is declared twice"},
		{"bad tool name", pluginapi.Plugin{Name: "p", Version: "1", Tools: []pluginapi.Tool{rawTool("a b", ok.Run)}}, `plugin p: tool name "a b" must be 1-64 letters, digits, '_' or '-'`},
		{"bad schema", pluginapi.Plugin{Name: "p", Version: "1", Tools: []pluginapi.Tool{bad}}, `plugin p: tool ok: schema: required property "x" is not in "properties"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := pluginhost.StartInProcess(t.Context(), tt.p, pluginhost.InProcessConfig{})
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("err %v, want …%s", err, tt.want)
			}
		})
	}
}

func TestInProcessClose(t *testing.T) {
	t.Parallel()
	c, err := pluginhost.StartInProcess(t.Context(), sdkPlugin(), pluginhost.InProcessConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if c.PID() != 0 {
		t.Errorf("PID %d, want 0 in process", c.PID())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Exited():
	case <-time.After(time.Second):
		t.Fatal("Exited not closed")
	}
	if _, err := c.Execute(t.Context(), pluginapi.CallRequest{Tool: "progress", Args: json.RawMessage(`{}`)}, nil); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

// TestConcurrentCalls runs calls in parallel on one client (run it with
// -race).
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, sdkPlugin())
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			id := "c" + strconv.Itoa(i)
			var n int
			res, err := c.Execute(t.Context(), pluginapi.CallRequest{Tool: "progress", Args: json.RawMessage(`{}`), CallID: id}, func(string) { n++ })
			if err != nil || res.Content != "done" || n != 2 {
				t.Errorf("call %s: %+v, %v, %d progress", id, res, err, n)
			}
			if err := c.Cancel(t.Context(), id); err != nil {
				t.Errorf("cancel of a finished call: %v", err)
			}
		})
	}
	wg.Wait()
}

// TestHooks: Call.StateDir and Call.SessionDir come from Configure;
// SessionClosed reaches Plugin.SessionClosed; OnExit runs once when the
// in-process server stops.
func TestHooks(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		closed []string
		exits  int
	)
	p := pluginapi.Plugin{
		Name: "hooks", Version: "1",
		Tools: []pluginapi.Tool{rawTool("dirs", func(_ context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
			return pluginapi.Result{Content: call.StateDir + "|" + call.SessionDir()}, nil
		})},
		SessionClosed: func(_ context.Context, id string) {
			mu.Lock()
			defer mu.Unlock()
			closed = append(closed, id)
		},
		OnExit: func() {
			mu.Lock()
			defer mu.Unlock()
			exits++
		},
	}
	c, err := pluginhost.StartInProcess(t.Context(), p, pluginhost.InProcessConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	state := t.TempDir()
	if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{StateDir: state}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ session, want string }{
		{"20261129T194710-3f9a2c1b", state + "|" + filepath.Join(state, "sessions", "20261129T194710-3f9a2c1b")},
		{"", state + "|"},
		{"../etc", state + "|"},
		{"a/b", state + "|"},
		{".hidden", state + "|"},
	} {
		res, err := c.Execute(t.Context(), pluginapi.CallRequest{Tool: "dirs", Args: json.RawMessage(`{}`), SessionID: tt.session}, nil)
		if err != nil || res.Content != tt.want {
			t.Errorf("session %q: got %+v, %v; want %q", tt.session, res, err, tt.want)
		}
	}
	if err := c.SessionClosed(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	_ = c.Close()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(closed, []string{"s1"}) || exits != 1 {
		t.Errorf("SessionClosed saw %q, OnExit ran %d times; want [s1], 1", closed, exits)
	}
}
