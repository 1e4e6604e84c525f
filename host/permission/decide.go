package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/shorten"
)

// PrefixWords reads a rule's prefix (or a recorded scope) as words: a
// command name and its leading arguments, quoted as in bash.
func PrefixWords(prefix string) ([]string, error) {
	if strings.TrimSpace(prefix) == "" {
		return nil, errors.New("the prefix names no command")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(prefix), "")
	if err != nil {
		return nil, fmt.Errorf("prefix %q is not a command and its leading arguments: %s", prefix, shorten.FirstLine(err.Error()))
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("prefix %q is not one command and its leading arguments", prefix)
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(st.Redirs) > 0 || st.Background || st.Negated || len(call.Args) == 0 {
		return nil, fmt.Errorf("prefix %q is not a command and its leading arguments", prefix)
	}
	out := make([]string, len(call.Args))
	for i, w := range words(call.Args) {
		if !w.Known {
			return nil, fmt.Errorf("prefix %q has a word the shell would expand; quote it", prefix)
		}
		out[i] = w.Text
	}
	out[0] = baseName(out[0])
	return out, nil
}

// joinWords is the inverse of PrefixWords.
func joinWords(ws []string) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = quoteWord(Word{Text: w, Known: true})
	}
	return strings.Join(s, " ")
}

// match is how a prefix matches a command.
type match int

const (
	noMatch    match = iota
	maybeMatch       // a word the prefix needs is computed when the line runs
	fullMatch
)

// matchWords matches prefix against c word by word; the command name by
// base name.
func matchWords(prefix []string, c Cmd) match {
	if len(c.Words) == 0 || len(prefix) == 0 || baseName(prefix[0]) != c.Name() {
		return noMatch
	}
	for i := 1; i < len(prefix); i++ {
		if i >= len(c.Words) {
			return noMatch
		}
		w := c.Words[i]
		if !w.Known {
			return maybeMatch // it may expand to any number of words
		}
		if w.Text != prefix[i] {
			return noMatch
		}
	}
	return fullMatch
}

// coverage reports, for each command of l, whether prefix p allows it:
// directly (p matches it and it sets no variables) or through the command
// that runs it, when p names that command up to this one's first word (or,
// for a -c string or eval, all of it).
func coverage(p []string, l Line) []bool {
	const none, all = -1, -2
	state := make([]int, len(l.Cmds)) // where the command's words start in p, or none/all
	out := make([]bool, len(l.Cmds))
	for i, c := range l.Cmds {
		state[i] = none
		if c.Via >= 0 && c.Via < i {
			switch ps := state[c.Via]; {
			case ps == all:
				state[i] = all
			case ps >= 0 && c.Whole:
				if len(p)-ps >= len(l.Cmds[c.Via].Words) {
					state[i] = all
				}
			case ps >= 0 && len(p) > ps+c.At:
				state[i] = ps + c.At
			}
		}
		if state[i] == none && !c.Assigns && matchWords(p, c) == fullMatch {
			state[i] = 0
		}
		out[i] = state[i] != none
	}
	return out
}

// scopes returns what an "always" answer about l covers: for each command
// that is not run by another, its name and first argument (through
// wrappers: "sudo apt update", "timeout 5 make all"; a -c string or eval
// in full). It returns nil when some command cannot be scoped (its words
// are computed, it only sets variables) or the line writes to a file.
func scopes(l Line) []string {
	if l.Unknown != "" || l.Writes {
		return nil
	}
	var out []string
	for i, c := range l.Cmds {
		if c.Via >= 0 {
			continue
		}
		ws := scopeWords(l, i)
		if ws == nil {
			return nil
		}
		s := joinWords(ws)
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func scopeWords(l Line, root int) []string {
	c := l.Cmds[root]
	if len(c.Words) == 0 || c.Assigns {
		return nil
	}
	off, cur, n := 0, root, 0
	for {
		next, whole := -1, false
		for j := cur + 1; j < len(l.Cmds); j++ {
			if l.Cmds[j].Via != cur {
				continue
			}
			if l.Cmds[j].Whole {
				whole = true
			} else if next < 0 {
				next = j
			}
		}
		if whole {
			n = len(c.Words)
			break
		}
		if next < 0 {
			n = off + min(2, len(l.Cmds[cur].Words))
			break
		}
		off += l.Cmds[next].At
		cur = next
	}
	ws := make([]string, 0, n)
	for _, w := range c.Words[:n] {
		if !w.Known {
			break
		}
		ws = append(ws, w.Text)
	}
	if len(ws) <= off {
		return nil // it does not name the command that runs
	}
	ws[0] = baseName(ws[0])
	return ws
}

// shellCommand returns the call's "command" argument and whether the call
// has one (the tool runs a shell command line). A call whose arguments
// name "command" more than once, in any case, or not as a string, is a
// shell call whose line is unknown.
func shellCommand(args json.RawMessage) (cmd string, shell, ambiguous bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return "", false, false
	}
	n := 0
	for k, v := range m {
		if !strings.EqualFold(k, "command") {
			continue
		}
		n++
		if json.Unmarshal(v, &cmd) != nil {
			return "", true, true
		}
	}
	switch {
	case n == 0:
		return "", false, false
	case n > 1:
		return "", true, true
	}
	return cmd, true, false
}

// Command returns the trimmed "command" argument of a call, "" if none.
func Command(args json.RawMessage) string {
	cmd, _, _ := shellCommand(args)
	return strings.TrimSpace(cmd)
}

// decision is what the policy says about one call.
type decision struct {
	action Action
	source event.Source // rule, mode, session or protected
	rule   *Rule
	cmd    string // the command the rule or scope matched
	// unknown, when set, says why the line cannot be checked.
	unknown string
	// scope is what an "always" answer would cover; noAlways when an
	// answer cannot be scoped.
	scope    []string
	noAlways bool
}

// words returns the rule's prefix as words.
func (r *Rule) prefixWords() []string {
	if r.words == nil && r.Prefix != "" {
		w, err := PrefixWords(r.Prefix)
		if err != nil {
			w = []string{"\x00"} // matches nothing; LoadRules refuses such rules
		}
		r.words = w
	}
	return r.words
}

// decide applies the rules and the recorded "always" answers (always, the
// tool's, in log order) to a call.
func (p Policy) decide(tool string, args json.RawMessage, always []event.Permission) decision {
	var rules []*Rule
	for i := range p.Rules {
		if ruleNamesTool(p.Rules[i].Tool, tool) {
			rules = append(rules, &p.Rules[i])
		}
	}
	cmd, shell, ambiguous := shellCommand(args)
	if !shell {
		return p.decideTool(rules, always)
	}
	line := Line{Unknown: "its arguments name the command more than once"}
	if !ambiguous {
		line = ParseLine(cmd)
	}
	return p.decideLine(rules, always, line)
}

// decideTool decides on a call that runs no command line: only rules and
// answers about the whole tool apply.
func (p Policy) decideTool(rules []*Rule, always []event.Permission) decision {
	var ask, allow *Rule
	for _, r := range rules {
		if r.Prefix != "" {
			continue
		}
		switch r.Action {
		case Deny:
			return decision{action: Deny, source: event.SourceRule, rule: r}
		case Ask:
			ask = firstRule(ask, r)
		case Allow:
			allow = firstRule(allow, r)
		}
	}
	allowAlways := false
	for _, g := range always {
		if len(g.Scope) > 0 {
			continue
		}
		switch g.Decision {
		case event.RejectAlways:
			return decision{action: Deny, source: event.SourceSession}
		case event.AllowAlways:
			allowAlways = true
		}
	}
	switch {
	case allowAlways:
		return decision{action: Allow, source: event.SourceSession}
	case ask != nil:
		return decision{action: Ask, source: event.SourceRule, rule: ask}
	case allow != nil:
		return decision{action: Allow, source: event.SourceRule, rule: allow}
	case p.Mode == ModeAllowAll:
		return decision{action: Allow, source: event.SourceMode}
	}
	return decision{action: Ask, source: event.SourceMode}
}

func firstRule(have, r *Rule) *Rule {
	if have != nil {
		return have
	}
	return r
}

// decideLine decides on a shell command line.
func (p Policy) decideLine(rules []*Rule, always []event.Permission, line Line) decision {
	var rejectScopes, allowScopes [][]string
	rejectAll := false
	for _, g := range always {
		if len(g.Scope) == 0 {
			// A tool-wide answer (an older log): a rejection still holds;
			// an allowance does not cover command lines.
			rejectAll = rejectAll || g.Decision == event.RejectAlways
			continue
		}
		for _, s := range g.Scope {
			w, err := PrefixWords(s)
			if err != nil {
				continue
			}
			switch g.Decision {
			case event.AllowAlways:
				allowScopes = append(allowScopes, w)
			case event.RejectAlways:
				rejectScopes = append(rejectScopes, w)
			}
		}
	}

	// Deny: a tool-wide rule, or a rule matching any command.
	risky := "" // a deny rule or rejection may match: we cannot tell
	for _, r := range rules {
		if r.Action != Deny {
			continue
		}
		if r.Prefix == "" {
			return decision{action: Deny, source: event.SourceRule, rule: r}
		}
		for _, c := range line.Cmds {
			switch matchWords(r.prefixWords(), c) {
			case fullMatch:
				return decision{action: Deny, source: event.SourceRule, rule: r, cmd: c.String()}
			case maybeMatch:
				if risky == "" {
					risky = fmt.Sprintf("a word of %s that the rule %s needs is computed when the line runs", c, r)
				}
			}
		}
	}
	if rejectAll {
		return decision{action: Deny, source: event.SourceSession}
	}
	for _, s := range rejectScopes {
		for _, c := range line.Cmds {
			switch matchWords(s, c) {
			case fullMatch:
				return decision{action: Deny, source: event.SourceSession, cmd: c.String()}
			case maybeMatch:
				if risky == "" {
					risky = fmt.Sprintf("a word of %s that an earlier \"always reject\" answer needs is computed when the line runs", c)
				}
			}
		}
	}

	guarded := false // something could forbid part of this line
	var toolAsk, toolAllow *Rule
	for _, r := range rules {
		switch {
		case r.Action == Deny:
			guarded = true
		case r.Prefix != "":
		case r.Action == Ask:
			toolAsk = firstRule(toolAsk, r)
		case r.Action == Allow:
			toolAllow = firstRule(toolAllow, r)
		}
	}
	guarded = guarded || len(rejectScopes) > 0
	why := line.Unknown
	if why == "" {
		why = risky
	}
	if why != "" {
		// Nothing allows a line that cannot be checked, but a line no
		// rule could forbid is as good as any other.
		d := decision{action: Ask, source: event.SourceRule, unknown: why, noAlways: true}
		switch {
		case guarded:
		case toolAsk != nil:
			d.rule = toolAsk
		case toolAllow != nil:
			return decision{action: Allow, source: event.SourceRule, rule: toolAllow}
		case p.Mode == ModeAllowAll:
			return decision{action: Allow, source: event.SourceMode}
		default:
			d.source = event.SourceMode
		}
		return d
	}

	sc := scopes(line)
	ask := decision{action: Ask, source: event.SourceMode, scope: sc, noAlways: sc == nil}
	// Ask rules that match a command the user has not answered "always" for.
	bySession := make([]bool, len(line.Cmds))
	for _, s := range allowScopes {
		for i, ok := range coverage(s, line) {
			bySession[i] = bySession[i] || (ok && !line.Writes)
		}
	}
	for _, r := range rules {
		if r.Action != Ask {
			continue
		}
		for i, c := range line.Cmds {
			if bySession[i] {
				continue
			}
			if r.Prefix == "" || matchWords(r.prefixWords(), c) == fullMatch {
				ask.source, ask.rule, ask.cmd = event.SourceRule, r, c.String()
				return ask
			}
		}
	}
	if toolAllow != nil {
		return decision{action: Allow, source: event.SourceRule, rule: toolAllow}
	}
	byRule := make([]bool, len(line.Cmds))
	if !line.Writes {
		for _, r := range rules {
			if r.Action != Allow || r.Prefix == "" {
				continue
			}
			for i, ok := range coverage(r.prefixWords(), line) {
				byRule[i] = byRule[i] || ok
			}
		}
	}
	all, session := len(line.Cmds) > 0, false
	for i := range line.Cmds {
		all = all && (byRule[i] || bySession[i])
		session = session || (!byRule[i] && bySession[i])
	}
	switch {
	case all && session:
		return decision{action: Allow, source: event.SourceSession}
	case all:
		return decision{action: Allow, source: event.SourceRule}
	case p.Mode == ModeAllowAll:
		return decision{action: Allow, source: event.SourceMode}
	}
	return ask
}
