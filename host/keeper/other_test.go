//go:build !linux

package keeper_test

// actAsHost: only the Linux tests re-run the test binary as a host.
func actAsHost(string) int { return 2 }
