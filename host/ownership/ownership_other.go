//go:build !unix

package ownership

import (
	"errors"
	"io/fs"
	"os"
)

var errNotDir = errors.New("not a directory")

// openNoWait: no such flag here.
const openNoWait = 0

// ownerOf reports that owners are not known here.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

func setPrivate(path string) error { return os.Chmod(path, 0o700) }
