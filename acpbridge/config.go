package acpbridge

import (
	"context"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// ErrInvalidOption is what a Configurable returns, wrapped, from
// SetConfigOption for an unknown option id or a value the option does not
// take. The bridge answers it with -32602 "Invalid params".
var ErrInvalidOption = errors.New("invalid config option")

// Configurable is a Session with settings the editor may switch (ACP
// session config options: the model picker, the reasoning effort) and a
// context usage to show. The bridge uses it when a Session implements it.
type Configurable interface {
	// ConfigOptions describes the session's options with their current
	// values, in the order to show them.
	ConfigOptions() []ConfigOption
	// SetConfigOption switches option id to value from the next step on.
	SetConfigOption(ctx context.Context, id, value string) error
	// Usage is the session's context use now and its cost so far.
	Usage() Usage
}

// ConfigOption is one select option of a session.
type ConfigOption struct {
	// ID is what session/set_config_option names; Name its label.
	ID, Name, Description string
	// Category is ACP's semantic category: "model", "thought_level", …
	Category string
	// Current is the value chosen, one of Values.
	Current string
	Values  []ConfigValue
}

// ConfigValue is one value of a ConfigOption.
type ConfigValue struct {
	Value, Name, Description string
}

// Usage is a session's context use and cost for usage_update.
type Usage struct {
	// Used is the tokens in the context now; Size the model's window (0:
	// unknown, and no usage_update is sent).
	Used, Size int
	// Fixed is the part of the window every request takes whatever the
	// history (system prompt and tools), sent as _meta.fixedTokens; 0:
	// not known. Warning, when set, says that it passes half the window
	// and names the biggest tools (_meta.fixedWarning).
	Fixed   int
	Warning string
	// Cost is the session's cost so far in Currency, when Priced.
	Cost     float64
	Currency string
	Priced   bool
}

// configOptions renders s's options for a session/new, load or resume
// response; nil when s has none.
func configOptions(s Session) []acp.SessionConfigOption {
	c, ok := s.(Configurable)
	if !ok {
		return nil
	}
	opts := c.ConfigOptions()
	if len(opts) == 0 {
		return nil
	}
	out := make([]acp.SessionConfigOption, 0, len(opts))
	for _, o := range opts {
		values := make(acp.SessionConfigSelectOptionsUngrouped, 0, len(o.Values))
		for _, v := range o.Values {
			sv := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(v.Value), Name: v.Name}
			if v.Description != "" {
				sv.Description = acp.Ptr(v.Description)
			}
			values = append(values, sv)
		}
		sel := &acp.SessionConfigOptionSelect{Id: acp.SessionConfigId(o.ID), Name: o.Name, Type: "select",
			CurrentValue: acp.SessionConfigValueId(o.Current), Options: acp.SessionConfigSelectOptions{Ungrouped: &values}}
		if o.Category != "" {
			sel.Category = acp.Ptr(acp.SessionConfigOptionCategory(o.Category))
		}
		if o.Description != "" {
			sel.Description = acp.Ptr(o.Description)
		}
		out = append(out, acp.SessionConfigOption{Select: sel})
	}
	return out
}

// SetSessionConfigOption switches one option of an open session: the
// switch is the session's (logged), config_option_update goes out with the
// full list, then the response carries it too.
func (b *bridge) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if p.Boolean != nil {
		return acp.SetSessionConfigOptionResponse{}, invalidParams(fmt.Errorf("option %q: harness has no boolean options", p.Boolean.ConfigId))
	}
	if p.ValueId == nil {
		return acp.SetSessionConfigOptionResponse{}, invalidParams(errors.New("no configId and value"))
	}
	req := p.ValueId
	ls, ok := b.lookup(req.SessionId)
	if !ok || ls.isClosed() {
		return acp.SetSessionConfigOptionResponse{}, notOpen(string(req.SessionId))
	}
	c, ok := ls.s.(Configurable)
	if !ok {
		return acp.SetSessionConfigOptionResponse{}, invalidParams(fmt.Errorf("session %s has no config options", req.SessionId))
	}
	if err := c.SetConfigOption(ctx, string(req.ConfigId), string(req.Value)); err != nil {
		if errors.Is(err, ErrInvalidOption) {
			return acp.SetSessionConfigOptionResponse{}, invalidParams(err)
		}
		return acp.SetSessionConfigOptionResponse{}, internal("set option "+quote(string(req.ConfigId)), err)
	}
	opts := configOptions(ls.s)
	b.send(ls.s.ID(), acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{
		SessionUpdate: "config_option_update", ConfigOptions: opts}})
	b.log.Info("session option set", "session", req.SessionId, "option", req.ConfigId, "value", req.Value)
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// usageUpdate is the usage_update of s now; false when s has none or its
// window is unknown.
func usageUpdate(s Session) (acp.SessionUpdate, bool) {
	c, ok := s.(Configurable)
	if !ok {
		return acp.SessionUpdate{}, false
	}
	u := c.Usage()
	if u.Size <= 0 {
		return acp.SessionUpdate{}, false
	}
	up := &acp.SessionUsageUpdate{SessionUpdate: "usage_update", Used: max(u.Used, 0), Size: u.Size}
	if u.Priced && u.Currency != "" {
		up.Cost = &acp.Cost{Amount: u.Cost, Currency: u.Currency}
	}
	if u.Fixed > 0 {
		up.Meta = map[string]any{"fixedTokens": u.Fixed}
		if u.Warning != "" {
			up.Meta["fixedWarning"] = u.Warning
		}
	}
	return acp.SessionUpdate{UsageUpdate: up}, true
}
