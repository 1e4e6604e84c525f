//go:build !unix

package pluginhost_test

func actAsUmaskHost(string) int { return 1 }
