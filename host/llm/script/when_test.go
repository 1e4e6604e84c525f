package script

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

// play sends one request with a last user message text and returns the
// answer text or the error.
func play(p *Provider, last string) (string, error) {
	var b strings.Builder
	for c, err := range p.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: last}}}) {
		if err != nil {
			return b.String(), err
		}
		b.WriteString(c.Text)
	}
	return b.String(), nil
}

func TestWhenAnswersOutOfOrder(t *testing.T) {
	t.Parallel()
	p, err := Load(strings.NewReader(`{"text":"first"}
{"when":{"lastContains":"<transcript>"},"text":"summary"}
{"text":"second","expect":{"contains":["hello"],"maxTokens":20}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want, err string }{
		{"hi", "first", ""},
		{"<transcript> x", "summary", ""},
		{"hello", "second", ""},
		{"<transcript> again", "", "no response left for request 4"},
	} {
		got, err := play(p, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if p.Remaining() != 0 {
		t.Errorf("remaining %d", p.Remaining())
	}

	p, _ = Load(strings.NewReader(`{"text":"x","expect":{"maxTokens":5}}` + "\n" + `{"text":"y","expect":{"contains":["absent"]}}`))
	if _, err := play(p, strings.Repeat("long ", 20)); err == nil || !strings.Contains(err.Error(), "at most 5 tokens") {
		t.Errorf("maxTokens: %v", err)
	}
	if _, err := play(p, "present"); err == nil || !strings.Contains(err.Error(), `containing "absent"`) {
		t.Errorf("contains: %v", err)
	}
}
