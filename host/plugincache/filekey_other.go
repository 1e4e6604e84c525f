//go:build !linux

package plugincache

import "io/fs"

// keyOf reports that files have no usable identity here: every Open hashes
// every plugin file.
func keyOf(fs.FileInfo) (fileKey, bool) { return fileKey{}, false }
