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
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/fsroot"
)

// Files is how the tools reach the contents of files: the one seam between
// the tools and where a file's text lives. A target is checked and opened
// (see target): every method reaches it beneath its root, following no
// symlink. diskFiles is the local disk; hostFiles (per call, see
// server.filesFor) reads and writes text through the host's ReadTextFile
// and WriteTextFile, which an editor serves under `harness acp`
// (fs/read_text_file, fs/write_text_file), so that reads see unsaved
// buffers and writes land in them.
//
// grep and glob search the tree on disk directly: an editor offers no
// search, and a search over buffers would miss every file not open.
type Files interface {
	// Stat describes the file t names, following no symlink: a symlink
	// there, or on its way, means it changed since it was resolved (an
	// error for the model), and so does, outside the project, a file
	// other than the one resolve found (t.id).
	Stat(ctx context.Context, t target) (fs.FileInfo, error)
	// Open opens the regular file t names for reading: the file want
	// describes (what Stat returned) when want is not nil, else an error.
	// It never blocks on a FIFO or a device: anything but a regular file
	// is an error wrapping errNotRegular.
	Open(ctx context.Context, t target, want fs.FileInfo) (io.ReadCloser, error)
	// WriteFile replaces the contents of the file t names with data, or
	// creates it (and its missing parent folders) with mode perm; an
	// existing file keeps its mode. A reader never sees a half-written
	// file.
	WriteFile(ctx context.Context, t target, data []byte, perm fs.FileMode) error
}

// nonblock opens without blocking on a FIFO.
const nonblock = syscall.O_NONBLOCK

// errNotRegular is wrapped by Files.Open for a FIFO, a device, a socket
// or a directory.
var errNotRegular = errors.New("not a regular file")

// diskFiles is Files on the local disk.
type diskFiles struct{}

func (diskFiles) Stat(_ context.Context, t target) (fs.FileInfo, error) {
	fi, err := fsroot.Lstat(t.root, t.name)
	switch {
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "stat", Path: t.Real, Err: fsroot.ErrSymlink}
	case t.id != nil && !os.SameFile(t.id, fi):
		return nil, &fs.PathError{Op: "stat", Path: t.Real, Err: fsroot.ErrChanged}
	}
	return fi, nil
}

// Open opens with O_NONBLOCK, so that a FIFO put in place after a Stat
// cannot hang the call, then checks what it opened.
func (diskFiles) Open(_ context.Context, t target, want fs.FileInfo) (io.ReadCloser, error) {
	f, fi, err := openDisk(t, want)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w (%s)", quoteName(t.Real), errNotRegular, fileKind(fi.Mode()))
	}
	return f, nil
}

// openDisk opens what t names (a file or a folder) for reading beneath
// its root, following no symlink: the file want describes when want is
// not nil, and outside the project the one resolve found.
func openDisk(t target, want fs.FileInfo) (*os.File, fs.FileInfo, error) {
	if want == nil {
		want = t.id
	}
	f, fi, err := fsroot.Open(t.root, t.name, want)
	if err != nil {
		return nil, nil, err
	}
	if t.id != nil && !os.SameFile(t.id, fi) {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: t.Real, Err: fsroot.ErrChanged}
	}
	return f, fi, nil
}

// openDir opens the folder t names beneath its root, following no
// symlink: the folder fi describes (what Stat returned).
func openDir(t target, fi fs.FileInfo) (*os.Root, error) {
	d, err := fsroot.Dir(t.root, t.name)
	if err != nil {
		return nil, err
	}
	got, err := d.Stat(".")
	if err != nil || !os.SameFile(fi, got) || (t.id != nil && !os.SameFile(t.id, got)) {
		d.Close()
		return nil, &fs.PathError{Op: "open", Path: t.Real, Err: fsroot.ErrChanged}
	}
	return d, nil
}

// plainDir turns f, a folder opened beneath an os.Root, into a plain
// file on a copy of its descriptor, and closes f: ReadDir of a file
// opened in a Root lstats every entry (os cannot stat them lazily there,
// by name), where a plain one reads names and types only — what a walk
// or a listing of a folder of millions can afford. The copy is the same
// open folder: nothing is looked up again by name.
func plainDir(f *os.File) (*os.File, error) {
	defer f.Close()
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(int(f.Fd()))
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", quoteName(f.Name()), err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// WriteFile writes a temporary file in the same folder, syncs it, gives
// it the mode of the file it replaces (perm for a new one) and renames it
// over the name, beneath t's root (fsroot.WriteFile). A hard link to the
// old file keeps the old contents; a symlink is never written through.
func (diskFiles) WriteFile(_ context.Context, t target, data []byte, perm fs.FileMode) error {
	err := fsroot.WriteFile(t.root, t.name, data, perm)
	if errors.Is(err, fsroot.ErrNotRegular) {
		return fmt.Errorf("write %s: %w", quoteName(t.Real), errNotRegular)
	}
	return err
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

func (h hostFiles) Stat(ctx context.Context, t target) (fs.FileInfo, error) {
	return h.disk.Stat(ctx, t)
}

// Open reads the file from disk first (the file checked, opened beneath
// its root), then asks the host for its text: when the editor serves it,
// that text (its buffer); when the host read the disk, the bytes the
// plugin read itself, so that what it shows is the file it opened.
func (h hostFiles) Open(ctx context.Context, t target, want fs.FileInfo) (io.ReadCloser, error) {
	f, err := h.disk.Open(ctx, t, want)
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(t.Real) { // the host could not be told which file
		return f, nil
	}
	br := bufio.NewReaderSize(f, sniffBytes)
	head, _ := br.Peek(sniffBytes)
	if isBinary(head) {
		return readCloser{br, f}, nil
	}
	if want != nil && want.Size() > maxTrackedSize {
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
	tf, err := pluginapi.ReadTextFile(ctx, h.host, pluginapi.ReadTextFileRequest{SessionID: h.session, Path: t.Real})
	if errors.Is(err, pluginapi.ErrUnimplemented) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	if err != nil {
		return nil, err
	}
	if tf.Source != pluginapi.SourceEditor {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	return io.NopCloser(strings.NewReader(tf.Content)), nil
}

func (h hostFiles) WriteFile(ctx context.Context, t target, data []byte, perm fs.FileMode) error {
	if fi, err := h.disk.Stat(ctx, t); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("write %s: %w (%s)", quoteName(t.Real), errNotRegular, fileKind(fi.Mode()))
	}
	if !utf8.ValidString(t.Real) || !utf8.Valid(data) || h.diskNotUTF8(ctx, t) {
		return h.disk.WriteFile(ctx, t, data, perm)
	}
	_, err := pluginapi.WriteTextFile(ctx, h.host, pluginapi.WriteTextFileRequest{SessionID: h.session, Path: t.Real, Content: string(data)})
	if errors.Is(err, pluginapi.ErrUnimplemented) {
		return h.disk.WriteFile(ctx, t, data, perm)
	}
	return err
}

// diskNotUTF8 reports whether the text file t is, on disk, not UTF-8
// (false when it is missing, binary or too large to judge).
func (h hostFiles) diskNotUTF8(ctx context.Context, t target) bool {
	fi, err := h.disk.Stat(ctx, t)
	if err != nil {
		return false
	}
	f, err := h.disk.Open(ctx, t, fi)
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
