package engine

import (
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/llm"
)

// OpenModels fills the model fields of c the way harness does: Model and
// ModelName are p's provider opened for the default model of choice;
// Models is choice resolved; OpenProvider opens the provider of a model
// of another provider (the config file's [[models]]) on first use, with
// p's thinking budget and environment (its own default endpoint: p's
// BaseURL and Script are the default provider's). The providers log to
// c.Logger.
func (c *Config) OpenModels(p Provider, choice ModelChoice) error {
	log := c.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	p.Model = choice.DefaultModel()
	model, name, err := OpenModel(p, log)
	if err != nil {
		return err
	}
	models, err := choice.Resolve()
	if err != nil {
		return err
	}
	c.Model, c.ModelName, c.Models = model, name, models
	c.OpenProvider = func(m llm.ModelInfo) (agent.Model, error) {
		pm, _, err := OpenModel(Provider{Name: m.Provider, Model: m.Name, Thinking: p.Thinking, Getenv: p.Getenv}, log)
		return pm, err
	}
	return nil
}
