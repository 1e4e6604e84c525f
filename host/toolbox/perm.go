package toolbox

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/harness-dev/harness/host/ownership"
)

// unsafeFile says why a plugin dir or file may not be trusted, or returns
// nil: one that others could write (writable by group or others, or owned
// by a user other than this one or root) could run anything as this user.
// what is "plugin dir" or "plugin file"; fix is the command that repairs
// it. A dir that is sticky (like /tmp) is still refused: anyone may add a
// file to it. The rule is host/ownership's, the one for all of harness's
// own files; the message leaves the path out of its first words because
// a Failure is shown after its path.
func unsafeFile(what, path string, fi fs.FileInfo) error {
	var e *ownership.Error
	if !errors.As(ownership.Check(what, path, fi), &e) {
		return nil
	}
	if e.Writable {
		return fmt.Errorf("%s is writable by group or others (mode %04o); refused: chmod go-w %s", what, fi.Mode().Perm(), path)
	}
	return fmt.Errorf("%s is owned by uid %d, not by this user or root; refused: chown it or remove it", what, e.UID)
}
