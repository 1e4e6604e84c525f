package pluginhost_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
)

// TestDescribeSDKVersion checks that a plugin's Describe carries the SDK
// version from the plugin binary's build info, over the real process and
// gRPC path: the todo plugin is built in the host module, which requires
// the SDK replaced by this folder; testplugin is built in the SDK's own
// module, whose version the go command stamps from the repository:
// "(devel)", the tag on the commit built (a checkout of a release), a
// pseudo-version after it, or v0.0.0-TIME-COMMIT in a clone without the
// SDK's tags (CI's clone of main), "+dirty" with uncommitted changes.
func TestDescribeSDKVersion(t *testing.T) {
	t.Parallel()
	release := fmt.Sprintf(`^v%d\.%d\.\d+\+replaced$`, pluginapi.ProtocolVersion, pluginapi.ProtocolMinor)
	for _, tc := range []struct{ plugin, want string }{
		{"todo", release},
		{"testplugin", fmt.Sprintf(`^(\(devel\)|v%d\.\d+\.\d+(-0\.\d{14}-[0-9a-f]{12})?|v0\.0\.0-\d{14}-[0-9a-f]{12})(\+dirty)?$`, pluginapi.ProtocolVersion)},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			t.Parallel()
			d, err := launch(t, tc.plugin).Describe(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(tc.want).MatchString(d.SDKVersion) {
				t.Errorf("Describe's SDK version = %q, want %s", d.SDKVersion, tc.want)
			}
		})
	}
}
