//go:build !unix

package llmproc_test

func umaskHost(string) int { return 1 }
