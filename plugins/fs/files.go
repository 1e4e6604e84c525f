//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
)

// Files is how the tools reach the contents of files: the one seam between
// the tools and where a file's text lives. Paths are absolute and already
// resolved (symlinks followed, see resolvePath). diskFiles is the local
// disk; hostFiles (per call, see server.filesFor) reads and writes text
// through the host's ReadTextFile and WriteTextFile, which an editor
// serves under `harness acp` (fs/read_text_file, fs/write_text_file), so
// that reads see unsaved buffers and writes land in them.
//
// grep and glob search the tree on disk directly: an editor offers no
// search, and a search over buffers would miss every file not open.
type Files interface {
	// Stat describes the file at path, following symlinks.
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// Open opens a regular file for reading. It never blocks on a FIFO or
	// a device: anything but a regular file is an error wrapping
	// errNotRegular.
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	// WriteFile replaces the contents of the file at path with data, or
	// creates it (and its missing parent folders) with mode perm; an
	// existing file keeps its mode. A reader never sees a half-written
	// file.
	WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error
}

// nonblock opens without blocking on a FIFO.
const nonblock = syscall.O_NONBLOCK

// errNotRegular is wrapped by Files.Open for a FIFO, a device, a socket
// or a directory.
var errNotRegular = errors.New("not a regular file")

// diskFiles is Files on the local disk.
type diskFiles struct{}

func (diskFiles) Stat(_ context.Context, path string) (fs.FileInfo, error) {
	return os.Stat(path)
}

// Open opens with O_NONBLOCK, so that a FIFO put in place after a Stat
// cannot hang the call, then checks the type of what it opened.
func (diskFiles) Open(_ context.Context, path string) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w (%s)", quoteName(path), errNotRegular, fileKind(fi.Mode()))
	}
	return f, nil
}

// WriteFile writes a temporary file in the same folder, syncs it, gives
// it the mode of the file it replaces (perm for a new one) and renames it
// over path. A hard link to the old file keeps the old contents; a
// symlink at path is never replaced (path is already resolved).
func (diskFiles) WriteFile(_ context.Context, path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder %s: %w", quoteName(dir), err)
	}
	mode := perm
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: %w (%s)", quoteName(path), errNotRegular, fileKind(fi.Mode()))
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".harness-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", quoteName(tmp.Name()), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("set mode of %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", quoteName(path), err)
	}
	ok = true
	return nil
}

// fileKind names what a non-regular file is, for results.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// hostFiles is Files for one call: metadata from disk, text through the
// host (the editor's buffers when the session's editor serves files, else
// the disk as the host reads it). A host that offers no text files (minor
// < 2, or a test host) leaves everything to disk. Binary files and files
// over maxTrackedSize are read from disk: an editor holds text.
//
// So are files that are not UTF-8 (Latin-1, Shift-JIS, a stray byte):
// the host's text files are UTF-8 strings (the plugin protocol cannot
// carry other bytes, an editor's fs/read_text_file hands over decoded
// text and fs/write_text_file takes JSON text, where a stray byte becomes
// U+FFFD). Such a file is read from disk and written to disk, byte for
// byte, and so is new contents that are not UTF-8: an edit of a Latin-1
// file keeps every byte it did not replace. A file whose path is not
// UTF-8 is read and written on disk too: no request could name it.
type hostFiles struct {
	disk    Files
	host    pluginapi.HostServices
	session string
}

func (h hostFiles) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	return h.disk.Stat(ctx, path)
}

func (h hostFiles) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	f, err := h.disk.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(path) { // the host could not be told which file
		return f, nil
	}
	br := bufio.NewReaderSize(f, sniffBytes)
	head, _ := br.Peek(sniffBytes)
	if isBinary(head) {
		return readCloser{br, f}, nil
	}
	if fi, err := h.disk.Stat(ctx, path); err == nil && fi.Size() > maxTrackedSize {
		return readCloser{br, f}, nil
	}
	data, err := io.ReadAll(io.LimitReader(br, maxTrackedSize+1))
	f.Close()
	if err != nil {
		return nil, err
	}
	if len(data) > maxTrackedSize || !utf8.Valid(data) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	tf, err := pluginapi.ReadTextFile(ctx, h.host, pluginapi.ReadTextFileRequest{SessionID: h.session, Path: path})
	if errors.Is(err, pluginapi.ErrUnimplemented) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	if err != nil {
		return nil, err
	}
	return io.NopCloser(strings.NewReader(tf.Content)), nil
}

func (h hostFiles) WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error {
	if fi, err := h.disk.Stat(ctx, path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("write %s: %w (%s)", quoteName(path), errNotRegular, fileKind(fi.Mode()))
	}
	if !utf8.ValidString(path) || !utf8.Valid(data) || h.diskNotUTF8(ctx, path) {
		return h.disk.WriteFile(ctx, path, data, perm)
	}
	_, err := pluginapi.WriteTextFile(ctx, h.host, pluginapi.WriteTextFileRequest{SessionID: h.session, Path: path, Content: string(data)})
	if errors.Is(err, pluginapi.ErrUnimplemented) {
		return h.disk.WriteFile(ctx, path, data, perm)
	}
	return err
}

// diskNotUTF8 reports whether the text file at path is, on disk, not
// UTF-8 (false when it is missing, binary or too large to judge).
func (h hostFiles) diskNotUTF8(ctx context.Context, path string) bool {
	f, err := h.disk.Open(ctx, path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTrackedSize+1))
	if err != nil || len(data) > maxTrackedSize || isBinary(data[:min(len(data), sniffBytes)]) {
		return false
	}
	return !utf8.Valid(data)
}

// readCloser reads through r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }
