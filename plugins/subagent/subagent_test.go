package main

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// childHost answers SpawnSubagent with a scripted child.
type childHost struct {
	plugintest.FakeHost
	mu  sync.Mutex
	got []pluginapi.SubagentRequest
	res pluginapi.SubagentResult
}

func (h *childHost) SpawnSubagent(_ context.Context, req pluginapi.SubagentRequest, progress pluginapi.Progress) (pluginapi.SubagentResult, error) {
	h.mu.Lock()
	h.got = append(h.got, req)
	h.mu.Unlock()
	progress("→ bash ls\n")
	progress("done\n")
	return h.res, nil
}

func call(sessionID string, caller pluginapi.CallerKind, args string) pluginapi.CallRequest {
	return pluginapi.CallRequest{Tool: toolName, Args: []byte(args), SessionID: sessionID, Caller: caller, CallID: "c1", Cwd: "/work"}
}

func TestSubagent(t *testing.T) {
	t.Parallel()
	args := `{"description":"count files","prompt":"How many files?"}`
	tests := map[string]struct {
		host    pluginapi.HostServices
		noHost  bool
		req     pluginapi.CallRequest
		want    string
		isError bool
	}{
		"answer": {
			host: &childHost{res: pluginapi.SubagentResult{Text: "There are 3 files."}},
			req:  call("parent", pluginapi.CallerAgent, args), want: "There are 3 files.",
		},
		"child failed": {
			host: &childHost{res: pluginapi.SubagentResult{Text: "subagent stopped: step budget of 50 exceeded", IsError: true}},
			req:  call("parent", pluginapi.CallerAgent, args), want: "Error: subagent stopped: step budget of 50 exceeded", isError: true,
		},
		"no calling agent": {
			host: &childHost{}, req: call("", pluginapi.CallerNone, args),
			want: "Error: subagent tool requires a calling agent", isError: true,
		},
		"host without subagents": {
			host: &plugintest.FakeHost{}, req: call("parent", pluginapi.CallerAgent, args),
			want: "Error: this host cannot run subagents", isError: true,
		},
		"empty prompt": {
			host: &childHost{}, req: call("parent", pluginapi.CallerAgent, `{"description":"x","prompt":"  "}`),
			want: "Error: invalid arguments: `prompt` must be a non-empty string", isError: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := plugintest.Start(t, subagentPlugin(), plugintest.WithHost(tc.host))
			var mu sync.Mutex
			var progress []string
			res, err := c.Execute(context.Background(), tc.req, func(s string) {
				mu.Lock()
				defer mu.Unlock()
				progress = append(progress, s)
			})
			if err != nil {
				t.Fatal(err)
			}
			content := res.Content
			if res.IsError && !strings.HasPrefix(content, "Error:") {
				content = "Error: " + content // as the loop shows it
			}
			if content != tc.want || res.IsError != tc.isError {
				t.Errorf("result = %q (isError %v), want %q (%v)", res.Content, res.IsError, tc.want, tc.isError)
			}
			if h, ok := tc.host.(*childHost); ok && len(h.got) == 1 {
				if got := h.got[0]; got.ParentSessionID != "parent" || got.ParentCallID != "c1" || got.Prompt != "How many files?" || got.Description != "count files" {
					t.Errorf("request = %+v", got)
				}
				if got := strings.Join(progress, ""); got != "[count files] → bash ls\n[count files] done\n" {
					t.Errorf("progress = %q", got)
				}
			}
		})
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	plugintest.Conformance(t, plugintest.Start(t, subagentPlugin(), plugintest.WithHost(&childHost{res: pluginapi.SubagentResult{Text: "ok"}})))
}
