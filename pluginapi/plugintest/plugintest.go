package plugintest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// FakeHost is a HostServices with fixed state. ReadState returns Todos and
// Cwd for any session. Do not change it while calls run.
type FakeHost struct {
	Todos []pluginapi.Todo
	Cwd   string
}

// ReadState implements pluginapi.HostServices.
func (h *FakeHost) ReadState(context.Context, pluginapi.ReadStateRequest) (pluginapi.ReadStateResponse, error) {
	return pluginapi.ReadStateResponse{Todos: append([]pluginapi.Todo(nil), h.Todos...), Cwd: h.Cwd}, nil
}

// Option changes what Start does.
type Option func(*options)

type options struct {
	host     pluginapi.HostServices
	noHost   bool
	verbose  bool
	stateDir string
}

// WithHost serves h to the plugin as its HostServices (default: an empty
// FakeHost).
func WithHost(h pluginapi.HostServices) Option {
	return func(o *options) { o.host = h }
}

// WithoutHost configures the plugin without HostServices, as a host that
// offers none would.
func WithoutHost() Option {
	return func(o *options) { o.noHost = true }
}

// WithStateDir tells the plugin dir as the host's state dir at Configure
// (default: none), so that handlers see Call.StateDir and Call.SessionDir.
func WithStateDir(dir string) Option {
	return func(o *options) { o.stateDir = dir }
}

// WithLogs sends the plugin's log (debug and up) to t.Log.
func WithLogs() Option {
	return func(o *options) { o.verbose = true }
}

// Start serves p in this process, connects a Client to it over go-plugin
// and gRPC, and configures it with a fake host. The plugin's server and
// client are stopped when the test ends.
func Start(t testing.TB, p pluginapi.Plugin, opts ...Option) *pluginhost.Client {
	t.Helper()
	o := options{host: &FakeHost{}}
	for _, opt := range opts {
		opt(&o)
	}
	cfg := pluginhost.InProcessConfig{}
	if o.verbose {
		w := &testWriter{t: t}
		t.Cleanup(w.stop)
		cfg.Logger = hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: w})
	}
	c, err := pluginhost.StartInProcess(t.Context(), p, cfg)
	if err != nil {
		t.Fatalf("plugintest: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := pluginapi.ConfigureRequest{HostVersion: "plugintest", LogLevel: "debug", StateDir: o.stateDir}
	if !o.noHost {
		req.Host = o.host
	}
	if err := c.Configure(t.Context(), req); err != nil {
		t.Fatalf("plugintest: configure: %v", err)
	}
	return c
}

// Exec runs one call and fails the test if the plugin or transport broke
// (a Go error). Empty fields of req get defaults: CallID "call-1", Caller
// agent, SessionID "session-1", Turn 1. A tool failure is a Result with
// IsError, which Exec returns as any other.
func Exec(t testing.TB, c *pluginhost.Client, req pluginapi.CallRequest) pluginapi.Result {
	t.Helper()
	if req.CallID == "" {
		req.CallID = "call-1"
	}
	if req.Caller == "" {
		req.Caller = pluginapi.CallerAgent
	}
	if req.SessionID == "" && req.Caller == pluginapi.CallerAgent {
		req.SessionID = "session-1"
	}
	if req.Turn == 0 {
		req.Turn = 1
	}
	res, err := c.Execute(t.Context(), req, nil)
	if err != nil {
		t.Fatalf("execute %s: %v", req.Tool, err)
	}
	return res
}

// Args encodes v as call arguments, failing the test if it cannot.
func Args(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode arguments: %v", err)
	}
	return b
}

// testWriter sends log lines to t.Log until the test ends.
type testWriter struct {
	mu      sync.Mutex
	t       testing.TB
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}
