package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/pricing"
	"github.com/harness-dev/harness/host/session"
)

// Session options a front end can switch (ACP config options); each
// switch is a config/option event in the session's log, so a reloaded
// session keeps it.
const (
	OptionModel  = "model"            // a model name of Runtime.Models
	OptionEffort = "reasoning_effort" // a level of the current model
)

// ErrBadOption is what SetOption's error matches (errors.Is) for an
// unknown option or a value the option does not take; its message is the
// reason alone.
var ErrBadOption = errors.New("bad session option")

// badOption is a SetOption refusal.
type badOption struct{ msg string }

func (e badOption) Error() string        { return e.msg }
func (e badOption) Is(target error) bool { return target == ErrBadOption }

func refuse(format string, args ...any) error { return badOption{fmt.Sprintf(format, args...)} }

// Models are the models a session may use; the first is the default.
func (r *Runtime) Models() []llm.ModelInfo {
	if len(r.cfg.Models) > 0 {
		return r.cfg.Models
	}
	return []llm.ModelInfo{{Name: r.cfg.ModelName}}
}

// model returns the model named name among Models.
func (r *Runtime) model(name string) (llm.ModelInfo, bool) {
	ms := r.Models()
	i := slices.IndexFunc(ms, func(m llm.ModelInfo) bool { return m.Name == name })
	if i < 0 {
		return llm.ModelInfo{}, false
	}
	return ms[i], true
}

// options returns the options the session's log switched last, by id.
// The host's records of the model it ran (By host) are not switches.
func options(evs []event.Event) map[string]string {
	out := map[string]string{}
	for _, ev := range evs {
		if ev.Type != event.TypeConfigOption {
			continue
		}
		if p, err := ev.Decode(); err == nil {
			o := p.(event.ConfigOption)
			if o.By == event.ByHost {
				continue
			}
			out[o.ID] = o.Value
			if o.ID == OptionModel {
				delete(out, OptionEffort) // an effort is the previous model's
			}
		}
	}
	return out
}

// SessionModel returns the model s's next step uses and its reasoning
// effort ("" for a model without levels): the last ones its log chose,
// else the defaults. A model the log names that is no longer configured
// falls back to the default.
func (r *Runtime) SessionModel(s *session.Session) (llm.ModelInfo, string) {
	return r.modelOf(options(s.Events()))
}

// windowOf is the context window of the model s uses now (0: unknown);
// the loop compacts against it.
func (r *Runtime) windowOf(s agent.SessionLog) int {
	ss, ok := s.(*session.Session)
	if !ok {
		return 0
	}
	m, _ := r.SessionModel(ss)
	return m.ContextWindow
}

func (r *Runtime) modelOf(opts map[string]string) (llm.ModelInfo, string) {
	m, ok := r.model(opts[OptionModel])
	if !ok {
		m = r.Models()[0]
	}
	effort := opts[OptionEffort]
	if !slices.Contains(m.ReasoningEfforts, effort) {
		effort = m.Effort()
	}
	return m, effort
}

// SetOption switches option id of session s to value for the steps that
// follow, and logs it. An unknown id or value is ErrBadOption; so is a
// model whose context window the session no longer fits.
func (r *Runtime) SetOption(s *session.Session, id, value string) error {
	switch id {
	case OptionModel:
		m, ok := r.model(value)
		if !ok {
			names := make([]string, 0, len(r.Models()))
			for _, m := range r.Models() {
				names = append(names, m.Name)
			}
			return refuse("no model %q; configured: %s", value, strings.Join(names, ", "))
		}
		if u := r.Usage(s, 0); m.ContextWindow > 0 && u.Used > m.ContextWindow {
			return refuse("the session holds %d tokens, more than %s's window of %d; start a new session to use it",
				u.Used, m.Name, m.ContextWindow)
		}
	case OptionEffort:
		m, _ := r.SessionModel(s)
		if !slices.Contains(m.ReasoningEfforts, value) {
			if len(m.ReasoningEfforts) == 0 {
				return refuse("model %s has no reasoning effort levels", m.Name)
			}
			return refuse("model %s takes reasoning effort %s, not %q", m.Name, strings.Join(m.ReasoningEfforts, ", "), value)
		}
	default:
		return refuse("unknown option %q: use %s or %s", id, OptionModel, OptionEffort)
	}
	o := event.ConfigOption{ID: id, Value: value, By: event.ByClient}
	if id == OptionModel {
		m, _ := r.model(value)
		o.Provider = m.Provider
	}
	if _, err := s.Append(o); err != nil {
		return fmt.Errorf("log the %s switch: %w", id, err)
	}
	return nil
}

// logModel logs the model s runs on now, By host, unless the last model
// its log names is that one: at a session's creation, and when a turn
// starts (a session continued by a host whose default is another model,
// an old log that named none), so that the log says which model served
// every turn.
func (r *Runtime) logModel(s *session.Session) error {
	m, _ := r.SessionModel(s)
	if m.Name == "" {
		return nil
	}
	var last event.ConfigOption
	for _, ev := range s.Events() {
		if ev.Type != event.TypeConfigOption {
			continue
		}
		if p, err := ev.Decode(); err == nil && p.(event.ConfigOption).ID == OptionModel {
			last = p.(event.ConfigOption)
		}
	}
	if last.Value == m.Name && last.Provider == m.Provider {
		return nil
	}
	if _, err := s.Append(event.ConfigOption{ID: OptionModel, Value: m.Name, Provider: m.Provider, By: event.ByHost}); err != nil {
		return fmt.Errorf("log the model of session %s: %w", s.ID(), err)
	}
	return nil
}

// Usage reads s's log (pricing.Of): Total and Cost count the steps from seq
// from on (0: the whole session), each at the prices of the model it ran
// on; Used and Size are as of now.
func (r *Runtime) Usage(s *session.Session, from int64) pricing.Usage {
	return pricing.Of(s.Events(), from, func(opts map[string]string) llm.ModelInfo {
		m, _ := r.modelOf(opts)
		return m
	})
}

// provider returns the provider serving model m (providers.Set).
func (r *Runtime) provider(m llm.ModelInfo) (agent.Model, error) { return r.providers.For(m) }
