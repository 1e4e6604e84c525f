package providers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/llm/providers"
)

// TestListRemoteModels: GET BASE/models with the key as a bearer token,
// the ids sorted; a refused key names the variable, never the key.
func TestListRemoteModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-good" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"bad key `+r.Header.Get("Authorization")+`"}`)
			return
		}
		io.WriteString(w, `{"object":"list","data":[{"id":"qwen3"},{"id":"llama3.1"},{"id":"qwen3"}]}`)
	}))
	defer srv.Close()
	env := func(key string) func(string) string {
		return func(k string) string {
			if k == "OPENAI_API_KEY" {
				return key
			}
			return ""
		}
	}
	names, err := providers.ListRemote(context.Background(), providers.Provider{Name: "openai", BaseURL: srv.URL + "/v1/", Getenv: env("sk-good")})
	if err != nil || strings.Join(names, ",") != "llama3.1,qwen3" {
		t.Fatalf("names %q, %v; want llama3.1,qwen3", names, err)
	}
	_, err = providers.ListRemote(context.Background(), providers.Provider{Name: "openai", BaseURL: srv.URL + "/v1", Getenv: env("sk-bad-secret")})
	if err == nil || !strings.Contains(err.Error(), "check OPENAI_API_KEY") || strings.Contains(err.Error(), "sk-bad-secret") {
		t.Fatalf("error %v: want one naming OPENAI_API_KEY without the key", err)
	}
	if _, err := providers.ListRemote(context.Background(), providers.Provider{Name: "script"}); err == nil {
		t.Fatal("the script provider lists remote models")
	}
}
