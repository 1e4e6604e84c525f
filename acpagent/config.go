package acpagent

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/sandbox"
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
	return append(opts, sandboxOption(s.h.SessionSandbox(s.Session), runtime.GOOS))
}

// OptionSandbox is the id of the sandbox option: read-only, one value,
// the sandbox the session's bash commands run under (what the session's
// last sandbox/policy says), shown to the editor in session/new, load and
// resume; it is set where harness acp starts (--sandbox and the rest) and
// by the editor's additionalDirectories, not by set_config_option.
const OptionSandbox = "sandbox"

// sandboxOption is the sandbox option of sb on operating system goos.
func sandboxOption(sb confine.Setting, goos string) acpbridge.ConfigOption {
	name := "sandbox " + sb.String()
	desc := "Enforced by the kernel on every bash command; set where harness acp starts (--sandbox, --sandbox-network, --add-dir, --deny-read, --pids-limit) and by the editor's additional directories."
	switch {
	case sb.Mode == sandbox.Off:
		name = "sandbox off: commands run with your rights"
		desc = "bash commands run with your rights; set where harness acp starts (--sandbox)."
	case goos != "linux":
		name += " (not enforced on " + goos + ")"
	default:
		desc += fmt.Sprintf(" Credential stores (~/.ssh, ~/.aws, …) read as empty; at most %d processes per command.", sb.PidsLimit)
		if len(sb.DenyRead) > 0 {
			desc += " Also hidden: " + strings.Join(sb.DenyRead, ", ") + "."
		}
	}
	return acpbridge.ConfigOption{ID: OptionSandbox, Name: "Sandbox", Description: desc, Current: string(sb.Mode),
		Values: []acpbridge.ConfigValue{{Value: string(sb.Mode), Name: name}}}
}

// SetConfigOption implements acpbridge.Configurable: the switch is logged
// in the session and applies from its next step.
func (s *acpSession) SetConfigOption(_ context.Context, id, value string) error {
	if id == OptionSandbox {
		if cur := string(s.h.SessionSandbox(s.Session).Mode); value != cur {
			return invalidOption{fmt.Errorf("the sandbox is %s for this session: it is set where harness acp starts (--sandbox), not from the editor", cur)}
		}
		return nil
	}
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
	out := acpbridge.Usage{Used: u.Used, Size: u.Size, Cost: u.Cost, Currency: u.Currency, Priced: u.Priced}
	if f, err := s.h.FixedContext(context.Background(), s.Session); err == nil {
		out.Fixed, out.Warning = f.Total(), f.Warning()
		s.warnFixed(out.Warning)
	}
	return out
}

// warnFixed sends the fixed-part warning w as a notice, once in the
// session's life on this connection; nothing before the session is
// watched or when w is empty.
func (s *acpSession) warnFixed(w string) {
	s.mu.Lock()
	notify, send := s.notify, w != "" && !s.warned && s.notify != nil
	if send {
		s.warned = true
	}
	s.mu.Unlock()
	if send {
		w = strings.TrimPrefix(w, "warning: ")
		notify(acpbridge.Notice{Severity: acpbridge.NoticeWarning, Title: strings.ToUpper(w[:1]) + w[1:]})
	}
}
