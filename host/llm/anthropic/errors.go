package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// classify turns a failure of one attempt into an error: ctx's own error if
// it ended, else an *llm.Error with a one-line message.
func (p *Provider) classify(ctx context.Context, err error, model string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if ae, ok := errors.AsType[*sdk.Error](err); ok {
		return p.apiError(ae, model)
	}
	return retry.Failure(Name, p.shownBase, p.idle, err, p.apiKey)
}

// apiError classifies an error answer or error event by its type, else by
// its HTTP status.
func (p *Provider) apiError(ae *sdk.Error, model string) *llm.Error {
	msg := p.clean(ae.Message)
	s := ae.StatusCode
	e := &llm.Error{Provider: Name}
	if s >= 400 { // an error event in a 200 stream has no status of its own
		e.Status = s
	}
	wait := time.Duration(-1)
	if ae.Response != nil {
		wait = retry.After(ae.Response.Header, time.Now())
	}
	typ := ae.Type()
	switch {
	case typ == sdk.ErrorTypeAuthenticationError || typ == sdk.ErrorTypePermissionError ||
		s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = llm.ErrAuth
		e.Message = "the API key was refused; " + p.keyHint
		if typ == sdk.ErrorTypePermissionError || s == http.StatusForbidden {
			e.Message = "the API key lacks access: " + retry.Or(msg, "permission denied") + "; " + p.keyHint
		}
	case typ == sdk.ErrorTypeBillingError || s == http.StatusPaymentRequired:
		e.Kind = llm.ErrAuth
		e.Message = retry.Or(msg, "billing error") + "; check the account's credit"
	case typ == sdk.ErrorTypeNotFoundError || s == http.StatusNotFound:
		e.Kind = llm.ErrNotFound
		e.Message = fmt.Sprintf("model %q or endpoint %s not found: %s; check --model and --base-url", model, p.shownBase, retry.Or(msg, "not found"))
	case typ == sdk.ErrorTypeRateLimitError || s == http.StatusTooManyRequests:
		e.Kind = llm.ErrRateLimit
		e.Message = "rate limited: " + retry.Or(msg, "too many requests")
		e.RetryAfter = max(wait, 0)
	case typ == sdk.ErrorTypeOverloadedError || s == 529:
		e.Kind = llm.ErrServer
		e.Message = "overloaded: " + retry.Or(msg, "the API is overloaded") + "; try again later"
		e.RetryAfter = max(wait, 0)
	case typ == sdk.ErrorTypeAPIError || typ == sdk.ErrorTypeTimeoutError || s >= 500 || s == http.StatusRequestTimeout || s == http.StatusConflict:
		e.Kind = llm.ErrServer
		e.Message = "server error: " + retry.Or(msg, retry.Or(http.StatusText(s), "unnamed error"))
		e.RetryAfter = max(wait, 0)
	case tooLong(ae.Message):
		e.Kind = llm.ErrContextLength
		e.Message = "the conversation does not fit the model's context window: " + msg + "; start a new session or compact it"
	default:
		e.Kind = llm.ErrBadRequest
		e.Message = "the request was refused: " + retry.Or(msg, retry.Or(http.StatusText(s), "unexpected error"))
	}
	return e
}

// tooLong reports whether a 400's message says the prompt exceeds the
// context window ("prompt is too long: 210000 tokens > 200000 maximum").
func tooLong(m string) bool {
	m = strings.ToLower(m)
	return strings.Contains(m, "prompt is too long") || strings.Contains(m, "context window") ||
		strings.Contains(m, "context length")
}

// clean makes a server's text one line without the API key.
func (p *Provider) clean(s string) string { return retry.Clean(s, p.apiKey) }
