package mcpclient

import (
	"os"
	"testing"

	"github.com/harness-dev/harness/host/keeper"
)

// TestMain lets the test binary act as the keeper of the stdio servers
// its tests start (host/keeper), as harness's main does, and as a host
// the tests SIGKILL (actAsHost).
func TestMain(m *testing.M) {
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
	if bin := os.Getenv("MCPCLIENT_TEST_HOST"); bin != "" {
		os.Exit(actAsHost(bin, os.Getenv("MCPCLIENT_TEST_HOST_TAG")))
	}
	os.Exit(m.Run())
}
