package natsstore

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
)

// FuzzDecodeSummary: whatever an index value holds, decodeSummary returns
// an error or a summary that encodes and decodes to itself.
func FuzzDecodeSummary(f *testing.F) {
	good, _ := json.Marshal(session.Indexed(session.Summary{ID: "s", Cwd: "/w", Turns: 2, FirstPrompt: "hi",
		CreatedAt: time.Date(2026, 12, 3, 7, 0, 0, 5, time.UTC), UpdatedAt: time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC),
		Sandbox: event.SandboxPolicy{Mode: "read-only", Network: "off", AddDirs: []string{"/x"}},
		Usage:   map[session.Model]event.Usage{{Provider: "p", Name: "m"}: {InputTokens: 3}}}, 9))
	for _, seed := range []string{string(good), `{}`, `{"next":1}{}`, `{"next":1} x`, `{"usage":[{"usage":{}}]}`,
		`{"createdAt":"2026-12-03T07:00:00+05:30"}`, `null`, `[]`, `{"next":1.5}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodeSummary(data)
		if err != nil {
			return
		}
		once, err := json.Marshal(x)
		if err != nil {
			t.Fatalf("encode %+v: %v", x, err)
		}
		y, err := decodeSummary(once)
		if err != nil {
			t.Fatalf("decode %s: %v", once, err)
		}
		twice, _ := json.Marshal(y)
		if !bytes.Equal(once, twice) {
			t.Fatalf("round trip:\n%s\n%s", once, twice)
		}
	})
}
