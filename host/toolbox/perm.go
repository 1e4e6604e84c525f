package toolbox

import (
	"fmt"
	"io/fs"
)

// unsafeFile says why a plugin dir or file may not be trusted, or returns
// nil: one that others could write (writable by group or others, or owned
// by a user other than this one or root) could run anything as this user.
// what is "plugin dir" or "plugin file"; fix is the command that repairs
// it. A dir that is sticky (like /tmp) is still refused: anyone may add a
// file to it.
func unsafeFile(what, path string, fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (mode %04o); refused: chmod go-w %s", what, perm, path)
	}
	if uid, ok := ownerOf(fi); ok && uid != 0 && uid != myUID() {
		return fmt.Errorf("%s is owned by uid %d, not by this user or root; refused: chown it or remove it", what, uid)
	}
	return nil
}
