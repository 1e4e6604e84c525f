package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/host/atomicfile"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/ownership"
)

// Blobs: the bytes of a session's images are kept out of its log, each in
// a file named by its content hash in a folder next to the log:
// <id>.blobs/<sha256 hex> beside <id>.jsonl (folder 0700, files 0600). A
// blob is written (and synced) before the event that names it is appended,
// so a logged hash always has its file; the same bytes are stored once. A
// blob file another user could have written is not read (package
// ownership).

// blobDir is the folder of session id's blobs; "" when the store's
// backend is not a directory of files.
func (st *Store) blobDir(id string) string {
	if j, ok := st.backend().(JSONL); ok && j.Dir != "" {
		return filepath.Join(j.Dir, id+".blobs")
	}
	return ""
}

// blobSource is a session value that reads (and writes) session id's
// blobs in st, whatever keeps them, for code that holds no open session
// of id: a fork's parent, an import's target.
func (st *Store) blobSource(id string) *Session {
	return &Session{header: eventlog.Header{ID: id}, blobs: st.blobDir(id), blobBackend: st.blobBackend()}
}

// BlobsBeside is the folder that holds the blobs of the JSONL log file
// path, as a JSONL store lays them out: <name>.blobs beside <name>.jsonl
// (the extension .jsonl, if any, dropped). Export's blobs go there, and
// Import takes them from there.
func BlobsBeside(path string) string {
	return strings.TrimSuffix(path, ".jsonl") + ".blobs"
}

// blobsOf returns the blob hashes an event names: a prompt's or a tool
// result's images; valid hashes only.
func blobsOf(p event.Payload) []string {
	var cs []event.Content
	switch p := p.(type) {
	case event.UserMessage:
		cs = p.Content
	case event.ToolResult:
		cs = p.Images
	}
	var hashes []string
	for _, c := range cs {
		if c.Type == event.ContentImage && validHash(c.Blob) {
			hashes = append(hashes, c.Blob)
		}
	}
	return hashes
}

// blobBackend is the store's backend when it keeps blobs itself.
func (st *Store) blobBackend() BlobBackend {
	b, _ := st.backend().(BlobBackend)
	return b
}

// blobDir is the folder of s's blobs; "" when it has none.
func (s *Session) blobDir() string { return s.blobs }

// PutBlob stores data in s's blob folder and returns its hash (lowercase
// hex SHA-256), the name to log.
func (s *Session) PutBlob(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	dir := s.blobDir()
	if dir == "" && s.blobBackend != nil {
		if err := s.blobBackend.PutBlob(s.ID(), hash, data); err != nil {
			return "", fmt.Errorf("store a blob: %w", err)
		}
		return hash, nil
	}
	if dir == "" {
		return "", errors.New("store a blob: this session's store keeps no blobs")
	}
	path := filepath.Join(dir, hash)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return hash, nil // already there
	}
	if err := ownership.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("store a blob: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("store a blob: %w", err)
	}
	return hash, nil
}

// Blob returns the bytes of the blob hash of s. A hash that is not 64 hex
// digits is refused (it never names a path outside the folder); a missing
// blob is an error matching fs.ErrNotExist.
func (s *Session) Blob(hash string) ([]byte, error) {
	if !validHash(hash) {
		return nil, fmt.Errorf("read blob %q: not a SHA-256 hex digest", hash)
	}
	dir := s.blobDir()
	if dir == "" && s.blobBackend != nil {
		b, err := s.blobBackend.Blob(s.ID(), hash)
		if err != nil {
			return nil, fmt.Errorf("read blob %s: %w", hash, err)
		}
		return b, nil
	}
	if dir == "" {
		return nil, fmt.Errorf("read blob %s: %w", hash, fs.ErrNotExist)
	}
	b, err := ownership.ReadFile("session blob", filepath.Join(dir, hash))
	var untrusted *ownership.Error
	if errors.As(err, &untrusted) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", hash, err)
	}
	return b, nil
}

// validHash reports whether h is a lowercase hex SHA-256.
func validHash(h string) bool {
	if len(h) != sha256.Size*2 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// images loads the images of a user message's content, or of a tool
// result, from the blob folder, for the model's history. An image whose
// blob cannot be read is left out; the message's text names every image
// anyway ([image: …]).
func (s *Session) images(content []event.Content) []llm.Image {
	var out []llm.Image
	for _, c := range content {
		if c.Type != event.ContentImage {
			continue
		}
		data, err := s.Blob(c.Blob)
		if err != nil {
			continue
		}
		out = append(out, llm.Image{MimeType: c.MimeType, Data: data})
	}
	return out
}
