package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/harness-dev/harness/host/event"
)

// Mode is the default answer when no rule matches.
type Mode string

// Modes.
const (
	ModeAsk      Mode = "ask"
	ModeAllowAll Mode = "allow-all"
)

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeAsk, ModeAllowAll:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use ask or allow-all", s)
}

// Action is what a rule says.
type Action string

// Actions.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Rule allows, asks or denies calls to a tool, optionally only those whose
// command line runs a command named by Prefix: a command name and its
// leading arguments, as words ("git status", "rm ").
type Rule struct {
	Tool   string `json:"tool"`
	Prefix string `json:"prefix,omitempty"`
	Action Action `json:"action"`

	words []string // Prefix as words, set by LoadRules or on first use
}

func (r Rule) String() string {
	if r.Prefix != "" {
		return fmt.Sprintf("%s %s %q", r.Action, r.Tool, r.Prefix)
	}
	return fmt.Sprintf("%s %s", r.Action, r.Tool)
}

// Policy is a mode and rules.
type Policy struct {
	Mode  Mode
	Rules []Rule
	// File is where the rules came from, for messages.
	File string
}

// LoadRules reads the rules file at path. A missing file means no rules.
func LoadRules(path string) ([]Rule, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read permission rules: %w", err)
	}
	var f struct {
		Rules []Rule `json:"rules"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("read permission rules %s: %w", path, err)
	}
	for i, r := range f.Rules {
		if r.Tool == "" {
			return nil, fmt.Errorf("read permission rules %s: rule %d names no tool", path, i+1)
		}
		switch r.Action {
		case Allow, Ask, Deny:
		default:
			return nil, fmt.Errorf("read permission rules %s: rule %d: action %q is not allow, ask or deny", path, i+1, r.Action)
		}
		if r.Prefix != "" {
			w, err := PrefixWords(r.Prefix)
			if err != nil {
				return nil, fmt.Errorf("read permission rules %s: rule %d: %w", path, i+1, err)
			}
			f.Rules[i].words = w
		}
	}
	return f.Rules, nil
}

// Request is a call that needs permission.
type Request struct {
	SessionID string
	CallID    string
	Tool      string
	Args      json.RawMessage
	// Title, when set, is how the question names the call.
	Title string
	// Always holds the session's "always" answers about Tool, in log order
	// (event.Permission with an always decision).
	Always []event.Permission

	// Scope is what an "always" answer covers, set by the Checker before
	// it asks: the command prefixes of a command line, or nil for the
	// whole tool. NoAlways is set when an answer cannot be scoped (a line
	// that cannot be checked or that writes to a file), or by the caller
	// when the answer holds for this request only (a plugin's own
	// question): the asker should not offer "always", and one given anyway
	// counts once.
	Scope    []string
	NoAlways bool
}

// AlwaysCovers says what an "always" answer to req covers, for the
// question: "`git status …`, `git diff …`" for a command line, the tool's
// name otherwise, "" when "always" is not offered.
func (req Request) AlwaysCovers() string {
	if req.NoAlways {
		return ""
	}
	if len(req.Scope) == 0 {
		return req.Tool
	}
	s := make([]string, len(req.Scope))
	for i, sc := range req.Scope {
		s[i] = "`" + sc + " …`"
	}
	return strings.Join(s, ", ")
}

// Asker asks the user about a call and returns their decision. It blocks
// until they answer or ctx ends (then it returns ctx.Err()).
type Asker interface {
	Ask(ctx context.Context, req Request) (event.Decision, error)
}

// Verdict is the checker's answer.
type Verdict struct {
	Decision event.Decision
	// Source is who decided: rule, mode, session (an earlier "always"
	// answer) or user.
	Source string
	// Reason is the model-visible reason of a rejection, "" for the
	// default "permission denied by user".
	Reason string
	// Scope is what the user's "always" answer covers (see
	// Request.Scope); the caller records it with the decision.
	Scope []string
}

// Checker applies a policy and asks its Asker when the policy says ask.
type Checker struct {
	Policy Policy
	// Asker may be nil: nobody can be asked, and ask means reject.
	Asker Asker
}

// Check decides on one call: deny rules first, then the session's "always
// reject" answers, then (for a line that can be checked) ask rules, the
// session's "always allow" answers and allow rules, then the mode.
func (c Checker) Check(ctx context.Context, req Request) (Verdict, error) {
	d := c.Policy.decide(req.Tool, req.Args, req.Always)
	switch d.action {
	case Allow:
		if d.source == "session" {
			return Verdict{Decision: event.AllowAlways, Source: d.source}, nil
		}
		return Verdict{Decision: event.AllowOnce, Source: d.source}, nil
	case Deny:
		if d.source == "session" {
			return Verdict{Decision: event.RejectAlways, Source: d.source}, nil
		}
		reason := fmt.Sprintf("permission denied by the rule %s in %s", d.rule, c.fileName())
		if d.cmd != "" {
			reason += fmt.Sprintf(" (it matches the command %s)", d.cmd)
		}
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: reason}, nil
	}
	if c.Asker == nil {
		reason := fmt.Sprintf("permission denied: %s needs permission and there is no one to ask; "+
			"the user can run with --yes (or HARNESS_PERMISSION=allow-all) or allow it in %s", req.Tool, c.fileName())
		if d.unknown != "" {
			reason = fmt.Sprintf("permission denied: the permission rules in %s cannot be applied to this command line (%s) "+
				"and there is no one to ask; spell out every command name and its arguments", c.fileName(), d.unknown)
		}
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: reason}, nil
	}
	req.Scope, req.NoAlways = d.scope, d.noAlways || req.NoAlways
	dec, err := c.Asker.Ask(ctx, req)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Decision: dec, Source: "user"}
	switch dec {
	case event.AllowAlways, event.RejectAlways:
		switch {
		case req.NoAlways && dec == event.AllowAlways:
			v.Decision = event.AllowOnce
		case req.NoAlways:
			v.Decision = event.RejectOnce
		default:
			v.Scope = req.Scope
		}
	}
	return v, nil
}

func (c Checker) fileName() string {
	if c.Policy.File == "" {
		return "the permission rules file"
	}
	return c.Policy.File
}
