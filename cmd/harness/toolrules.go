package main

import (
	"context"
	"strings"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/tool"
)

// toolPatterns splits a comma-separated list of tool names and patterns.
func toolPatterns(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// toolRules are --disallowed-tools as deny rules and --allowed-tools as
// allow rules, for the policy: a deny rule of any source wins over every
// allow rule (host/permission), so the permissions file's denials hold.
func (c *config) toolRules() []permission.Rule {
	var rules []permission.Rule
	for _, t := range toolPatterns(c.DisallowedTools) {
		rules = append(rules, permission.Rule{Tool: t, Action: permission.Deny})
	}
	for _, t := range toolPatterns(c.AllowedTools) {
		rules = append(rules, permission.Rule{Tool: t, Action: permission.Allow})
	}
	return rules
}

// namesTool reports whether a pattern (a name, or a prefix ending in *)
// names tool, as a permission rule's tool does.
func namesTool(pattern, name string) bool {
	if base, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, base)
	}
	return pattern == name
}

// hideTools is loop's tool set without the tools patterns name: the model
// is not offered them, and a call of one is a call of an unknown tool.
// The deny rules refuse them besides (toolRules), in subagents too.
func hideTools(loop *agent.Loop, patterns []string) {
	if len(patterns) == 0 || loop.Tools == nil {
		return
	}
	loop.Tools = hiddenTools{Tools: loop.Tools, patterns: patterns}
}

type hiddenTools struct {
	agent.Tools
	patterns []string
}

func (h hiddenTools) hidden(name string) bool {
	for _, p := range h.patterns {
		if namesTool(p, name) {
			return true
		}
	}
	return false
}

func (h hiddenTools) Step(ctx context.Context, info agent.StepInfo) (agent.Step, error) {
	st, err := h.Tools.Step(ctx, info)
	if err != nil {
		return nil, err
	}
	return hiddenStep{Step: st, h: h}, nil
}

type hiddenStep struct {
	agent.Step
	h hiddenTools
}

func (s hiddenStep) Tools() []tool.Tool {
	var out []tool.Tool
	for _, t := range s.Step.Tools() {
		if !s.h.hidden(t.Spec.Name) {
			out = append(out, t)
		}
	}
	return out
}

func (s hiddenStep) Tool(name string) (tool.Tool, bool) {
	if s.h.hidden(name) {
		return tool.Tool{}, false
	}
	return s.Step.Tool(name)
}
