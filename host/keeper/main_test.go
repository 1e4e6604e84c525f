package keeper_test

import (
	"os"
	"testing"

	"github.com/harness-dev/harness/host/keeper"
)

func TestMain(m *testing.M) {
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
	if script := os.Getenv("KEEPER_TEST_HOST"); script != "" {
		os.Exit(actAsHost(script))
	}
	os.Exit(m.Run())
}
