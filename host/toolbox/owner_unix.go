//go:build unix

package toolbox

import (
	"io/fs"
	"os"
	"syscall"
)

// ownerOf returns the uid owning the file fi describes.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// myUID is the uid plugin files must belong to (or root).
func myUID() int { return os.Geteuid() }
