package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/ownership"
	"github.com/harness-dev/harness/host/shorten"
)

// Mode is a session's permission mode: what happens to a call no rule and
// no "always" answer decides (see the package doc).
type Mode string

// Modes, from the most to the least careful.
const (
	ModeReadOnly    Mode = "read-only"
	ModeAsk         Mode = "ask"
	ModeAcceptEdits Mode = "accept-edits"
	// ModeAuto runs what the sandbox holds without asking: reads, edits
	// inside the cwd, and commands that run in an enforced sandbox
	// (Request.Sandboxed); it asks the rest, and always asks to leave the
	// sandbox (Request.Escalate). The caller must refuse it where the
	// sandbox cannot hold it (see the package doc).
	ModeAuto     Mode = "auto"
	ModeAllowAll Mode = "allow-all"
)

// ModeInfo describes a mode for a user choosing one (ACP session modes).
type ModeInfo struct {
	ID          Mode
	Name        string
	Description string
}

// Modes lists the modes, from the most to the least careful.
func Modes() []ModeInfo {
	return []ModeInfo{
		{ModeReadOnly, "Read-only", "Reads and searches run; edits, commands and every other tool that needs permission are refused."},
		{ModeAsk, "Ask", "Reads and searches run; edits and commands ask first."},
		{ModeAcceptEdits, "Accept edits", "Edits inside the project run without asking; commands, anything outside the project and protected files (.git, .vscode, harness's own config) ask first."},
		{ModeAuto, "Auto (sandboxed)", "Reads, edits inside the project and commands run without asking, because commands run in the sandbox; " +
			"a command asking to run outside the sandbox, other tools, anything outside the project and protected files ask first. Needs an enforced sandbox."},
		{ModeAllowAll, "Allow all", "Every tool call runs without asking, protected files (.git, harness's own config) included; deny rules still apply."},
	}
}

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeReadOnly, ModeAsk, ModeAcceptEdits, ModeAuto, ModeAllowAll:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use read-only, ask, accept-edits, auto or allow-all", s)
}

// Tool kinds the modes treat apart (ACP's ToolKind vocabulary).
const (
	KindRead   = "read"
	KindSearch = "search"
	KindThink  = "think"
	KindEdit   = "edit"
	KindDelete = "delete"
	KindMove   = "move"
)

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
	// Protected are harness's own files and folders (absolute paths): its
	// config folder and file, the permission rules, mcp.json, the state
	// folder, the plugin folders and their lock files. A call that may
	// write to one of them, or to a path through .git, .mcp.json, .vscode,
	// .idea or .zed, is asked in every mode but allow-all, and no rule or
	// "always" answer allows it (see the package doc, Protected paths).
	Protected []string
}

// LoadRules reads the rules file at path. A missing file means no rules;
// a file another user could have written (owned by a user other than this
// one or root, or writable by group or others) is refused with an
// *ownership.Error.
func LoadRules(path string) ([]Rule, error) {
	b, err := ownership.ReadFile("permission rules", path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, ownership.ErrUntrusted) {
		return nil, err // one line naming file, owner, mode and fix
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
	// Kind is the tool's kind (ACP ToolKind: read, edit, search, execute,
	// think, …; "" when unknown). Cwd is the session's working folder: an
	// edit's file_path is resolved against it.
	Kind string
	Cwd  string
	// Always holds the session's "always" answers about Tool, in log order
	// (event.Permission with an always decision).
	Always []event.Permission
	// AlwaysKind holds the session's "always" answers about every call of
	// Kind (event.Permission.Kind), in log order.
	AlwaysKind []event.Permission
	// Once marks a plugin's own question about its running call (fs asking
	// before it reaches outside the project): the answer holds for this
	// request only, and only allow-all answers it without asking.
	Once bool
	// Sandboxed, set by the caller, says the call runs inside an enforced
	// sandbox (the bash plugin's command under workspace-write or
	// read-only): auto mode runs it without asking, deny and ask rules
	// still apply.
	Sandboxed bool
	// Escalate, set by the caller, says the call asks to run outside the
	// sandbox it would run in (bash's sandbox: "off"), for the reason
	// Justification (the model's words, one line). It is a protected
	// question in every mode but allow-all, refused in read-only.
	Escalate      bool
	Justification string

	// Scope is what an "always" answer covers, set by the Checker before
	// it asks: the command prefixes of a command line, or nil for the
	// whole tool. NoAlways is set when an answer cannot be scoped (a line
	// that cannot be checked or that writes to a file), or by the caller
	// when the answer holds for this request only (a plugin's own
	// question): the asker should not offer "always", and one given anyway
	// counts once.
	Scope    []string
	NoAlways bool
	// ScopeKind, set by the Checker, says that an "always" answer covers
	// every call of this kind in the session (edit: "edits in this
	// session"), not the tool alone.
	ScopeKind string
	// Protected, set by the Checker, is the path argument of the call
	// that names a protected path, and ProtectedWhy says why it is
	// protected: the question should say so, and that it offers no
	// "always" (NoAlways is set).
	Protected    string
	ProtectedWhy string
}

// whyOnce is why a plugin's own question (Request.Once) is protected.
const whyOnce = "the plugin asks about it for this call only (fs asks so about a path outside the project)"

// onceTarget names what a plugin's own question is about: the call's
// first path argument, else "this call".
func onceTarget(args json.RawMessage) string {
	if ps := pathArgs(args); len(ps) > 0 {
		return ps[0]
	}
	return "this call"
}

// whyEscalate is why a call asking to leave the sandbox is protected.
const whyEscalate = "it asks to run outside the sandbox"

// ProtectedNote says, for the question, that the call touches a protected
// path, why, and why "always" is not offered; for a call asking to run
// outside the sandbox, that and its justification; "" for a call that
// does neither. It is the model's and the user's words: show it filtered
// (host/termsafe).
func (req Request) ProtectedNote() string {
	if req.Escalate {
		return fmt.Sprintf("%s asks to run OUTSIDE the sandbox, with your rights (writes anywhere, the network): %q. "+
			"\"Always\" is not offered: an answer allows or rejects this call only.", req.Tool, shorten.OneLine(req.Justification))
	}
	if req.Protected == "" {
		return ""
	}
	return fmt.Sprintf("%s is protected: %s. \"Always\" is not offered: an answer allows or rejects this call only, "+
		"and only allow-all mode runs such calls without asking.", req.Protected, req.ProtectedWhy)
}

// AlwaysCovers says what an "always" answer to req covers, for the
// question: "`git status …`, `git diff …`" for a command line, "edits in
// this session" for an edit, the tool's name otherwise, "" when "always"
// is not offered.
func (req Request) AlwaysCovers() string {
	if req.NoAlways {
		return ""
	}
	if req.ScopeKind != "" {
		return req.ScopeKind + "s in this session"
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
	// Source is who decided: a rule, the mode, the session (an earlier
	// "always" answer), the user, or protected (a call touching a
	// protected path refused with nobody to ask).
	Source event.Source
	// Reason is the model-visible reason of a rejection, "" for the
	// default "permission denied by user".
	Reason string
	// Scope is what the user's "always" answer covers (see
	// Request.Scope); the caller records it with the decision. Kind, on a
	// user's "always" answer about an edit, says it covers every call of
	// that kind (event.Permission.Kind).
	Scope []string
	Kind  string
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
	mode := c.Policy.Mode
	if mode == "" {
		mode = ModeAsk
	}
	// An edit inside the cwd is what accept-edits and an "always allow
	// edits" answer cover; outside it, only a rejection of edits applies.
	edit := req.Kind == KindEdit && !req.Once
	inside := edit && insideCwd(req.Cwd, req.Args)
	// A call that may write to a protected path: only allow-all runs it
	// unasked; rules and "always" answers may reject it, never allow it.
	// (A plugin's own question about its running call is asked anyway.)
	if mode != ModeReadOnly && !req.Once && !readKind(req.Kind) {
		req.Protected, req.ProtectedWhy = c.Policy.protectedTarget(req.Kind, req.Cwd, req.Args)
	}
	// A plugin's own question (fs reaching outside the project) is a
	// protected one too: no allow rule or "always" answers it; and so is
	// a call asking to leave the sandbox.
	if req.Once && req.Protected == "" {
		req.Protected, req.ProtectedWhy = onceTarget(req.Args), whyOnce
	}
	if req.Escalate {
		req.Sandboxed = false
		if req.Protected == "" {
			req.Protected, req.ProtectedWhy = "this command", whyEscalate
		}
	}
	protected := req.Protected != ""
	always := req.Always
	if edit {
		for _, g := range req.AlwaysKind {
			if inside || g.Decision == event.RejectAlways {
				always = append(always, g)
			}
		}
	}
	p := c.Policy
	switch {
	case mode == ModeAllowAll:
		p.Mode = ModeAllowAll
	case mode == ModeAcceptEdits && inside && !protected:
		p.Mode = ModeAllowAll
	case mode == ModeAuto && !protected && !req.Once && (inside || req.Sandboxed || readKind(req.Kind)):
		p.Mode = ModeAllowAll // rules still deny or ask
	default: // read-only, ask, accept-edits for the rest, plugins' own questions
		p.Mode = ModeAsk
	}
	d := p.decide(req.Tool, req.Args, always)
	if mode == ModeReadOnly && d.action != Deny && (req.Escalate || !req.Once && !readKind(req.Kind)) {
		return Verdict{Decision: event.RejectOnce, Source: event.SourceMode, Reason: readOnlyReason(req)}, nil
	}
	if protected && d.action == Allow && mode != ModeAllowAll {
		d = decision{action: Ask, source: event.SourceProtected}
	}
	switch d.action {
	case Allow:
		if d.source == event.SourceSession {
			return Verdict{Decision: event.AllowAlways, Source: d.source}, nil
		}
		return Verdict{Decision: event.AllowOnce, Source: d.source}, nil
	case Deny:
		if d.source == event.SourceSession {
			return Verdict{Decision: event.RejectAlways, Source: d.source}, nil
		}
		reason := fmt.Sprintf("permission denied by the rule %s in %s", d.rule, c.fileName())
		if d.cmd != "" {
			reason += fmt.Sprintf(" (it matches the command %s)", d.cmd)
		}
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: reason}, nil
	}
	if c.Asker == nil && req.Escalate {
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: fmt.Sprintf("permission denied: %s asks to run this command outside the sandbox and there is no one to ask; "+
			"no rule or earlier answer allows that. Run it inside the sandbox (without sandbox: \"off\"), or ask the user to run harness "+
			"with --mode allow-all (--yes) or --sandbox off", req.Tool)}, nil
	}
	if c.Asker == nil && req.Once {
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: fmt.Sprintf("permission denied: %s asks whether it may reach %s and there is no one to ask; "+
			"no rule or earlier answer allows that, only --yes (or HARNESS_MODE=allow-all) does", req.Tool, req.Protected)}, nil
	}
	if c.Asker == nil && protected {
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: fmt.Sprintf("permission denied: %s needs permission and there is no one to ask. "+
			"%s is protected: %s; no rule or earlier answer allows writing to it, only --yes (or HARNESS_MODE=allow-all) does",
			req.Tool, req.Protected, req.ProtectedWhy)}, nil
	}
	if c.Asker == nil {
		how := "--yes (or HARNESS_MODE=allow-all)"
		switch {
		case inside:
			how = "--mode accept-edits (edits inside the project only) or " + how
		case req.Sandboxed:
			how = "--mode auto (commands inside the sandbox only) or " + how
		}
		reason := fmt.Sprintf("permission denied: %s needs permission and there is no one to ask; "+
			"the user can run with %s or allow it in %s", req.Tool, how, c.fileName())
		if d.unknown != "" {
			reason = fmt.Sprintf("permission denied: the permission rules in %s cannot be applied to this command line (%s) "+
				"and there is no one to ask; spell out every command name and its arguments", c.fileName(), d.unknown)
		}
		return Verdict{Decision: event.RejectOnce, Source: d.source, Reason: reason}, nil
	}
	req.Scope, req.NoAlways = d.scope, d.noAlways || req.NoAlways || req.Once || protected
	switch {
	case protected:
	case inside && d.scope == nil:
		req.ScopeKind = KindEdit
	case edit:
		req.NoAlways = true // outside the project: this call only
	}
	dec, err := c.Asker.Ask(ctx, req)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Decision: dec, Source: event.SourceUser}
	switch dec {
	case event.AllowAlways, event.RejectAlways:
		switch {
		case req.NoAlways && dec == event.AllowAlways:
			v.Decision = event.AllowOnce
		case req.NoAlways:
			v.Decision = event.RejectOnce
		default:
			v.Scope, v.Kind = req.Scope, req.ScopeKind
		}
	}
	return v, nil
}

// readKind reports whether a tool of kind k only looks: read-only lets
// it run (asking as ask does, when it needs permission).
func readKind(k string) bool { return k == KindRead || k == KindSearch || k == KindThink }

// readOnlyReason is what the model is told of a call refused in
// read-only mode.
func readOnlyReason(req Request) string {
	what := req.Tool
	if req.Kind != "" {
		what += " (kind " + req.Kind + ")"
	}
	return fmt.Sprintf("the session is in read-only mode: %s was not run. Only reads and searches run in this mode; "+
		"the user can switch the session's mode (the editor's mode menu, or harness run --mode ask, accept-edits, auto or allow-all)", what)
}

// insideCwd reports whether the file_path argument of an edit names a
// path inside cwd: absolute, or relative to cwd (which must be absolute),
// without "..", its symlinks (of the part that exists) resolved. Anything
// else — no cwd, no file_path or more than one (in any case), a path that
// is not a string — is not inside.
func insideCwd(cwd string, args json.RawMessage) bool {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	var p string
	n := 0
	for k, v := range m {
		if !strings.EqualFold(k, "file_path") {
			continue
		}
		n++
		if json.Unmarshal(v, &p) != nil {
			return false
		}
	}
	if n != 1 || p == "" || strings.ContainsRune(p, 0) {
		return false
	}
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if el == ".." {
			return false
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	root, ok1 := resolveExisting(filepath.Clean(cwd))
	real, ok2 := resolveExisting(filepath.Clean(p))
	return ok1 && ok2 && real != root &&
		strings.HasPrefix(real, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// resolveExisting resolves the symlinks of the longest part of the clean
// absolute path p that exists, and appends the rest. It fails on a part
// that exists but cannot be resolved (a dangling symlink, a loop).
func resolveExisting(p string) (string, bool) {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), true
		}
		if _, err := os.Lstat(p); err == nil {
			return "", false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), true
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func (c Checker) fileName() string {
	if c.Policy.File == "" {
		return "the permission rules file"
	}
	return c.Policy.File
}
