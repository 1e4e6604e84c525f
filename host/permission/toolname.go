package permission

import "strings"

// ruleNamesTool reports whether a rule's tool names tool: the same name,
// or a name ending in "*" that tool starts with (mcp__github__*).
func ruleNamesTool(rule, tool string) bool {
	if base, ok := strings.CutSuffix(rule, "*"); ok {
		return strings.HasPrefix(tool, base)
	}
	return rule == tool
}
