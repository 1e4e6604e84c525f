package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// constError lets sentinel errors be constants.
type constError string

func (e constError) Error() string { return string(e) }

// Bounds of what is read from and shown of an error body.
const (
	maxErrorBody = 64 << 10
)

// serverError is what a server said about a failure, in any of the shapes
// compatible servers use:
//
//	{"error": {"message": "...", "type": "...", "code": "..." | 400}}  OpenAI, DeepSeek, llama.cpp, vLLM
//	{"error": "..."}                                                   ollama
//	{"object": "error", "message": "...", "type": "...", "code": 400} vLLM
//	{"detail": "..."}                                                  FastAPI servers
//	plain text
type serverError struct {
	message, typ, code string
	status             int // a numeric code, when the body carries one
}

func parseServerError(b []byte) serverError {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Detail  json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		text := strings.TrimSpace(string(b))
		if strings.HasPrefix(text, "<") { // an HTML error page says nothing useful
			text = ""
		}
		return serverError{message: text}
	}
	var se serverError
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	switch {
	case isSet(body.Error) && json.Unmarshal(body.Error, &se.message) == nil:
	case isSet(body.Error) && json.Unmarshal(body.Error, &obj) == nil:
		se.message, se.typ = obj.Message, obj.Type
		se.setCode(obj.Code)
	default:
		se.message, se.typ = body.Message, body.Type
		se.setCode(body.Code)
	}
	if se.message == "" && isSet(body.Detail) {
		if json.Unmarshal(body.Detail, &se.message) != nil {
			se.message = string(body.Detail)
		}
	}
	return se
}

func (se *serverError) setCode(raw json.RawMessage) {
	if !isSet(raw) {
		return
	}
	if json.Unmarshal(raw, &se.code) == nil {
		return
	}
	if n, err := strconv.Atoi(string(raw)); err == nil {
		se.code = string(raw)
		se.status = n
	}
}

// modelMissing reports whether the server says the model does not exist.
func (se serverError) modelMissing() bool {
	if se.code == "model_not_found" {
		return true
	}
	m := strings.ToLower(se.message)
	return strings.Contains(m, "model") &&
		(strings.Contains(m, "not found") || strings.Contains(m, "not exist") || strings.Contains(m, "unknown"))
}

// statusError turns a non-2xx response into an error; RetryAfter is the
// wait the server asked for before a retry.
func (p *Provider) statusError(resp *http.Response, model string) *llm.Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	se := parseServerError(b)
	msg := p.clean(se.message)
	s := resp.StatusCode
	e := &llm.Error{Provider: p.name, Status: s}
	wait := time.Duration(-1)
	notFound := func() {
		e.Kind = llm.ErrNotFound
		if se.modelMissing() {
			e.Message = fmt.Sprintf("model %q not found at %s; check --model", model, p.shownBase)
		} else {
			e.Message = fmt.Sprintf("no chat completions endpoint at %s; check --base-url", p.shownURL)
		}
	}
	switch {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Kind = llm.ErrAuth
		if p.apiKey == "" {
			e.Message = "the server requires an API key and none was set; " + p.keyHint
		} else {
			e.Message = "the API key was refused; " + p.keyHint
		}
	case s == http.StatusPaymentRequired:
		e.Kind = llm.ErrAuth
		e.Message = retry.Or(msg, "payment required") + "; check the account's balance"
	case s == http.StatusNotFound:
		notFound()
	case s == http.StatusTooManyRequests && (se.code == "insufficient_quota" || se.typ == "insufficient_quota"):
		e.Kind = llm.ErrAuth
		e.Message = "the account's quota is exhausted: " + retry.Or(msg, "insufficient quota")
	case s == http.StatusTooManyRequests:
		e.Kind = llm.ErrRateLimit
		e.Message = "rate limited: " + retry.Or(msg, "too many requests")
		wait = retry.After(resp.Header, time.Now())
	case s == http.StatusRequestTimeout || s == http.StatusConflict || s >= 500:
		e.Kind = llm.ErrServer
		e.Message = "server error: " + retry.Or(msg, http.StatusText(s))
		wait = retry.After(resp.Header, time.Now())
	case s >= 400 && se.modelMissing():
		notFound()
	default:
		e.Kind = llm.ErrBadRequest
		e.Message = "the request was refused: " + retry.Or(msg, retry.Or(http.StatusText(s), "unexpected status"))
	}
	e.RetryAfter = max(wait, 0)
	return e
}

// streamError turns an error object found in a stream into an error.
func (p *Provider) streamError(data []byte) *llm.Error {
	se := parseServerError(data)
	e := &llm.Error{Provider: p.name, Kind: llm.ErrServer,
		Message: "stream error: " + retry.Or(p.clean(se.message), "the server reported an unnamed error")}
	switch {
	case se.status >= 400 && se.status < 600:
		switch se.status {
		case http.StatusUnauthorized, http.StatusForbidden:
			e.Kind = llm.ErrAuth
		case http.StatusNotFound:
			e.Kind = llm.ErrNotFound
		case http.StatusTooManyRequests:
			e.Kind = llm.ErrRateLimit
		default:
			if se.status < 500 {
				e.Kind = llm.ErrBadRequest
			}
		}
	default:
		t := strings.ToLower(se.code + " " + se.typ)
		switch {
		case strings.Contains(t, "rate_limit"):
			e.Kind = llm.ErrRateLimit
		case strings.Contains(t, "auth") || strings.Contains(t, "api_key"):
			e.Kind = llm.ErrAuth
		case strings.Contains(t, "invalid_request") || strings.Contains(t, "context_length") || strings.Contains(t, "badrequest"):
			e.Kind = llm.ErrBadRequest
		}
	}
	return e
}

// sendError turns a failure to get a response into an error: ctx's own
// error if it ended, else ErrTransport.
func (p *Provider) sendError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	idle := errors.Is(err, retry.ErrIdle)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err // its URL may carry a key in the query
	}
	if idle {
		return &llm.Error{Kind: llm.ErrTransport, Provider: p.name, Err: err,
			Message: fmt.Sprintf("no response from %s within %s", p.shownURL, p.idleTimeout)}
	}
	return &llm.Error{Kind: llm.ErrTransport, Provider: p.name, Err: err,
		Message: fmt.Sprintf("cannot reach %s: %s", p.shownURL, p.clean(err.Error()))}
}

// readError turns a failure to read the answer into an error.
func (p *Provider) readError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, retry.ErrIdle) {
		return &llm.Error{Kind: llm.ErrTransport, Provider: p.name, Err: err,
			Message: fmt.Sprintf("no data from the server for %s", p.idleTimeout)}
	}
	if ce, ok := errors.AsType[constError](err); ok {
		return &llm.Error{Kind: llm.ErrMalformed, Provider: p.name, Err: err, Message: ce.Error()}
	}
	return &llm.Error{Kind: llm.ErrTransport, Provider: p.name, Err: err,
		Message: "connection lost while reading the answer: " + p.clean(err.Error())}
}

// clean makes a server's text fit a one-line message: whitespace
// collapsed, the API key masked, at most 300 runes.
func (p *Provider) clean(s string) string { return retry.Clean(s, p.apiKey) }
