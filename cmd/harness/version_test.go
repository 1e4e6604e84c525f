package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
)

// TestVersionShowsSDK checks that `harness version` names the plugin
// protocol the host speaks and the SDK module version it was built with
// (in this repository, the folder next to it: "+replaced").
func TestVersionShowsSDK(t *testing.T) {
	t.Parallel()
	code, out, errOut := harness(t, map[string]string{}, "version")
	if code != exitOK {
		t.Fatalf("harness version: exit %d\n%s", code, errOut)
	}
	want := fmt.Sprintf("plugin protocol %d.%d, %s v%d.%d.", pluginapi.ProtocolVersion, pluginapi.ProtocolMinor, sdkModule, pluginapi.ProtocolVersion, pluginapi.ProtocolMinor)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "harness ") || !strings.HasPrefix(lines[1], want) || !strings.HasSuffix(lines[1], "+replaced") {
		t.Errorf("harness version =\n%s\nwant a second line %q…\"+replaced\"", out, want)
	}
}
