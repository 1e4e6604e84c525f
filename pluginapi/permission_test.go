package pluginapi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// askingHost answers RequestPermission with its fixed answer.
type askingHost struct {
	plugintest.FakeHost
	answer pluginapi.PermissionResponse
	got    pluginapi.PermissionRequest
}

func (h *askingHost) RequestPermission(_ context.Context, req pluginapi.PermissionRequest) (pluginapi.PermissionResponse, error) {
	h.got = req
	return h.answer, nil
}

// askPlugin's tool asks the host before it acts.
func askPlugin() pluginapi.Plugin {
	return pluginapi.Plugin{Name: "asker", Version: "1", Tools: []pluginapi.Tool{{
		Spec: pluginapi.ToolSpec{Name: "delete", Description: "Deletes after asking.", Schema: []byte(`{"type":"object"}`)},
		Run: func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
			res, err := pluginapi.RequestPermission(ctx, call.Host, pluginapi.PermissionRequest{
				SessionID: call.SessionID, CallID: call.CallID, Tool: call.Tool,
				Title: "delete build/", Args: []byte(`{"path":"build/"}`)})
			switch {
			case errors.Is(err, pluginapi.ErrUnimplemented):
				return pluginapi.ErrorResult("cannot ask"), nil
			case err != nil:
				return pluginapi.Result{}, err
			case !res.Allowed:
				return pluginapi.ErrorResult("%s", res.Reason), nil
			}
			return pluginapi.Result{Content: "deleted"}, nil
		},
	}}}
}

func TestRequestPermission(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		host pluginapi.HostServices
		want string
	}{
		"allowed":         {host: &askingHost{answer: pluginapi.PermissionResponse{Allowed: true}}, want: "deleted"},
		"denied":          {host: &askingHost{answer: pluginapi.PermissionResponse{Reason: "permission denied by user"}}, want: "Error: permission denied by user"},
		"host cannot ask": {host: &plugintest.FakeHost{}, want: "Error: cannot ask"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := plugintest.Start(t, askPlugin(), plugintest.WithHost(tc.host))
			res := plugintest.Exec(t, c, pluginapi.CallRequest{Tool: "delete", Args: []byte(`{}`), SessionID: "s", CallID: "c9", Caller: pluginapi.CallerAgent})
			if res.Content != tc.want {
				t.Errorf("result = %q, want %q", res.Content, tc.want)
			}
			if h, ok := tc.host.(*askingHost); ok && (h.got.SessionID != "s" || h.got.CallID != "c9" || h.got.Title != "delete build/" || string(h.got.Args) != `{"path":"build/"}`) {
				t.Errorf("the host got %+v", h.got)
			}
		})
	}
}
