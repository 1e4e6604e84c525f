package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// The DeepSeek preset.
const (
	DeepSeekName    = "deepseek"
	DeepSeekBaseURL = "https://api.deepseek.com"
	DeepSeekModel   = "deepseek-chat"
	DeepSeekKeyEnv  = "DEEPSEEK_API_KEY"
)

// Defaults of [Config].
const (
	DefaultName        = "openai"
	DefaultMaxRetries  = retry.DefaultMax
	DefaultRetryBase   = retry.DefaultBase
	DefaultRetryMax    = retry.DefaultCap
	DefaultIdleTimeout = 5 * time.Minute
)

// Config configures a [Provider]. Only BaseURL is required.
type Config struct {
	// Name names the provider in errors and logs, e.g. "deepseek".
	// Default "openai".
	Name string
	// BaseURL is the API root, e.g. https://api.deepseek.com or
	// http://localhost:11434/v1. Requests go to BaseURL + "/chat/completions".
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer <key>". Local
	// servers need none.
	APIKey string
	// KeyHint ends the message of an authentication error and tells the
	// user where the key comes from, e.g. "check DEEPSEEK_API_KEY".
	// Default "check the API key".
	KeyHint string
	// Model is used when a request names none.
	Model string
	// HTTPClient sends the requests. Default http.DefaultClient. Its
	// Timeout, if any, bounds a whole stream; prefer IdleTimeout.
	HTTPClient *http.Client
	// Header holds extra request headers (e.g. for a gateway). It cannot
	// override Authorization when APIKey is set.
	Header http.Header
	// Logger receives retries at Warn. Default: discard.
	Logger hclog.Logger
	// MaxRetries bounds the retries of one request. 0 means
	// DefaultMaxRetries; a negative value disables retries.
	MaxRetries int
	// RetryBase is the first backoff delay, doubled at each retry up to
	// RetryMax; a server's Retry-After is honoured up to RetryMax.
	// Defaults DefaultRetryBase and DefaultRetryMax.
	RetryBase, RetryMax time.Duration
	// IdleTimeout ends a request that receives no bytes for that long,
	// waiting for the response headers included, as an ErrTransport error.
	// 0 means DefaultIdleTimeout; a negative value disables it.
	IdleTimeout time.Duration
}

// DeepSeek returns the configuration for DeepSeek's API with the given key.
func DeepSeek(apiKey string) Config {
	return Config{
		Name:    DeepSeekName,
		BaseURL: DeepSeekBaseURL,
		APIKey:  apiKey,
		KeyHint: "check " + DeepSeekKeyEnv,
		Model:   DeepSeekModel,
	}
}

// Provider streams answers from one Chat Completions endpoint. It is safe
// for concurrent use.
type Provider struct {
	name      string
	endpoint  string // BaseURL + "/chat/completions"
	shownURL  string // endpoint and base URL without credentials, for messages
	shownBase string
	apiKey    string
	keyHint   string
	model     string
	client    *http.Client
	header    http.Header
	log       hclog.Logger

	retry       retry.Policy
	idleTimeout time.Duration
}

// New checks cfg and returns a provider.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("new openai provider: no base URL")
	}
	u, err := retry.ParseBase(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("new openai provider: %w", err)
	}
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), strings.TrimRight(u.RawPath, "/")
	endpoint := u.JoinPath("chat", "completions")
	p := &Provider{
		name:        cmp.Or(cfg.Name, DefaultName),
		endpoint:    endpoint.String(),
		shownURL:    retry.Shown(endpoint),
		shownBase:   retry.Shown(u),
		apiKey:      cfg.APIKey,
		keyHint:     cmp.Or(cfg.KeyHint, "check the API key"),
		model:       cfg.Model,
		client:      cfg.HTTPClient,
		header:      cfg.Header.Clone(),
		log:         cfg.Logger,
		retry:       retry.Policy{Max: cfg.MaxRetries, Base: cfg.RetryBase, Cap: cfg.RetryMax}.Normalized(),
		idleTimeout: cmp.Or(cfg.IdleTimeout, DefaultIdleTimeout),
	}
	p.client = retry.IdleClient(p.client, p.idleTimeout)
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	return p, nil
}

// Name returns the provider's name.
func (p *Provider) Name() string { return p.name }

// Stream sends req and yields the answer as it arrives; see the package doc
// for the contract, the errors and the retry policy.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		model := cmp.Or(req.Model, p.model)
		if model == "" {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrBadRequest, Provider: p.name, Message: "no model set; pass --model"})
			return
		}
		body, err := encodeRequest(model, req)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrBadRequest, Provider: p.name, Message: err.Error(), Err: err})
			return
		}
		retry.Run(ctx, p.retry, p.name, p.log, yield, func(out *retry.Emitter) error {
			return p.attempt(ctx, model, body, out)
		})
	}
}

// emitAll yields cs in order and reports whether the consumer wants more.
func emitAll(out *retry.Emitter, cs []llm.Chunk) bool {
	for _, c := range cs {
		if !out.Emit(c) {
			return false
		}
	}
	return true
}

// redactURLError keeps a URL parse error from echoing credentials.
func redactURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
