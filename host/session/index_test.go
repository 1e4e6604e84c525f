package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/harness-dev/harness/host/event"
)

// Every field of a Summary but Err survives the index's JSON shape: a
// field added to Summary fails here until IndexedSummary carries it.
func TestIndexedRoundTrip(t *testing.T) {
	t.Parallel()
	full := Summary{ID: "s.1", Cwd: "/src", Parent: "p", ForkSeq: 4,
		CreatedAt: t0, UpdatedAt: t0.Add(time.Minute), FirstPrompt: "hello", Turns: 2,
		Sandbox: event.SandboxPolicy{Mode: "workspace-write", Network: "on", AddDirs: []string{"/a"}, DenyRead: []string{"/b"}, PidsLimit: 9, By: event.ByHost},
		Usage: map[Model]event.Usage{
			{Provider: "p1", Name: "m1"}: {InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, ReasoningTokens: 4, CacheWriteTokens: 5},
			{}:                           {InputTokens: 7},
		},
	}
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.Name != "Err" && v.Field(i).IsZero() {
			t.Fatalf("the fixture leaves Summary.%s zero", f.Name)
		}
	}
	for _, s := range []Summary{full, {ID: "bare", Cwd: "/", CreatedAt: t0, UpdatedAt: t0}} {
		data, err := json.Marshal(Indexed(s, 17))
		if err != nil {
			t.Fatal(err)
		}
		var x IndexedSummary
		if err := json.Unmarshal(data, &x); err != nil {
			t.Fatal(err)
		}
		if x.Next != 17 {
			t.Errorf("%s: Next %d, want 17", s.ID, x.Next)
		}
		if d := cmp.Diff(s, x.Summary(s.ID)); d != "" {
			t.Errorf("%s: round trip (-want +got):\n%s\n%s", s.ID, d, data)
		}
	}
}

// An entry a writer could not have made is not used.
func TestIndexedPlausible(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		x    IndexedSummary
		want bool
	}{
		{IndexedSummary{Next: 3, Turns: 1, FirstPrompt: "one line"}, true},
		{IndexedSummary{}, true},
		{IndexedSummary{Next: -1}, false},
		{IndexedSummary{Turns: -2}, false},
		{IndexedSummary{FirstPrompt: "two\nlines"}, false},
		{IndexedSummary{FirstPrompt: strings.Repeat("é", firstPromptRunes)}, true},
		{IndexedSummary{FirstPrompt: strings.Repeat("é", firstPromptRunes+1)}, false},
		{IndexedSummary{FirstPrompt: " padded"}, false},
	} {
		if got := c.x.plausible(); got != c.want {
			t.Errorf("plausible(%+v) = %v, want %v", c.x, got, c.want)
		}
	}
}
