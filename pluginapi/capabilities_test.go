package pluginapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

func TestCapabilitiesValidate(t *testing.T) {
	tests := []struct {
		name string
		caps pluginapi.Capabilities
		err  string // "" valid
	}{
		{"default", pluginapi.Capabilities{}, ""},
		{"words", pluginapi.Capabilities{Write: []string{"cwd", "temp"}, Read: []string{"home"}}, ""},
		{"paths", pluginapi.Capabilities{Write: []string{"/var/x"}, Read: []string{"/"}}, ""},
		{"home is not a write", pluginapi.Capabilities{Write: []string{"home"}}, `write entry "home"`},
		{"relative", pluginapi.Capabilities{Read: []string{"src"}}, `read entry "src"`},
		{"unclean", pluginapi.Capabilities{Write: []string{"/a/../etc"}}, "absolute clean"},
		{"NUL", pluginapi.Capabilities{Read: []string{"/a\x00b"}}, "NUL"},
		{"too many", pluginapi.Capabilities{Read: strings.Split(strings.Repeat("/a,", 65)[:3*65-1], ",")}, "at most 64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.caps.Validate()
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Validate = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestCapabilitiesCovers(t *testing.T) {
	net := pluginapi.Capabilities{Network: true}
	cwd := pluginapi.Capabilities{Write: []string{"cwd"}}
	both := pluginapi.Capabilities{Network: true, Write: []string{"cwd", "temp"}}
	tests := []struct {
		name      string
		have, ask pluginapi.Capabilities
		want      bool
	}{
		{"default covers default", pluginapi.Capabilities{}, pluginapi.Capabilities{}, true},
		{"default does not cover network", pluginapi.Capabilities{}, net, false},
		{"more covers less", both, cwd, true},
		{"less does not cover more", cwd, both, false},
		{"exec", net, pluginapi.Capabilities{Exec: true}, false},
		{"sandboxes", both, pluginapi.Capabilities{Sandboxes: true}, false},
		{"read path", pluginapi.Capabilities{Read: []string{"/a"}}, pluginapi.Capabilities{Read: []string{"/a/b"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.have.Covers(tc.ask); got != tc.want {
				t.Errorf("%v covers %v = %v, want %v", tc.have, tc.ask, got, tc.want)
			}
		})
	}
}

// TestDescribeCarriesCapabilities serves a plugin over the real gRPC path
// and checks that Describe carries what it declares, and nothing for
// one that declares nothing.
func TestDescribeCarriesCapabilities(t *testing.T) {
	for _, caps := range []pluginapi.Capabilities{
		{},
		{Network: true, Write: []string{"cwd", "/srv/out"}, Read: []string{"home"}, Exec: true, Sandboxes: true},
	} {
		b, _ := json.Marshal(caps)
		t.Run(string(b), func(t *testing.T) {
			c := plugintest.Start(t, pluginapi.Plugin{Name: "p", Version: "1", Capabilities: caps})
			d, err := c.Describe(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !d.Capabilities.Equal(caps) || d.ProtocolMinor != pluginapi.ProtocolMinor {
				t.Errorf("Describe: %+v at minor %d, want %+v at %d", d.Capabilities, d.ProtocolMinor, caps, pluginapi.ProtocolMinor)
			}
		})
	}
}
