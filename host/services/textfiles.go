package services

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// The host's text files on disk (HostServices ReadTextFile and
// WriteTextFile without an editor, which plugins/fs uses for the files it
// checked, approved writes outside the project included) are opened in
// one step where they are, following no symlink: the path (absolute,
// with its symlinks resolved, as plugins/fs sends the path it checked) is
// opened beneath the session's cwd when it is in it (an os.Root opened
// once per request), else beneath "/", one component at a time with
// pluginapi/fsroot. The host does not resolve it again: a symlink on the
// way — one a process swapped in since the plugin resolved the path —
// fails the request with an error that says so; it never leads
// elsewhere. Writes are a temporary file in the same folder renamed
// beneath it (Root.Rename), never by absolute name.

// textPlace opens where the host reaches path for the session: the root
// to open it beneath and its name there. The caller closes root.
func (h *Host) textPlace(sessionID, path string) (root *os.Root, name string, err error) {
	path = filepath.Clean(path)
	if s, ok := h.Sessions.Session(sessionID); ok && filepath.IsAbs(s.Cwd()) {
		cwd := filepath.Clean(s.Cwd())
		if rc, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = rc
		}
		if rel, err := filepath.Rel(cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			root, err := os.OpenRoot(cwd)
			if err != nil {
				return nil, "", fmt.Errorf("open %s: %w", cwd, err)
			}
			return root, rel, nil
		}
	}
	return fsroot.Abs(path)
}

// textError is the error of op on path, saying so when a symlink was on
// its way (the host follows none) or the file changed while it was
// opened.
func textError(op, path string, err error) error {
	if errors.Is(err, fsroot.ErrSymlink) || errors.Is(err, fsroot.ErrChanged) {
		return fmt.Errorf("%s %s: it changed while the host opened it (a symlink or another file took its place, or the place of a folder on its way; the host's text files follow no symlink); nothing was done with it: try again", op, path)
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// diskNotUTF8 says where the file at path, on disk, stops being UTF-8, or
// "" when it is UTF-8, missing, or not a regular file of at most
// maxTextFile bytes.
func (h *Host) diskNotUTF8(sessionID, path string) string {
	data, err := h.readRegular(sessionID, path)
	if err != nil {
		return ""
	}
	return notUTF8(data)
}

// readRegular reads a regular file of at most maxTextFile bytes for the
// session; it never blocks on a FIFO.
func (h *Host) readRegular(sessionID, path string) ([]byte, error) {
	root, name, err := h.textPlace(sessionID, path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, fi, err := fsroot.Open(root, name, nil)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, textError("read", path, err)
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTextFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxTextFile {
		return nil, fmt.Errorf("read %s: over the %d bytes the host reads", path, maxTextFile)
	}
	return data, nil
}

// writeAtomic writes data to a temporary file next to path and renames it
// over path, beneath the session's cwd or "/" (textPlace), keeping an
// existing file's mode (new files 0644) and creating the missing folders.
func (h *Host) writeAtomic(sessionID, path string, data []byte) error {
	root, name, err := h.textPlace(sessionID, path)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := fsroot.WriteFile(root, name, data, 0o644); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return textError("write", path, err)
	}
	return nil
}
