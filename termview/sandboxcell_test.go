package termview

import (
	"testing"

	"github.com/harness-dev/harness/host/event"
)

func TestSandboxCell(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode, network, want string
	}{
		{"", "", "-"},
		{"workspace-write", "off", "workspace-write"},
		{"read-only", "on", "read-only +net"},
		{"workspace-write", "registry.npmjs.org,*.example.com", "workspace-write +list"},
		{"off", "on", "off"},
	} {
		if got := sandboxCell(event.SandboxPolicy{Mode: tt.mode, Network: tt.network}); got != tt.want {
			t.Errorf("sandboxCell(%s, %s) = %q, want %q", tt.mode, tt.network, got, tt.want)
		}
	}
}
