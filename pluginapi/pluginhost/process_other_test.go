//go:build !linux

package pluginhost_test

// actAsProcessParent is process_test.go's re-run host, which is Linux's
// (TestProcessDiesWithParent needs Pdeathsig): elsewhere nothing runs it.
func actAsProcessParent(string) int { return 1 }

// actAsHupChild is process_test.go's re-run child, Linux's too.
func actAsHupChild(string) int { return 1 }
