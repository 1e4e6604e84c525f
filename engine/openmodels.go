package engine

import (
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/providers"
)

// OpenModels fills the model fields of c the way harness does
// (providers.OpenModels, the SDK providers under confine.Supervise): Model and
// ModelName are p's provider opened for the default model of choice;
// Models is choice resolved; OpenProvider opens another provider's on
// first use. The providers log to c.Logger.
func (c *Config) OpenModels(p providers.Provider, choice providers.Choice) error {
	log := c.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	o, err := providers.OpenModels(p, choice, log, confine.Supervise)
	if err != nil {
		return err
	}
	c.Model, c.ModelName, c.Models = o.Model, o.Name, o.Models
	c.OpenProvider = func(m llm.ModelInfo) (agent.Model, error) { return o.Open(m) }
	return nil
}
