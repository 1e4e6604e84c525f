package plugincache

import (
	"io/fs"
	"syscall"
)

// keyOf returns the identity of the file fi describes.
func keyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{
		Dev:   uint64(st.Dev),
		Ino:   st.Ino,
		Size:  st.Size,
		Mtime: st.Mtim.Nano(),
		Ctime: st.Ctim.Nano(),
	}, true
}
