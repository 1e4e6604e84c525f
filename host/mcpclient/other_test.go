//go:build !linux

package mcpclient

// actAsHost: only the Linux tests re-run the test binary as a host.
func actAsHost(string, string) int { return 2 }
