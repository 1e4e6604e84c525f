//go:build !linux

package main

// escapeNoUserNSHelper: the escape suite runs on Linux only.
func escapeNoUserNSHelper() (int, bool) { return 0, false }
