package llm

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// BytesPerToken is the estimate the host counts tokens with where the
// provider has not counted them: one token per BytesPerToken bytes of UTF-8
// text, plus MessageOverheadTokens per message (role and framing).
//
// How far off it can be: BPE tokenizers (DeepSeek's, OpenAI's, Anthropic's)
// average about 4 bytes per token on English prose and 3–3.5 on source code
// and JSON, so on those the estimate counts 0–35 % too many tokens — the safe
// side. On CJK text (3 bytes a character, 1–1.5 characters a token) it is
// about right; on long runs of digits, base64 or other dense noise a token can
// be 1–2 bytes, so it can count up to 3 times too few. The threshold below
// the window and the overflow retry (compact once on the provider's "too
// long") cover that.
const BytesPerToken = 3

// MessageOverheadTokens is added per message (and per tool spec) by
// [EstimateRequest].
const MessageOverheadTokens = 4

// EstimateText estimates the tokens of s.
func EstimateText(s string) int { return (len(s) + BytesPerToken - 1) / BytesPerToken }

// EstimateMessage estimates the tokens one message takes in a request.
func EstimateMessage(m Message) int {
	n := MessageOverheadTokens + EstimateText(m.Text) + EstimateText(m.Reasoning) + EstimateText(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += MessageOverheadTokens + EstimateText(c.ID) + EstimateText(c.Name) + EstimateText(c.Arguments)
	}
	return n
}

// EstimateMessages estimates the tokens of msgs.
func EstimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateMessage(m)
	}
	return n
}

// EstimateTools estimates the tokens the tool specs take in a request.
func EstimateTools(tools []ToolSpec) int {
	n := 0
	for _, t := range tools {
		n += MessageOverheadTokens + EstimateText(t.Name) + EstimateText(t.Description) + EstimateText(string(t.Parameters))
	}
	return n
}

// EstimateRequest estimates the input tokens of a whole request: system
// prompt, messages and tools.
func EstimateRequest(r Request) int {
	return MessageOverheadTokens + EstimateText(r.System) + EstimateMessages(r.Messages) + EstimateTools(r.Tools)
}

// Bounds of [Scale]: a provider's count is believed between a quarter and
// three times the estimate (12 and 1 bytes a token), and only for
// requests the estimate puts at MinScaleTokens or more, where the framing
// the estimate cannot know is small beside the text.
const (
	MinScale       = 0.25
	MaxScale       = 3
	MinScaleTokens = 256
)

// Scale is the correction a provider's count brings to the estimate: the
// tokens it reported for a request over the estimate of the same request,
// bounded to [MinScale, MaxScale]; ok is false when the request is too
// small to tell (under MinScaleTokens estimated) or reported is not
// positive. A session multiplies its later estimates by it, so that a
// tokenizer denser than BytesPerToken does not make a small window look
// full.
func Scale(estimated, reported int) (scale float64, ok bool) {
	if estimated < MinScaleTokens || reported <= 0 {
		return 1, false
	}
	return min(max(float64(reported)/float64(estimated), MinScale), MaxScale), true
}

// Scaled is n estimated tokens corrected by scale (0 counts as 1),
// rounded up.
func Scaled(n int, scale float64) int {
	if scale <= 0 || scale == 1 {
		return n
	}
	return int(math.Ceil(float64(n) * scale))
}

// The wordings providers use when a request is longer than the model's
// context: OpenAI and DeepSeek ("This model's maximum context length is 8192
// tokens. However, you requested 9000 tokens …"), Anthropic ("prompt is too
// long: 208000 tokens > 200000 maximum"), and the codes and phrasings of
// OpenAI-compatible servers.
var (
	openAILimit    = regexp.MustCompile(`(?i)maximum context length is (\d+) tokens`)
	anthropicLimit = regexp.MustCompile(`(?i)prompt is too long:\s*(\d+) tokens\s*>\s*(\d+)(?: tokens)? maximum`)
	overflowWords  = []string{"maximum context length", "context_length_exceeded", "context length exceeded",
		"prompt is too long", "exceeds the context window", "context window exceeded", "input is too long"}
)

// ContextOverflow reports whether err is a provider's refusal of a request
// that is longer than the model's context window, and the window it states
// (0 when it states none).
func ContextOverflow(err error) (limit int, ok bool) {
	if err == nil {
		return 0, false
	}
	msg := err.Error()
	var e *Error
	if errors.As(err, &e) {
		msg = e.Message + " " + msg
	}
	if m := openAILimit.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, true
	}
	if m := anthropicLimit.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[2])
		return n, true
	}
	lower := strings.ToLower(msg)
	for _, w := range overflowWords {
		if strings.Contains(lower, w) {
			return 0, true
		}
	}
	return 0, false
}
