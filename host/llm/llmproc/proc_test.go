package llmproc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/anthropic"
	"github.com/harness-dev/harness/host/llm/llmproc"
	"github.com/harness-dev/harness/host/llm/responses"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// testDir holds what the tests build; TestMain removes it.
var testDir string

const testKey = "sk-llmproc-test-secret-4f1d"

// TestMain removes what the tests built. Run with LLMPROC_TEST_HOST set,
// the test binary plays a host instead (see TestHostKilled).
func TestMain(m *testing.M) {
	// the test binary is the keeper of the processes the tests start, as
	// harness is of harness-llm (host/keeper; the Supervisor of newProc)
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
	if path := os.Getenv("LLMPROC_TEST_UMASK_HOST"); path != "" {
		os.Exit(umaskHost(path))
	}
	if os.Getenv("LLMPROC_TEST_HOST") != "" {
		os.Exit(playHost())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "llmproc-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	testDir = dir
	return m.Run()
}

var built struct {
	once sync.Once
	bin  string
	err  error
}

// harnessLLM builds cmd/harness-llm once per run (static, as the README
// does) and returns its path.
func harnessLLM(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		cmd := exec.Command("go", "build", "-o", testDir+"/", "../../../cmd/harness-llm")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build harness-llm: %v\n%s", err, out)
		}
		built.bin = filepath.Join(testDir, "harness-llm")
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// supervise is the supervisor harness runs harness-llm under
// (confine.Supervise): every test here runs the process under host/keeper.
func supervise(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.Wrap(cmd) }

// playHost is a host that starts a stream that hangs and prints the
// process's pid, then waits to be killed.
func playHost() int {
	p := llmproc.New(llmproc.Options{Path: os.Getenv("LLMPROC_TEST_HOST"), Supervisor: supervise})
	prov := p.Provider(llmproc.Config{Provider: "anthropic", BaseURL: os.Getenv("LLMPROC_TEST_URL"), APIKey: testKey})
	go func() {
		for range prov.Stream(context.Background(), simple) {
		}
	}()
	for p.PID() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println(p.PID())
	select {}
}

var simple = llm.Request{System: "be brief", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}

// reply is one answer of the fake API.
type reply struct {
	status int
	header map[string]string
	body   string
	file   string // testdata of the provider's package
	hang   bool   // send body, then hold the connection open
}

// fakeAPI is a recording fake of the Messages or Responses API.
type fakeAPI struct {
	*httptest.Server
	dir     string
	mu      sync.Mutex
	replies []reply
	reqs    [][]byte
	keys    []string
	hangs   chan struct{}
}

func newFake(t testing.TB, dir string, replies ...reply) *fakeAPI {
	f := &fakeAPI{dir: dir, replies: replies, hangs: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, b)
		f.keys = append(f.keys, r.Header.Get("X-Api-Key")+r.Header.Get("Authorization"))
		var rep reply
		if n < len(f.replies) {
			rep = f.replies[n]
		} else {
			rep = f.replies[len(f.replies)-1]
		}
		f.mu.Unlock()
		body := rep.body
		if rep.file != "" {
			b, err := os.ReadFile(filepath.Join("..", f.dir, "testdata", rep.file))
			if err != nil {
				t.Error(err)
			}
			body = string(b)
		}
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status != 0 && rep.status != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rep.status)
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
		if rep.hang {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-f.hangs:
			}
		}
	}))
	t.Cleanup(func() { close(f.hangs); f.Close() })
	return f
}

func (f *fakeAPI) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.reqs...)
}

func newProc(t *testing.T, idle time.Duration) *llmproc.Proc {
	p := llmproc.New(llmproc.Options{Path: harnessLLM(t), Idle: idle, Logger: hclog.New(&hclog.LoggerOptions{Output: io.Discard}),
		Supervisor: supervise})
	t.Cleanup(func() { p.Close() })
	return p
}

type streamer interface {
	Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error]
}

func collect(ctx context.Context, s streamer, req llm.Request) ([]llm.Chunk, error) {
	var out []llm.Chunk
	for c, err := range s.Stream(ctx, req) {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// direct is the provider in this process, for comparison.
func direct(t *testing.T, cfg llmproc.Config) streamer {
	var p streamer
	var err error
	switch cfg.Provider {
	case "anthropic":
		p, err = anthropic.New(anthropic.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, ThinkingBudget: cfg.ThinkingBudget})
	default:
		p, err = responses.New(responses.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model})
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTurnRoundTrip: a whole turn through the process yields exactly the
// chunks the provider yields in this process (thinking and reasoning
// blocks with their signatures and encrypted content byte for byte), and
// a second request carrying those blocks back reaches the API exactly as
// the provider in this process sends it.
func TestTurnRoundTrip(t *testing.T) {
	p := newProc(t, 0)
	for _, tc := range []struct {
		provider, dir, first, second string
	}{
		{"anthropic", "anthropic", "thinking_tool.sse", "text.sse"},
		{"openai-responses", "responses", "reasoning_tool.sse", "text.sse"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			turn := func(s streamer, f *fakeAPI) ([]llm.Chunk, [][]byte) {
				first, err := collect(t.Context(), s, simple)
				if err != nil {
					t.Fatal(err)
				}
				var asm llm.Assembler
				for _, c := range first {
					asm.Add(c)
				}
				resp := asm.Response()
				if len(resp.Blocks) == 0 || len(resp.ToolCalls) == 0 {
					t.Fatalf("first answer has no blocks or tool calls: %+v", resp)
				}
				req := simple
				req.Messages = append(append([]llm.Message(nil), simple.Messages...),
					llm.Message{Role: llm.RoleAssistant, Text: resp.Text, Reasoning: resp.Reasoning, ToolCalls: resp.ToolCalls, Blocks: resp.Blocks},
					llm.Message{Role: llm.RoleTool, ToolCallID: resp.ToolCalls[0].ID, Text: "ok"})
				second, err := collect(t.Context(), s, req)
				if err != nil {
					t.Fatal(err)
				}
				return append(first, second...), f.requests()
			}
			fp := newFake(t, tc.dir, reply{file: tc.first}, reply{file: tc.second})
			cfg := llmproc.Config{Provider: tc.provider, BaseURL: fp.URL, APIKey: testKey, Model: "m-1"}
			gotChunks, gotReqs := turn(p.Provider(cfg), fp)
			fd := newFake(t, tc.dir, reply{file: tc.first}, reply{file: tc.second})
			cfg.BaseURL = fd.URL
			wantChunks, wantReqs := turn(direct(t, cfg), fd)
			if !reflect.DeepEqual(gotChunks, wantChunks) {
				t.Errorf("chunks through the process differ:\n got %+v\nwant %+v", gotChunks, wantChunks)
			}
			if len(gotReqs) != 2 || len(wantReqs) != 2 || string(gotReqs[1]) != string(wantReqs[1]) {
				t.Errorf("second request through the process differs:\n got %s\nwant %s", gotReqs, wantReqs)
			}
			for _, k := range fp.keys {
				if !strings.Contains(k, testKey) {
					t.Errorf("the API sent through the process got key header %q", k)
				}
			}
		})
	}
}

// TestTypedErrors: an *llm.Error in the process arrives as one with the
// same kind, status, message and retry-after; the process retried, the
// host did not again.
func TestTypedErrors(t *testing.T) {
	p := newProc(t, 0)
	tooLong := `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`
	slow := `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`
	for _, tc := range []struct {
		name     string
		rep      reply
		kind     llm.ErrorKind
		status   int
		after    time.Duration
		requests int
	}{
		{"context too long", reply{status: 400, body: tooLong}, llm.ErrContextLength, 400, 0, 1},
		{"429 with retry-after", reply{status: 429, header: map[string]string{"Retry-After-Ms": "30"}, body: slow}, llm.ErrRateLimit, 429, 30 * time.Millisecond, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp := newFake(t, "anthropic", tc.rep)
			cfg := llmproc.Config{Provider: "anthropic", BaseURL: fp.URL, APIKey: testKey}
			_, err := collect(t.Context(), p.Provider(cfg), simple)
			le, ok := errors.AsType[*llm.Error](err)
			if !ok {
				t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
			}
			fd := newFake(t, "anthropic", tc.rep)
			cfg.BaseURL = fd.URL
			_, derr := collect(t.Context(), direct(t, cfg), simple)
			want := derr.(*llm.Error)
			if le.Kind != tc.kind || le.Status != tc.status || le.RetryAfter != tc.after ||
				le.Kind != want.Kind || le.Status != want.Status || le.Message != want.Message || le.RetryAfter != want.RetryAfter || le.Provider != want.Provider {
				t.Errorf("through the process: %+v\n   in this process: %+v", le, want)
			}
			if n := len(fp.requests()); n != tc.requests || n != len(fd.requests()) {
				t.Errorf("%d requests through the process, %d in this process, want %d", n, len(fd.requests()), tc.requests)
			}
			if strings.Contains(le.Error(), testKey) {
				t.Errorf("the key is in the error: %v", le)
			}
		})
	}
}

// TestCrashMidStream: the process killed mid-stream ends the stream with
// ErrTransport naming what happened; the next call starts a new process
// and works.
func TestCrashMidStream(t *testing.T) {
	p := newProc(t, 0)
	text, err := os.ReadFile("../anthropic/testdata/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(text), "event: content_block_stop")
	fp := newFake(t, "anthropic", reply{body: head, hang: true}, reply{file: "text.sse"})
	prov := p.Provider(llmproc.Config{Provider: "anthropic", BaseURL: fp.URL, APIKey: testKey})
	var got []llm.Chunk
	var serr error
	killed := 0
	for c, err := range prov.Stream(t.Context(), simple) {
		if err != nil {
			serr = err
			break
		}
		got = append(got, c)
		if killed == 0 {
			killed = p.PID()
			if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	le, ok := errors.AsType[*llm.Error](serr)
	if len(got) == 0 || !ok || le.Kind != llm.ErrTransport || !strings.Contains(le.Message, "harness-llm died mid-stream (signal: killed)") {
		t.Fatalf("after %d chunks: %v; want an ErrTransport saying the process died", len(got), serr)
	}
	chunks, err := collect(t.Context(), prov, simple)
	if err != nil || len(chunks) == 0 || chunks[len(chunks)-1].Kind != llm.ChunkFinish {
		t.Fatalf("the call after the crash: %v, %d chunks", err, len(chunks))
	}
	if pid := p.PID(); pid == 0 || pid == killed || p.Starts() != 2 {
		t.Errorf("pid %d (killed %d), %d starts; want a second process", pid, killed, p.Starts())
	}
}

// TestConcurrentFirstCalls start one process.
func TestConcurrentFirstCalls(t *testing.T) {
	p := newProc(t, 0)
	fp := newFake(t, "anthropic", reply{file: "text.sse"})
	prov := p.Provider(llmproc.Config{Provider: "anthropic", BaseURL: fp.URL, APIKey: testKey})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := collect(t.Context(), prov, simple)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := p.Starts(); n != 1 {
		t.Errorf("%d processes started, want 1", n)
	}
}

// TestIdleStop: the process stops after the idle time with nothing in
// flight, never during a stream, and the next call starts it again.
func TestIdleStop(t *testing.T) {
	p := newProc(t, 300*time.Millisecond)
	text, _ := os.ReadFile("../anthropic/testdata/text.sse")
	head, _, _ := strings.Cut(string(text), "event: content_block_stop")
	fp := newFake(t, "anthropic", reply{file: "text.sse"}, reply{body: head, hang: true}, reply{file: "text.sse"})
	prov := p.Provider(llmproc.Config{Provider: "anthropic", BaseURL: fp.URL, APIKey: testKey})
	if _, err := collect(t.Context(), prov, simple); err != nil {
		t.Fatal(err)
	}
	first := p.PID()
	// A stream in flight longer than the idle time keeps it up.
	ctx, cancel := context.WithTimeout(t.Context(), 900*time.Millisecond)
	_, err := collect(ctx, prov, simple)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the hanging stream ended with %v, want the deadline", err)
	}
	if p.PID() != first || p.Starts() != 1 {
		t.Fatalf("the process changed during a stream (pid %d → %d)", first, p.PID())
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.PID() != 0 || syscall.Kill(first, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still up after the idle time", first)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := collect(t.Context(), prov, simple); err != nil {
		t.Fatal(err)
	}
	if p.Starts() != 2 || p.PID() == first {
		t.Errorf("%d starts, pid %d; want a new process", p.Starts(), p.PID())
	}
}

// TestHostKilled: harness-llm runs under a keeper (its parent is not the
// host), and a host killed with SIGKILL takes both with it.
func TestHostKilled(t *testing.T) {
	fp := newFake(t, "anthropic", reply{body: "event: ping\ndata: {\"type\":\"ping\"}\n\n", hang: true})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe)
	host.Env = append(os.Environ(), "LLMPROC_TEST_HOST="+harnessLLM(t), "LLMPROC_TEST_URL="+fp.URL)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the host printed no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || syscall.Kill(pid, 0) != nil {
		t.Fatalf("pid %q is not a running process (%v)", line, err)
	}
	keeperPID := parentOf(pid)
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", keeperPID))
	if keeperPID == host.Process.Pid || !strings.Contains(string(cmdline), "--harness-keeper-v1") {
		t.Errorf("harness-llm's parent %d is %q, want a keeper", keeperPID, cmdline)
	}
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range []int{pid, keeperPID} {
		for alive(p) {
			if time.Now().After(deadline) {
				syscall.Kill(p, syscall.SIGKILL)
				t.Fatalf("process %d (harness-llm %d, its keeper %d) outlived its host", p, pid, keeperPID)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// parentOf is pid's parent, from /proc (0 if unknown).
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestNoKeyInProcess: the key travels in the request only: neither the
// process's environment nor its command line holds it, nor any key in the
// host's environment.
func TestNoKeyInProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	const envKey = "sk-in-the-host-environment-77aa"
	t.Setenv("ANTHROPIC_API_KEY", envKey)
	t.Setenv("OPENAI_API_KEY", envKey)
	t.Setenv("HARNESS_API_KEY", envKey)
	t.Setenv("OPENAI_ORG_ID", "org-from-env")
	p := newProc(t, 0)
	fp := newFake(t, "anthropic", reply{body: "event: ping\ndata: {\"type\":\"ping\"}\n\n", hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for range p.Provider(llmproc.Config{Provider: "anthropic", BaseURL: fp.URL, APIKey: testKey}).Stream(ctx, simple) {
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(fp.requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no request reached the API")
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid := p.PID()
	for _, f := range []string{"environ", "cmdline"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{testKey, envKey, "API_KEY", "org-from-env"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("/proc/%d/%s holds %q", pid, f, secret)
			}
		}
		if f == "environ" && !strings.Contains(string(b), "PATH=") {
			t.Errorf("/proc/%d/environ lacks PATH; the check reads the wrong thing: %q", pid, b)
		}
	}
}

// TestFindMissing: a missing binary is one line saying where it looked
// and how to build it.
func TestFindMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "harness-llm")
	_, err := llmproc.Find(func(k string) string {
		if k == llmproc.EnvBinary {
			return missing
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "go build -o bin/ ./cmd/...") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
	bin := harnessLLM(t)
	if got, err := llmproc.Find(func(k string) string { return map[string]string{llmproc.EnvBinary: bin}[k] }); err != nil || got != bin {
		t.Errorf("Find = %q, %v; want %s", got, err, bin)
	}
}

// TestSettingsMatchProviders: the host's copies of the providers' defaults
// are the providers' own.
func TestSettingsMatchProviders(t *testing.T) {
	for _, c := range [][2]string{
		{llmproc.Anthropic, anthropic.Name}, {llmproc.Responses, responses.Name},
		{llmproc.AnthropicModel, anthropic.DefaultModel}, {llmproc.ResponsesModel, responses.DefaultModel},
		{llmproc.AnthropicKeyEnv, anthropic.KeyEnv},
	} {
		if c[0] != c[1] {
			t.Errorf("llmproc has %q, the provider %q", c[0], c[1])
		}
	}
}

// BenchmarkStream: one short answer through the process, cold (a new
// process per call: start, handshake, stream) and warm (the running one).
func BenchmarkStream(b *testing.B) {
	for _, cold := range []bool{true, false} {
		b.Run(map[bool]string{true: "cold", false: "warm"}[cold], func(b *testing.B) {
			fp := newFake(b, "anthropic", reply{file: "text.sse"})
			cfg := llmproc.Config{Provider: "anthropic", BaseURL: fp.URL, APIKey: testKey}
			p := llmproc.New(llmproc.Options{Path: harnessLLM(b), Idle: -1})
			defer func() { p.Close() }()
			for b.Loop() {
				if cold {
					b.StopTimer()
					p.Close()
					p = llmproc.New(llmproc.Options{Path: harnessLLM(b), Idle: -1})
					b.StartTimer()
				}
				if _, err := collect(b.Context(), p.Provider(cfg), simple); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
