package anthropic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// Defaults.
const (
	Name           = "anthropic"
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultModel is the model requested when none is set: the SDK's
	// Claude Sonnet 5.5; llm.BuiltinModels has its window and prices.
	DefaultModel = sdk.ModelClaudeSonnet5_5
	// KeyEnv is the variable engine reads the key from.
	KeyEnv = "ANTHROPIC_API_KEY"
	// DefaultMaxTokens caps an answer when the request sets no cap; the
	// API requires one.
	DefaultMaxTokens = 32000
	// DefaultIdleTimeout ends a silent request.
	DefaultIdleTimeout = 5 * time.Minute
)

// Config configures a [Provider]. Only APIKey is required.
type Config struct {
	// BaseURL is the API root without /v1 (a trailing /v1 is dropped),
	// e.g. a proxy or compatible gateway. Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-api-key.
	APIKey string
	// KeyHint ends the message of an authentication error, e.g.
	// "check ANTHROPIC_API_KEY". Default "check the API key".
	KeyHint string
	// Model is used when a request names none. Default DefaultModel.
	Model string
	// MaxTokens caps an answer when the request names no cap. Default
	// DefaultMaxTokens.
	MaxTokens int
	// ThinkingBudget enables extended thinking: > 0 with that many budget
	// tokens, < 0 adaptive; 0 leaves it off.
	ThinkingBudget int
	// HTTPClient sends the requests. Default http.DefaultClient.
	HTTPClient *http.Client
	// IdleTimeout ends a request that receives no bytes for that long,
	// the wait for the response headers included, as an ErrTransport
	// error (retried). 0 means 5 minutes; negative disables it.
	IdleTimeout time.Duration
	// Logger receives retries at Warn. Default: discard.
	Logger hclog.Logger
	// MaxRetries bounds the retries of one request: 0 means 3, negative
	// none. RetryBase is the first backoff, doubled up to RetryMax; a
	// server's retry-after is honoured up to RetryMax.
	MaxRetries          int
	RetryBase, RetryMax time.Duration
}

// Provider streams answers from the Messages API. It is safe for
// concurrent use.
type Provider struct {
	client    sdk.Client
	shownBase string
	apiKey    string
	keyHint   string
	model     string
	maxTokens int
	thinking  int
	log       hclog.Logger
	retry     retry.Policy
	idle      time.Duration
}

// New checks cfg and returns a provider.
func New(cfg Config) (*Provider, error) {
	u, err := retry.ParseBase(cmp.Or(cfg.BaseURL, DefaultBaseURL))
	if err != nil {
		return nil, fmt.Errorf("new anthropic provider: %w", err)
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1") + "/"
	u.RawPath = ""
	if cfg.APIKey == "" {
		return nil, errors.New("new anthropic provider: no API key")
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(u.String()),
		// The Messages API takes a key in x-api-key; this SDK's
		// WithAPIKey sends it as a bearer token, which the API and
		// gateways refuse. A request carrying x-api-key needs no SDK
		// credential option.
		option.WithHeader("X-Api-Key", cfg.APIKey),
		option.WithMaxRetries(0),
	}
	idle := cfg.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	opts = append(opts, option.WithHTTPClient(retry.IdleClient(cfg.HTTPClient, idle)))
	p := &Provider{
		client:    sdk.NewClient(opts...),
		shownBase: retry.Shown(u),
		apiKey:    cfg.APIKey,
		keyHint:   cmp.Or(cfg.KeyHint, "check the API key"),
		model:     cmp.Or(cfg.Model, DefaultModel),
		maxTokens: cmp.Or(cfg.MaxTokens, DefaultMaxTokens),
		thinking:  cfg.ThinkingBudget,
		log:       cfg.Logger,
		retry:     retry.Policy{Max: cfg.MaxRetries, Base: cfg.RetryBase, Cap: cfg.RetryMax}.Normalized(),
		idle:      idle,
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	return p, nil
}

// Name returns "anthropic".
func (p *Provider) Name() string { return Name }

// Stream sends req and yields the answer as it arrives; see the package doc
// for the contract, the errors and the retry policy.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		model := cmp.Or(req.Model, p.model)
		params, err := p.params(model, req)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrBadRequest, Provider: Name, Message: err.Error(), Err: err})
			return
		}
		retry.Run(ctx, p.retry, Name, p.log, yield, func(out *retry.Emitter) error {
			return p.attempt(ctx, model, params, out)
		})
	}
}
