package llm

import (
	"errors"
	"fmt"
	"testing"
)

func TestContextOverflow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err   error
		limit int
		ok    bool
	}{
		{&Error{Kind: ErrBadRequest, Provider: "deepseek", Status: 400, Message: "This model's maximum context length is 65536 tokens. However, you requested 70210 tokens (70210 in the messages, 0 in the completion)."}, 65536, true},
		{fmt.Errorf("step: %w", &Error{Provider: "openai", Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens."}), 8192, true},
		{&Error{Provider: "anthropic", Message: "prompt is too long: 208310 tokens > 200000 maximum"}, 200000, true},
		{errors.New("openai: context_length_exceeded"), 0, true},
		{errors.New("Input is too long for requested model"), 0, true},
		{&Error{Provider: "openai", Message: "rate limited"}, 0, false},
		{errors.New("max tokens 8192 reached"), 0, false},
		{nil, 0, false},
	} {
		limit, ok := ContextOverflow(tc.err)
		if limit != tc.limit || ok != tc.ok {
			t.Errorf("ContextOverflow(%v) = %d, %v; want %d, %v", tc.err, limit, ok, tc.limit, tc.ok)
		}
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	if got := EstimateText("abcdefg"); got != 3 {
		t.Errorf("EstimateText(7 bytes) = %d, want 3", got)
	}
	r := Request{System: "abc", Messages: []Message{{Role: RoleUser, Text: "abcdef"}}, Tools: []ToolSpec{{Name: "t", Parameters: []byte(`{}`)}}}
	// 4 + 1 (system) + 4+2 (message) + 4+1+0+1 (tool)
	if got := EstimateRequest(r); got != 17 {
		t.Errorf("EstimateRequest = %d, want 17", got)
	}
}

// TestScale: the provider's count over the estimate, bounded, and only
// for requests large enough to tell; Scaled rounds up.
func TestScale(t *testing.T) {
	cases := []struct {
		estimated, reported int
		want                float64
		ok                  bool
	}{
		{1000, 750, 0.75, true},
		{1000, 1500, 1.5, true},
		{1000, 100, MinScale, true},
		{1000, 9000, MaxScale, true},
		{MinScaleTokens - 1, 100, 1, false},
		{1000, 0, 1, false},
	}
	for _, c := range cases {
		if got, ok := Scale(c.estimated, c.reported); got != c.want || ok != c.ok {
			t.Errorf("Scale(%d, %d) = %v, %v; want %v, %v", c.estimated, c.reported, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		n     int
		scale float64
		want  int
	}{{100, 0, 100}, {100, 1, 100}, {100, 0.75, 75}, {101, 0.5, 51}, {3, 1.5, 5}} {
		if got := Scaled(c.n, c.scale); got != c.want {
			t.Errorf("Scaled(%d, %v) = %d, want %d", c.n, c.scale, got, c.want)
		}
	}
}
