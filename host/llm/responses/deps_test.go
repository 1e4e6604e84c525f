package responses

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sdkRoot is the openai-go root package: it links every OpenAI service
// (≈3.5 MB of harness's RSS at startup) and reads OPENAI_* variables.
const sdkRoot = "github.com/openai/openai-go/v3"

// TestNoSDKRootInHarness fails when harness-llm (the process the SDK
// providers run in) links the SDK's
// root package again; the provider uses the Responses service alone.
func TestNoSDKRootInHarness(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/harness-llm")
	cmd.Dir = filepath.Join("..", "..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/harness-llm: %v", err)
	}
	deps := strings.Fields(string(out))
	var sawService bool
	for _, d := range deps {
		if d == sdkRoot {
			t.Errorf("harness links %s; use %s/responses, option, shared and packages/* only", sdkRoot, sdkRoot)
		}
		sawService = sawService || d == sdkRoot+"/responses"
	}
	if !sawService {
		t.Fatalf("go list -deps ./cmd/harness-llm names no %s/responses; the check saw nothing:\n%s", sdkRoot, out)
	}
}

// TestNoEnvironment: the SDK's environment (OPENAI_BASE_URL, OPENAI_ORG_ID,
// OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS) changes nothing: the key and
// base URL come from Config, and no other header is added.
func TestNoEnvironment(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	sse, err := os.ReadFile(filepath.Join("testdata", "text.sse"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sse)
	}))
	defer srv.Close()
	p := newProvider(t, srv.URL+"/v1", nil)
	if _, _, err := collect(t.Context(), p, simple); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got == nil {
		t.Fatal("the request did not reach the configured base URL")
	}
	if a := got.Get("Authorization"); a != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the configured key", a)
	}
	for _, h := range []string{"OpenAI-Organization", "OpenAI-Project", "X-Leak"} {
		if v := got.Get(h); v != "" {
			t.Errorf("%s = %q comes from the environment", h, v)
		}
	}
}
