package responses

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// Defaults.
const (
	Name           = "openai-responses"
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultModel is the model requested when none is set: the SDK's
	// GPT-5.5; llm.BuiltinModels has its window.
	DefaultModel = string(shared.ChatModelGPT5_5)
	// DefaultIdleTimeout ends a silent request.
	DefaultIdleTimeout = 5 * time.Minute
)

// Config configures a [Provider]. Only APIKey is required.
type Config struct {
	// BaseURL is the API root including /v1. Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token.
	APIKey string
	// KeyHint ends the message of an authentication error, e.g.
	// "check OPENAI_API_KEY". Default "check the API key".
	KeyHint string
	// Model is used when a request names none. Default DefaultModel.
	Model string
	// ReasoningEffort, when set, is sent as reasoning.effort (with a
	// summary "auto"): minimal, low, medium, high.
	ReasoningEffort string
	// HTTPClient sends the requests. Default http.DefaultClient.
	HTTPClient *http.Client
	// IdleTimeout ends a request that receives no bytes for that long,
	// the wait for the response headers included, as an ErrTransport
	// error (retried). 0 means 5 minutes; negative disables it.
	IdleTimeout time.Duration
	// Logger receives retries at Warn. Default: discard.
	Logger hclog.Logger
	// MaxRetries bounds the retries of one request: 0 means 3, negative
	// none. RetryBase is the first backoff, doubled up to RetryMax.
	MaxRetries          int
	RetryBase, RetryMax time.Duration
}

// Provider streams answers from the Responses API. It is safe for
// concurrent use.
type Provider struct {
	// client is the Responses service alone: the SDK root package
	// (openai.NewClient) links every OpenAI service into harness and reads
	// OPENAI_* variables from the environment; the service does neither.
	client    responses.ResponseService
	shownBase string
	apiKey    string
	keyHint   string
	model     string
	effort    string
	log       hclog.Logger
	retry     retry.Policy
	idle      time.Duration
}

// New checks cfg and returns a provider.
func New(cfg Config) (*Provider, error) {
	u, err := retry.ParseBase(cmp.Or(cfg.BaseURL, DefaultBaseURL))
	if err != nil {
		return nil, fmt.Errorf("new openai-responses provider: %w", err)
	}
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/")+"/", ""
	if cfg.APIKey == "" {
		return nil, errors.New("new openai-responses provider: no API key")
	}
	idle := cfg.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	hc := retry.IdleClient(cfg.HTTPClient, idle)
	p := &Provider{
		client: responses.NewResponseService(option.WithBaseURL(u.String()), option.WithAPIKey(cfg.APIKey),
			option.WithMaxRetries(0), option.WithHTTPClient(hc)),
		shownBase: retry.Shown(u),
		apiKey:    cfg.APIKey,
		keyHint:   cmp.Or(cfg.KeyHint, "check the API key"),
		model:     cmp.Or(cfg.Model, DefaultModel),
		effort:    cfg.ReasoningEffort,
		log:       cfg.Logger,
		retry:     retry.Policy{Max: cfg.MaxRetries, Base: cfg.RetryBase, Cap: cfg.RetryMax}.Normalized(),
		idle:      idle,
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	return p, nil
}

// Name returns "openai-responses".
func (p *Provider) Name() string { return Name }

// Stream sends req and yields the answer as it arrives; see the package doc.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		model := cmp.Or(req.Model, p.model)
		prm, err := p.params(model, req)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrBadRequest, Provider: Name, Message: err.Error(), Err: err})
			return
		}
		retry.Run(ctx, p.retry, Name, p.log, yield, func(out *retry.Emitter) error {
			return p.attempt(ctx, model, prm, out)
		})
	}
}
