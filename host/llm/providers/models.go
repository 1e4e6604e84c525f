package providers

import (
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Opened is what OpenModels opens: the default provider and model, the
// models a session may use, and the opener of the other providers.
type Opened struct {
	Model  Model
	Name   string
	Models []llm.ModelInfo
	// Open opens the provider of a model of another provider than the
	// default's (the config file's [[models]]), with the default's
	// thinking budget and environment (its own default endpoint).
	Open func(m llm.ModelInfo) (Model, error)
}

// OpenModels opens p's provider for the default model of choice and
// resolves choice; the providers log to log and run under sup (see Open).
func OpenModels(p Provider, choice Choice, log hclog.Logger, sup pluginhost.Supervisor) (Opened, error) {
	p.Model = choice.DefaultModel()
	model, name, err := Open(p, log, sup)
	if err != nil {
		return Opened{}, err
	}
	models, err := choice.Resolve()
	if err != nil {
		return Opened{}, err
	}
	return Opened{Model: model, Name: name, Models: models, Open: func(m llm.ModelInfo) (Model, error) {
		pm, _, err := Open(Provider{Name: m.Provider, Model: m.Name, Thinking: p.Thinking, Getenv: p.Getenv}, log, sup)
		return pm, err
	}}, nil
}

// Set serves each model from its provider: Default for the models of
// DefaultProvider or of no provider (and for all when Open is nil), else
// a provider opened once per provider name with Open, on first use; a
// failed open is tried again on the next use. It is safe for
// concurrent use.
type Set struct {
	Default         Model
	DefaultProvider string
	Open            func(m llm.ModelInfo) (Model, error)

	mu     sync.Mutex // guards opened
	opened map[string]Model
}

// For returns the provider serving m.
func (s *Set) For(m llm.ModelInfo) (Model, error) {
	name := m.Provider
	if name == "" || name == s.DefaultProvider || s.Open == nil {
		return s.Default, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.opened[name]; ok {
		return p, nil
	}
	p, err := s.Open(m)
	if err != nil {
		return nil, err
	}
	if s.opened == nil {
		s.opened = map[string]Model{}
	}
	s.opened[name] = p
	return p, nil
}
