// Package logtest reads session logs the way the end-to-end tests of
// engine and cmd/harness check them: as generic JSON objects, one per
// line, so that a test asserts on the file a user would read with jq, not
// on the host's own decoder. It also has a buffer that a logger's
// goroutines may write while a test reads it.
//
// It is for tests only; nothing in a binary imports it.
package logtest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ReadLog returns the events of the only root session in stateDir (child
// sessions of subagents aside), as generic JSON objects, and its path.
func ReadLog(t testing.TB, stateDir string) ([]map[string]any, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(stateDir, "sessions", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	var rootEvents []map[string]any
	for _, file := range files {
		evs := ReadJSONL(t, file)
		if _, child := evs[0]["parentSession"]; !child {
			roots, rootEvents = append(roots, file), evs
		}
	}
	if len(roots) != 1 {
		t.Fatalf("want one root session in %s, got %v", stateDir, roots)
	}
	return rootEvents, roots[0]
}

// ReadJSONL returns every line of the JSONL file at path as a JSON
// object; a line that is not one fails the test.
func ReadJSONL(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		evs = append(evs, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return evs
}

// Types returns the "type" of each event, in order.
func Types(evs []map[string]any) []string {
	var ts []string
	for _, e := range evs {
		ts = append(ts, e["type"].(string))
	}
	return ts
}

// Buffer collects what is written to it; writers and readers may run in
// different goroutines.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
