package acpagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
)

// ConfigOptions implements acpbridge.Configurable: the model picker (the
// configured models) and, for a model with levels, its reasoning effort.
func (s *acpSession) ConfigOptions() []acpbridge.ConfigOption {
	cur, effort := s.h.SessionModel(s.Session)
	model := acpbridge.ConfigOption{ID: engine.OptionModel, Name: "Model", Category: "model", Current: cur.Name}
	for _, m := range s.h.Models() {
		v := acpbridge.ConfigValue{Value: m.Name, Name: m.Name}
		if m.Provider != "" {
			v.Description = m.Provider
			if m.ContextWindow > 0 {
				v.Description += fmt.Sprintf(", %dk context", m.ContextWindow/1000)
			}
		}
		model.Values = append(model.Values, v)
	}
	opts := []acpbridge.ConfigOption{model}
	if len(cur.ReasoningEfforts) > 0 {
		o := acpbridge.ConfigOption{ID: engine.OptionEffort, Name: "Reasoning effort", Category: "thought_level", Current: effort}
		for _, l := range cur.ReasoningEfforts {
			o.Values = append(o.Values, acpbridge.ConfigValue{Value: l, Name: l})
		}
		opts = append(opts, o)
	}
	return opts
}

// SetConfigOption implements acpbridge.Configurable: the switch is logged
// in the session and applies from its next step.
func (s *acpSession) SetConfigOption(_ context.Context, id, value string) error {
	err := s.h.SetOption(s.Session, id, value)
	if errors.Is(err, engine.ErrBadOption) {
		return invalidOption{err}
	}
	return err
}

// invalidOption is an engine refusal as the bridge knows it (-32602).
type invalidOption struct{ error }

func (e invalidOption) Is(target error) bool { return target == acpbridge.ErrInvalidOption }

// Usage implements acpbridge.Configurable.
func (s *acpSession) Usage() acpbridge.Usage {
	u := s.h.Usage(s.Session, 0)
	return acpbridge.Usage{Used: u.Used, Size: u.Size, Cost: u.Cost, Currency: u.Currency, Priced: u.Priced}
}
