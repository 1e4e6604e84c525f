package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// TestBlobs: an image's bytes go to <id>.blobs/<sha256> (0600), the log
// names the hash only, and the model's history — live and after a reopen —
// carries the image.
func TestBlobs(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "img")
	png := []byte("\x89PNG fake bytes")
	hash, err := s.PutBlob(png)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.PutBlob(png); err != nil || again != hash {
		t.Fatalf("the same bytes again: %q, %v", again, err)
	}
	path := filepath.Join(st.Dir, "img.blobs", hash)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("blob file %s: %v %v", path, fi, err)
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir == nil || dir.Mode().Perm() != 0o700 {
		t.Errorf("blob folder mode: %v", dir)
	}
	ps := simpleTurn(1, "")
	ps[1] = event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "what is this?"}, {Type: event.ContentImage, MimeType: "image/png", Blob: hash}}}
	mustAppend(t, s, ps...)
	want := []llm.Image{{MimeType: "image/png", Data: png}}
	check := func(s *Session, when string) {
		t.Helper()
		m := s.Messages()[0]
		if m.Text != "what is this?\n[image: image/png]" || len(m.Images) != 1 || string(m.Images[0].Data) != string(want[0].Data) || m.Images[0].MimeType != "image/png" {
			t.Errorf("%s: the model's message is %+v", when, m)
		}
	}
	check(s, "live")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(st.Dir, "img.jsonl"))
	if err != nil || strings.Contains(string(raw), "PNG") || !strings.Contains(string(raw), hash) {
		t.Errorf("the log holds the bytes or misses the hash (%v):\n%s", err, raw)
	}
	s = open(t, st, "img")
	defer s.Close()
	check(s, "reopened")

	for _, bad := range []string{"../img.jsonl", strings.Repeat("A", 64), hash[:63], "/etc/passwd"} {
		if _, err := s.Blob(bad); err == nil {
			t.Errorf("Blob(%q) read something", bad)
		}
	}
	if _, err := s.Blob(strings.Repeat("0", 64)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing blob: %v", err)
	}
}
