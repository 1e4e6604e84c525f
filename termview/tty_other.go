//go:build !linux

package termview

import "os"

// isTTY: elsewhere a character device counts as a terminal.
func isTTY(*os.File) bool { return true }
