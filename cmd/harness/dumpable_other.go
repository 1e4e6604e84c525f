//go:build !linux

package main

// hideProcess does nothing outside Linux: there is no /proc/<pid>/environ
// for a same-user process to read.
func hideProcess() error { return nil }
