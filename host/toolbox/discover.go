package toolbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/pluginlock"
)

// found is one entry of the plugin dirs worth reporting: a plugin
// candidate (err nil) or an unreadable dir or file.
type found struct {
	path string
	err  error
}

// discover lists the plugin candidates of dirs: in dir order, then in file
// name order, every executable regular file whose name is not skipped by
// pluginlock.Skip. A missing dir is logged and skipped; an unreadable dir
// or file is listed with its error, and so is a dir or file that others
// could write (see unsafeFile). Files without an exec bit are skipped silently.
func discover(dirs []string, log hclog.Logger) []found {
	var out []found
	seen := map[string]bool{}
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			log.Warn("plugin dir does not exist", "dir", dir)
			continue
		}
		if err == nil {
			var fi fs.FileInfo
			if fi, err = os.Stat(dir); err == nil {
				if bad := unsafeFile("plugin dir", dir, fi); bad != nil {
					out = append(out, found{path: dir, err: bad})
					continue
				}
			}
		}
		if err != nil {
			out = append(out, found{path: dir, err: fmt.Errorf("read plugin dir: %w", err)})
			continue
		}
		for _, e := range entries {
			if e.IsDir() || pluginlock.Skip(e.Name()) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			fi, err := os.Stat(path) // follows a symlink
			switch {
			case err != nil:
				out = append(out, found{path: path, err: err})
			case !fi.Mode().IsRegular():
				log.Debug("skipping plugin dir entry: not a regular file", "path", path)
			case fi.Mode().Perm()&0o111 == 0:
				log.Debug("skipping plugin dir entry: not executable", "path", path)
			default:
				out = append(out, found{path: path, err: unsafeFile("plugin file", path, fi)})
			}
		}
	}
	return out
}
