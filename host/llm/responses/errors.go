package responses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// classify turns a failure of one attempt into an error: ctx's own error if
// it ended, else an *llm.Error with a one-line message.
func (p *Provider) classify(ctx context.Context, err error, model string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if ae, ok := errors.AsType[*responses.Error](err); ok {
		return p.apiError(ae, model)
	}
	if se, ok := errors.AsType[*ssestream.StreamError](err); ok {
		var body struct {
			Error struct {
				Code    any    `json:"code"`
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &body)
		code := body.Error.Type
		if s, ok := body.Error.Code.(string); ok && s != "" {
			code = s
		}
		return p.eventError(&eventFailure{code: code, message: body.Error.Message})
	}
	return retry.Failure(Name, p.shownBase, p.idle, err, p.apiKey)
}

// apiError classifies an HTTP error answer.
func (p *Provider) apiError(ae *responses.Error, model string) *llm.Error {
	msg := p.clean(ae.Message)
	s := ae.StatusCode
	e := &llm.Error{Provider: Name, Status: s}
	wait := time.Duration(-1)
	if ae.Response != nil {
		wait = retry.After(ae.Response.Header, time.Now())
	}
	code := strings.ToLower(ae.Code + " " + ae.Type)
	switch {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = llm.ErrAuth
		e.Message = "the API key was refused; " + p.keyHint
	case strings.Contains(code, "insufficient_quota") || s == http.StatusPaymentRequired:
		e.Kind = llm.ErrAuth
		e.Message = "the account's quota is exhausted: " + retry.Or(msg, "insufficient quota")
	case s == http.StatusNotFound || strings.Contains(code, "model_not_found"):
		e.Kind = llm.ErrNotFound
		e.Message = fmt.Sprintf("model %q or endpoint %s not found: %s; check --model and --base-url", model, p.shownBase, retry.Or(msg, "not found"))
	case s == http.StatusTooManyRequests:
		e.Kind = llm.ErrRateLimit
		e.Message = "rate limited: " + retry.Or(msg, "too many requests")
		e.RetryAfter = max(wait, 0)
	case s >= 500 || s == http.StatusRequestTimeout || s == http.StatusConflict:
		e.Kind = llm.ErrServer
		e.Message = "server error: " + retry.Or(msg, http.StatusText(s))
		e.RetryAfter = max(wait, 0)
	case strings.Contains(code, "context_length") || strings.Contains(strings.ToLower(msg), "context window"):
		e.Kind = llm.ErrContextLength
		e.Message = "the conversation does not fit the model's context window: " + msg + "; start a new session or compact it"
	default:
		e.Kind = llm.ErrBadRequest
		e.Message = "the request was refused: " + retry.Or(msg, retry.Or(http.StatusText(s), "unexpected error"))
	}
	return e
}

// eventError classifies an error reported inside the stream by its code.
func (p *Provider) eventError(err error) error {
	ef, ok := errors.AsType[*eventFailure](err)
	if !ok {
		return err
	}
	msg := retry.Or(p.clean(ef.message), "the server reported an unnamed error")
	e := &llm.Error{Provider: Name, Kind: llm.ErrServer, Message: "stream error: " + msg}
	c := strings.ToLower(ef.code)
	switch {
	case strings.Contains(c, "rate_limit"):
		e.Kind = llm.ErrRateLimit
	case strings.Contains(c, "insufficient_quota"):
		e.Kind = llm.ErrAuth
	case strings.Contains(c, "context_length"):
		e.Kind = llm.ErrContextLength
		e.Message = "the conversation does not fit the model's context window: " + msg + "; start a new session or compact it"
	case c == "" || strings.Contains(c, "server_error") || strings.Contains(c, "overloaded"):
	case strings.HasPrefix(c, "invalid") || strings.Contains(c, "policy"):
		e.Kind = llm.ErrBadRequest
	}
	return e
}

// clean makes a server's text one line without the API key.
func (p *Provider) clean(s string) string { return retry.Clean(s, p.apiKey) }
