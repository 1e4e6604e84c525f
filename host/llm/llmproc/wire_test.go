package llmproc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/llm"
)

// TestMessageRoundTrip: what the process encodes, the host decodes to the
// same chunk or the same typed error.
func TestMessageRoundTrip(t *testing.T) {
	blk := llm.Block{Provider: "anthropic", Type: "thinking", Model: "m", Text: "a\u2028b \"q\" \x00", Signature: "EqQB+/=="}
	for _, c := range []llm.Chunk{
		{Kind: llm.ChunkText, Text: "héllo\n"},
		{Kind: llm.ChunkBlock, Block: blk},
		{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: 2, ID: "t", Name: "n", Arguments: `{"a":`}},
		{Kind: llm.ChunkUsage, Usage: llm.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, ReasoningTokens: 4, CacheWriteTokens: 5}},
		{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls},
	} {
		got, serr, err := decodeMessage(encodeMessage(&wireMessage{Chunk: &c}))
		if err != nil || serr != nil || got != c {
			t.Errorf("%+v came back as %+v, %v, %v", c, got, serr, err)
		}
	}
	want := &llm.Error{Kind: llm.ErrRateLimit, Provider: "anthropic", Status: 429, Message: "slow down", RetryAfter: 1500 * time.Millisecond, Err: errors.New("cause")}
	_, serr, err := decodeMessage(encodeMessage(errorMessage(want)))
	le, ok := errors.AsType[*llm.Error](serr)
	if err != nil || !ok || le.Kind != want.Kind || le.Status != want.Status || le.Message != want.Message || le.RetryAfter != want.RetryAfter || le.Provider != want.Provider {
		t.Errorf("error came back as %#v, %v", serr, err)
	}
	_, serr, _ = decodeMessage(encodeMessage(errorMessage(errors.New("plain"))))
	if _, typed := errors.AsType[*llm.Error](serr); typed || serr == nil || serr.Error() != "plain" {
		t.Errorf("plain error came back as %#v", serr)
	}
}

// TestDecodeRefuses: what the host does not accept from the process.
func TestDecodeRefuses(t *testing.T) {
	for _, in := range []string{
		``, `null`, `{}`, `[]`, `{"chunk":null}`,
		`{"chunk":{"Kind":1},"error":{"kind":"auth","message":"x"}}`,
		`{"chunk":{"Kind":0}}`, `{"chunk":{"Kind":99}}`, `{"chunk":{"Kind":1,"Text":5}}`,
		`{"error":{"kind":"nope","message":"x"}}`,
		`{"error":{"kind":"auth","status":-1,"message":"x"}}`,
		`{"error":{"kind":"rate_limit","retryAfter":-5,"message":"x"}}`,
		`{"error":{"kind":"rate_limit","retryAfter":9223372036854775807,"message":"x"}}`,
	} {
		if c, serr, err := decodeMessage([]byte(in)); err == nil {
			t.Errorf("%s decoded as %+v, %v", in, c, serr)
		}
	}
	for _, in := range []string{``, `{}`, `{"config":{}}`, `{"config":{"provider":"anthropic"},"request":5}`} {
		if _, err := decodeRequest([]byte(in)); err == nil {
			t.Errorf("request %s decoded", in)
		}
	}
}

// FuzzDecodeMessage: the decoder never panics, and yields exactly one of
// a chunk of a known kind, a stream error, or a decode error.
func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(`{"chunk":{"Kind":1,"Text":"hi"}}`))
	f.Add([]byte(`{"error":{"kind":"context_length","status":400,"message":"too long"}}`))
	f.Add([]byte(`{"error":{"message":"plain"}}`))
	f.Add([]byte(`{"chunk":{"Kind":6,"Block":{"Provider":"anthropic","Signature":"x"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, serr, err := decodeMessage(b)
		switch {
		case err != nil:
			if serr != nil || c != (llm.Chunk{}) || strings.Contains(err.Error(), "\n") {
				t.Errorf("decode error %v with %+v, %v", err, c, serr)
			}
		case serr != nil:
			if c != (llm.Chunk{}) {
				t.Errorf("stream error %v with chunk %+v", serr, c)
			}
			if le, ok := errors.AsType[*llm.Error](serr); ok && (le.RetryAfter < 0 || le.RetryAfter > maxRetryAfter || le.Status < 0) {
				t.Errorf("out of range: %+v", le)
			}
		default:
			if c.Kind < llm.ChunkText || c.Kind > llm.ChunkBlock {
				t.Errorf("chunk of unknown kind %d", c.Kind)
			}
		}
	})
}

// FuzzDecodeRequest: the process's request decoder never panics and
// never accepts a request without a provider.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"config":{"provider":"anthropic","apiKey":"k"},"request":{"Model":"m","Messages":[{"Role":"user","Text":"hi"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRequest(b)
		if err == nil && r.Config.Provider == "" {
			t.Error("accepted a request without a provider")
		}
	})
}
