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
// command starts with Prefix.
type Rule struct {
	Tool   string `json:"tool"`
	Prefix string `json:"prefix,omitempty"`
	Action Action `json:"action"`
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
	}
	return f.Rules, nil
}

// Decide returns what the policy says about a call to tool with args, and
// the rule that said it (nil when the mode decided).
func (p Policy) Decide(tool string, args json.RawMessage) (Action, *Rule) {
	var command string
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Tool != tool {
			continue
		}
		if r.Prefix != "" {
			if command == "" {
				command = Command(args)
			}
			if !strings.HasPrefix(command, r.Prefix) {
				continue
			}
		}
		return r.Action, r
	}
	if p.Mode == ModeAllowAll {
		return Allow, nil
	}
	return Ask, nil
}

// Command returns the trimmed "command" argument of a call, "" if none.
func Command(args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	return strings.TrimSpace(a.Command)
}

// Request is a call that needs permission.
type Request struct {
	SessionID string
	CallID    string
	Tool      string
	Args      json.RawMessage
	// Title, when set, is how the question names the call.
	Title string
}

// Asker asks the user about a call and returns their decision. It blocks
// until they answer or ctx ends (then it returns ctx.Err()).
type Asker interface {
	Ask(ctx context.Context, req Request) (event.Decision, error)
}

// Verdict is the checker's answer.
type Verdict struct {
	Decision event.Decision
	// Source is who decided: rule, mode or user.
	Source string
	// Reason is the model-visible reason of a rejection, "" for the
	// default "permission denied by user".
	Reason string
}

// Checker applies a policy and asks its Asker when the policy says ask.
type Checker struct {
	Policy Policy
	// Asker may be nil: nobody can be asked, and ask means reject.
	Asker Asker
}

// Check decides on one call.
func (c Checker) Check(ctx context.Context, req Request) (Verdict, error) {
	action, rule := c.Policy.Decide(req.Tool, req.Args)
	source := "mode"
	if rule != nil {
		source = "rule"
	}
	switch action {
	case Allow:
		return Verdict{Decision: event.AllowOnce, Source: source}, nil
	case Deny:
		return Verdict{Decision: event.RejectOnce, Source: source,
			Reason: fmt.Sprintf("permission denied by the rule %s in %s", rule, c.Policy.File)}, nil
	}
	if c.Asker == nil {
		return Verdict{Decision: event.RejectOnce, Source: source,
			Reason: fmt.Sprintf("permission denied: %s needs permission and there is no one to ask; "+
				"the user can run with --yes (or HARNESS_PERMISSION=allow-all) or allow it in %s", req.Tool, c.fileName())}, nil
	}
	d, err := c.Asker.Ask(ctx, req)
	if err != nil {
		return Verdict{}, err
	}
	return Verdict{Decision: d, Source: "user"}, nil
}

func (c Checker) fileName() string {
	if c.Policy.File == "" {
		return "the permission rules file"
	}
	return c.Policy.File
}
