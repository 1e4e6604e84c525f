package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
)

// TestSessionsMoveImages moves a session with an image from a state
// folder's files to a NATS store and back, as a user does with
// `harness sessions export` and `import`: the image goes in a folder
// beside the exported file and comes back with the same bytes on each
// store; the logs are the same events.
func TestSessionsMoveImages(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t, natstest.Config{Dir: t.TempDir(), NoSync: true})
	files := t.TempDir()
	img := []byte("\x89PNG image bytes of the session")

	s, err := (&session.Store{Dir: filepath.Join(files, "sessions")}).Create(session.CreateOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := s.PutBlob(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []event.Payload{
		event.TurnStart{Turn: 1},
		event.UserMessage{Content: []event.Content{{Type: event.ContentText, Text: "what is this?"}, {Type: event.ContentImage, MimeType: "image/png", Blob: hash}}},
		event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted},
	} {
		if _, err := s.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	id := s.ID()
	s.Close()

	out := t.TempDir()
	move := func(env map[string]string, args ...string) string {
		t.Helper()
		code, stdout, errOut := harness(t, env, args...)
		if code != 0 {
			t.Fatalf("harness %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, errOut)
		}
		return errOut
	}
	onFiles := map[string]string{"HARNESS_STATE_DIR": files}
	onNATS := map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_STORE": srv.URL()}

	first := filepath.Join(out, "first.jsonl")
	if say := move(onFiles, "sessions", "export", id, first); !strings.Contains(say, "and its 1 image(s) to "+filepath.Join(out, "first.blobs")) {
		t.Errorf("export does not name the images' folder:\n%s", say)
	}
	if got, err := os.ReadFile(filepath.Join(out, "first.blobs", hash)); err != nil || !bytes.Equal(got, img) {
		t.Fatalf("the exported image: %q, %v", got, err)
	}
	move(onNATS, "sessions", "import", first)

	b, err := natsstore.Connect(context.Background(), srv.URL(), natsstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ns, err := (&session.Store{Backend: b}).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ns.Blob(hash); err != nil || !bytes.Equal(got, img) {
		t.Errorf("the image on the NATS store: %q, %v", got, err)
	}
	ns.Close()

	// And back out of NATS: the same log, the same image.
	back := filepath.Join(out, "back.jsonl")
	move(onNATS, "sessions", "export", id, back)
	if got, err := os.ReadFile(filepath.Join(out, "back.blobs", hash)); err != nil || !bytes.Equal(got, img) {
		t.Errorf("the image exported from NATS: %q, %v", got, err)
	}
	a, _ := os.ReadFile(first)
	z, _ := os.ReadFile(back)
	if !bytes.Equal(a, z) {
		t.Errorf("the log changed on its way through NATS:\n%s\n%s", a, z)
	}
}
