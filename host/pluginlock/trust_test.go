package pluginlock

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrust records trust in a dir without a lock (the lock written pins
// nothing), reads it back, keeps it when the dir is pinned, and refuses
// a lock whose trust record is malformed.
func TestTrust(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	sum, err := HashFile(filepath.Join(dir, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Trusted(dir, "p"); ok || err != nil {
		t.Fatalf("no lock: trusted %v, %v", ok, err)
	}
	want := Trust{SHA256: strings.ToUpper(sum), Capabilities: Capabilities{Network: true, Write: []string{"cwd"}}}
	if err := SetTrust(dir, "p", want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := Trusted(dir, "p")
	if !ok || err != nil || got.SHA256 != sum || !got.Capabilities.Network || len(got.Capabilities.Write) != 1 {
		t.Fatalf("Trusted = %+v %v %v, want %+v (sum lower-cased)", got, ok, err, want)
	}
	// Trusting pins nothing: an unnamed plugin still runs.
	if err := Verify(dir, "other", strings.Repeat("0", 64)); err != nil {
		t.Errorf("a trust-only lock refused an unpinned plugin: %v", err)
	}
	if _, err := PinDir(dir, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Trusted(dir, "p"); !ok {
		t.Error("pinning dropped the trust record")
	}
	if err := Verify(dir, "other", strings.Repeat("0", 64)); err == nil {
		t.Error("a pinned dir let an unpinned plugin run")
	}
	lock, _ := Path(dir)
	for _, bad := range []string{
		`{"version":1,"plugins":{},"trusted":{"p":{"sha256":"xyz"}}}`,
		`{"version":1,"plugins":{},"trusted":{"../p":{"sha256":"` + sum + `"}}}`,
	} {
		if err := os.WriteFile(lock, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Trusted(dir, "p"); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}
