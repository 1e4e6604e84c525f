package permission

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/harness-dev/harness/host/shorten"
)

// Limits of the analysis: a line nested deeper, or running more commands,
// is unknown.
const (
	maxDepth = 16
	maxCmds  = 4096
)

// Word is one word of a simple command.
type Word struct {
	// Text is the word after quote removal; meaningful only when Known.
	Text string
	// Known is false when the word is computed when the line runs: a
	// parameter or command substitution, a glob, a brace expansion.
	Known bool
	// input is set when the word names the output of a process (<( )):
	// a shell or source reading it runs what that process prints.
	input bool
	// home is, for a word not Known only because it starts with $HOME or
	// ${HOME} (followed by literal text), the word with "~" in its place:
	// a path the protected-path check can still follow.
	home string
}

// Cmd is one simple command a line would run.
type Cmd struct {
	Words []Word
	// Assigns is set when the command runs with variables set for it
	// (FOO=1 cmd, env FOO=1 cmd) or sets shell variables (FOO=1 alone,
	// a for loop's variable): such a command is never allowed by an allow
	// rule or an "always" answer of its own.
	Assigns bool
	// Via is the index of the command that runs this one (a wrapper such
	// as env or sudo, a shell's -c string, eval), -1 for none.
	Via int
	// At is the index of the first word of Via's command this command
	// comes from.
	At int
	// Whole is set when this command was parsed out of Via's words from
	// At to the end (a -c string, eval's arguments): a rule covers it
	// through Via only by naming all of those words.
	Whole bool
}

// Name is the command's base name: /bin/rm and ./rm are rm.
func (c Cmd) Name() string {
	if len(c.Words) == 0 {
		return ""
	}
	return baseName(c.Words[0].Text)
}

// String shows the command as words, "…" for a word not known.
func (c Cmd) String() string {
	if len(c.Words) == 0 {
		return "(variable assignment)"
	}
	s := make([]string, len(c.Words))
	for i, w := range c.Words {
		s[i] = quoteWord(w)
	}
	return strings.Join(s, " ")
}

func quoteWord(w Word) string {
	if !w.Known {
		return "…"
	}
	if q, err := syntax.Quote(w.Text, syntax.LangBash); err == nil {
		return q
	}
	return fmt.Sprintf("%q", w.Text)
}

func baseName(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Line is what a shell command line would run, as far as can be told
// without running it.
type Line struct {
	// Cmds are the simple commands, in the order they were found.
	Cmds []Cmd
	// Unknown says why the line cannot be fully known, "" when it can.
	Unknown string
	// Writes is set when the line redirects output to a file other than
	// /dev/null, /dev/stdout or /dev/stderr.
	Writes bool
	// Targets are the files those redirections write to.
	Targets []Word
}

// ParseLine finds every simple command a bash command line would run:
// after ; && || | &, in $( ), backticks and <( ), in subshells, groups,
// if/while/for/case bodies and functions, behind assignments and the
// wrappers env, command, exec, builtin, time, timeout, nice, ionice,
// nohup, stdbuf, xargs, sudo, doas, setsid, chroot, busybox, watch and
// find -exec, and in the strings run by bash/sh/zsh/dash/ksh -c and eval
// (recursively, to a bounded depth: a line nested deeper is unknown).
func ParseLine(src string) Line {
	a := analyzer{}
	a.parse(src, 0, -1, 0)
	if a.unknown != "" {
		a.line.Unknown = a.unknown
	}
	return a.line
}

type analyzer struct {
	line    Line
	unknown string
}

func (a *analyzer) fail(format string, args ...any) {
	if a.unknown == "" {
		a.unknown = fmt.Sprintf(format, args...)
	}
}

func (a *analyzer) add(c Cmd) int {
	a.line.Cmds = append(a.line.Cmds, c)
	return len(a.line.Cmds) - 1
}

// parse parses src, which command via (at word at) runs, and adds its
// commands.
func (a *analyzer) parse(src string, depth, via, at int) {
	if depth > maxDepth {
		a.fail("commands are nested more than %d levels deep", maxDepth)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.fail("it is not a command line bash can parse (%s)", shorten.FirstLine(err.Error()))
		return
	}
	a.walk(f, depth, via, at)
}

func (a *analyzer) walk(node syntax.Node, depth, via, at int) {
	syntax.Walk(node, func(n syntax.Node) bool {
		if a.unknown != "" {
			return false
		}
		if len(a.line.Cmds) > maxCmds {
			a.fail("it runs more than %d commands", maxCmds)
			return false
		}
		switch n := n.(type) {
		case *syntax.Redirect:
			if writes(n) {
				a.line.Writes = true
				a.line.Targets = append(a.line.Targets, wordOf(n.Word))
			}
		case *syntax.Assign:
			if n.Name != nil && !n.Naked && codeVar(n.Name.Value) {
				a.fail("it sets %s, whose value bash runs as commands", n.Name.Value)
			} else if n.Naked && n.Name == nil {
				if w := wordOf(n.Value); !w.Known || codeVar(strings.SplitN(w.Text, "=", 2)[0]) {
					a.fail("it exports a variable bash may run as commands")
				}
			}
		case *syntax.ParamExp:
			if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P") {
				a.fail("${…@P} runs the commands in a variable's value")
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				if len(n.Assigns) > 0 {
					a.add(Cmd{Assigns: true, Via: via, At: at, Whole: via >= 0})
				}
				return true
			}
			a.command(words(n.Args), len(n.Assigns) > 0, depth, via, at, via >= 0, false)
		case *syntax.DeclClause:
			ws := []Word{{Text: n.Variant.Value, Known: true}}
			for _, as := range n.Args {
				ws = append(ws, assignWord(as))
			}
			a.add(Cmd{Words: ws, Via: via, At: at, Whole: via >= 0})
		case *syntax.WordIter: // for NAME in …: sets a shell variable
			a.add(Cmd{Assigns: true, Via: via, At: at, Whole: via >= 0})
		}
		return true
	})
}

// writes reports whether r sends output to a file that is not a device
// harmless to write to.
func writes(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		w := wordOf(r.Word)
		return !w.Known || strings.Trim(w.Text, "0123456789-") != ""
	default:
		return false
	}
	w := wordOf(r.Word)
	switch {
	case !w.Known:
		return true
	case w.Text == "/dev/null", w.Text == "/dev/stdout", w.Text == "/dev/stderr":
		return false
	}
	return true
}

func assignWord(as *syntax.Assign) Word {
	switch {
	case as.Naked && as.Name == nil:
		return wordOf(as.Value)
	case as.Naked:
		return Word{Text: as.Name.Value, Known: true}
	case as.Array != nil || as.Index != nil || as.Name == nil:
		return Word{}
	}
	v := Word{Known: true}
	if as.Value != nil {
		v = wordOf(as.Value)
	}
	op := "="
	if as.Append {
		op = "+="
	}
	return Word{Text: as.Name.Value + op + v.Text, Known: v.Known}
}

func words(ws []*syntax.Word) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = wordOf(w)
	}
	return out
}

// wordOf removes the quotes of w when it is a literal.
func wordOf(w *syntax.Word) Word {
	if w == nil {
		return Word{}
	}
	var b strings.Builder
	home := false
	for i, p := range w.Parts {
		if i == 0 && homeParam(p) {
			b.WriteString("~")
			home = true
			continue
		}
		switch p := p.(type) {
		case *syntax.Lit:
			if !unquoted(&b, p.Value) {
				return Word{}
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.ContainsRune(p.Value, '\\') {
				return Word{} // $'…' escapes: not worth decoding
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return Word{}
			}
			for j, q := range p.Parts {
				if i == 0 && j == 0 && homeParam(q) {
					b.WriteString("~")
					home = true
					continue
				}
				l, ok := q.(*syntax.Lit)
				if !ok {
					return Word{}
				}
				doubleQuoted(&b, l.Value)
			}
		case *syntax.ProcSubst:
			return Word{input: true}
		default:
			return Word{}
		}
	}
	if home {
		return Word{home: b.String()}
	}
	return Word{Text: b.String(), Known: true}
}

// homeParam reports whether p is $HOME or ${HOME}, nothing more.
func homeParam(p syntax.WordPart) bool {
	pe, ok := p.(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "HOME" && !pe.Excl && !pe.Length && !pe.Width &&
		pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && pe.Names == 0
}

// unquoted writes an unquoted literal after backslash removal; it returns
// false when the literal is a pattern the shell expands (a glob or a brace
// expansion).
func unquoted(b *strings.Builder, s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
		case '*', '?', '[', '{':
			return false
		default:
			b.WriteByte(c)
		}
	}
	return true
}

func doubleQuoted(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(c)
	}
}

// command adds the simple command ws and, when it runs another command,
// that one too. appended is set when more arguments are added when it runs
// (xargs): a wrapper then always runs something.
func (a *analyzer) command(ws []Word, assigns bool, depth, via, at int, whole, appended bool) {
	if depth > maxDepth {
		a.fail("commands are nested more than %d levels deep", maxDepth)
		return
	}
	if len(ws) == 0 {
		if appended {
			a.fail("xargs builds the command from its input")
		}
		return
	}
	if ws[0].Known && ws[0].Text == "--" && len(ws) > 1 {
		ws = ws[1:] // time -- cmd
	}
	if !ws[0].Known {
		a.fail("a command name is computed when the line runs")
		return
	}
	if strings.Contains(ws[0].Text, "{}") && appended {
		a.fail("xargs builds the command from its input")
		return
	}
	self := a.add(Cmd{Words: ws, Assigns: assigns, Via: via, At: at, Whole: whole})
	args := ws[1:]
	inner := func(spec optSpec) ([]Word, bool, map[string]bool, bool) {
		rest, setsVars, seen, ok := spec.skip(args)
		if !ok {
			a.fail("%s has options that cannot be read", ws[0].Text)
		}
		return rest, setsVars, seen, ok
	}
	// wrap runs the command that starts at rest inside ws.
	wrap := func(rest []Word, setsVars bool) {
		a.command(rest, setsVars, depth+1, self, len(ws)-len(rest), false, appended)
	}
	switch name := baseName(ws[0].Text); name {
	case "env":
		for _, w := range args {
			if n, _, ok := strings.Cut(w.Text, "="); w.Known && ok && codeVar(n) {
				a.fail("env sets %s, whose value bash runs as commands", n)
				return
			}
		}
		if rest, sv, _, ok := inner(envSpec); ok {
			wrap(rest, sv)
		}
	case "command":
		if rest, _, seen, ok := inner(optSpec{flags: "pvV"}); ok && !seen["v"] && !seen["V"] {
			wrap(rest, false)
		}
	case "exec":
		if rest, _, _, ok := inner(optSpec{flags: "cl", args: "a"}); ok {
			wrap(rest, false)
		}
	case "builtin", "nohup", "busybox":
		rest := args
		if len(rest) > 0 && rest[0].Known && rest[0].Text == "--" {
			rest = rest[1:]
		}
		wrap(rest, false)
	case "time":
		if rest, _, _, ok := inner(timeSpec); ok {
			wrap(rest, false)
		}
	case "timeout":
		if rest, _, _, ok := inner(timeoutSpec); ok {
			wrap(rest, false)
		}
	case "nice":
		if rest, _, _, ok := inner(niceSpec); ok {
			wrap(rest, false)
		}
	case "ionice":
		if rest, _, seen, ok := inner(ioniceSpec); ok && !seen["p"] && !seen["P"] && !seen["u"] && !seen["pid"] && !seen["pgid"] && !seen["uid"] {
			wrap(rest, false)
		}
	case "stdbuf":
		if rest, _, _, ok := inner(stdbufSpec); ok {
			wrap(rest, false)
		}
	case "setsid":
		if rest, _, _, ok := inner(setsidSpec); ok {
			wrap(rest, false)
		}
	case "chroot":
		if rest, _, _, ok := inner(chrootSpec); ok {
			if len(rest) == 0 {
				a.fail("chroot with no command runs a shell that reads its input")
				return
			}
			wrap(rest, false)
		}
	case "xargs":
		rest, _, seen, ok := inner(xargsSpec)
		if !ok {
			return
		}
		if seen["I"] || seen["i"] || seen["replace"] {
			a.fail("xargs -I builds the command from its input")
			return
		}
		if len(rest) == 0 {
			return // runs echo
		}
		a.command(rest, false, depth+1, self, len(ws)-len(rest), false, true)
	case "sudo", "doas":
		spec := sudoSpec
		if name == "doas" {
			spec = doasSpec
		}
		rest, sv, seen, ok := inner(spec)
		if !ok {
			return
		}
		if seen["s"] || seen["i"] || seen["shell"] || seen["login"] {
			if len(rest) == 0 {
				a.fail("%s -s runs a shell that reads its input", name)
				return
			}
			a.script(rest, depth, self, len(ws)-len(rest))
			return
		}
		wrap(rest, sv)
	case "watch":
		rest, _, seen, ok := inner(watchSpec)
		if !ok {
			return
		}
		if seen["x"] || seen["exec"] {
			wrap(rest, false)
			return
		}
		a.script(rest, depth, self, len(ws)-len(rest))
	case "alias":
		for _, w := range args {
			if !w.Known || strings.Contains(w.Text, "=") {
				a.fail("alias defines a command name the line may run")
				return
			}
		}
	case "hash":
		for _, w := range args {
			if !w.Known || strings.HasPrefix(w.Text, "-") && strings.Contains(w.Text, "p") {
				a.fail("hash -p names the program a command name runs")
				return
			}
		}
	case "trap":
		rest := args
		if len(rest) > 0 && rest[0].Known && rest[0].Text == "--" {
			rest = rest[1:]
		}
		// trap ACTION SIGNAL…: bash runs ACTION as a command line.
		if len(rest) >= 2 && !(rest[0].Known && strings.HasPrefix(rest[0].Text, "-")) {
			a.script(rest[:1], depth, self, len(ws)-len(rest))
		}
	case "mapfile", "readarray":
		a.callback(ws, depth, self, "dnOsuCc")
	case "compgen":
		a.callback(ws, depth, self, "oAGWFCXPS")
	case "source", ".":
		rest := args
		if len(rest) > 0 && rest[0].Known && rest[0].Text == "--" {
			rest = rest[1:]
		}
		if len(rest) > 0 && reads(rest[0]) {
			a.fail("%s reads the commands it runs from its input", name)
		}
	case "eval":
		rest := args
		if len(rest) > 0 && rest[0].Known && rest[0].Text == "--" {
			rest = rest[1:]
		}
		a.script(rest, depth, self, len(ws)-len(rest))
	case "find":
		a.find(ws, depth, self)
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "posh", "yash", "rbash":
		a.shell(ws, depth, self, appended)
	case "fish", "csh", "tcsh", "pwsh", "nu", "elvish", "xonsh":
		a.fail("%s commands cannot be checked", name)
	}
}

// script parses the words ws (of command via, from word at) joined by
// spaces as a command line, as eval does.
func (a *analyzer) script(ws []Word, depth, via, at int) {
	s := make([]string, len(ws))
	for i, w := range ws {
		if !w.Known {
			a.fail("the command run by %s is computed when the line runs", a.line.Cmds[via].Name())
			return
		}
		s[i] = w.Text
	}
	a.parse(strings.Join(s, " "), depth+1, via, at)
}

// shell handles bash/sh/… : -c strings are parsed; a script file is
// opaque; commands read from the input are unknown.
func (a *analyzer) shell(ws []Word, depth, self int, appended bool) {
	cflag, sflag := false, false
	i := 1
options:
	for ; i < len(ws); i++ {
		w := ws[i]
		if !w.Known {
			a.fail("a shell option is computed when the line runs")
			return
		}
		t := w.Text
		switch {
		case t == "--" || t == "-":
			i++
			break options
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'o', 'O':
					if j == len(t)-1 {
						i++
					}
				}
			}
		default:
			break options
		}
	}
	rest := ws[min(i, len(ws)):]
	switch {
	case cflag && len(rest) == 0:
		a.fail("%s -c has no command string", ws[0].Text)
	case cflag:
		if !rest[0].Known {
			a.fail("the command string of %s -c is computed when the line runs", ws[0].Text)
			return
		}
		a.parse(rest[0].Text, depth+1, self, i)
	case sflag || len(rest) == 0 || appended || reads(rest[0]):
		a.fail("%s reads the commands it runs from its input", ws[0].Text)
	}
	// otherwise it runs a script file: opaque
}

// reads reports whether a script file a shell or source runs is a process's
// output or the input: <( ), /dev/stdin, /dev/fd/N, /proc/self/fd/N.
func reads(file Word) bool {
	if !file.Known {
		return file.input
	}
	p := path.Clean(file.Text)
	return strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/")
}

// codeVar reports whether bash runs the value of the variable name as
// commands: the file BASH_ENV and ENV name (after expanding it), the
// prompts (PS4 with set -x), PROMPT_COMMAND, and exported functions.
func codeVar(name string) bool {
	switch name {
	case "BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND":
		return true
	}
	return strings.HasPrefix(name, "BASH_FUNC_")
}

// callback parses the argument of the -C option of ws (mapfile, compgen),
// a command line bash runs, as eval does; withArg lists the options that
// take an argument.
func (a *analyzer) callback(ws []Word, depth, self int, withArg string) {
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.Known {
			a.fail("an option of %s is computed when the line runs", ws[0].Text)
			return
		}
		t := w.Text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			return
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte(withArg, t[j]) < 0 {
				continue
			}
			opt := t[j]
			arg := Word{Text: t[j+1:], Known: true}
			if j == len(t)-1 {
				i++
				if i >= len(ws) {
					return
				}
				arg = ws[i]
			}
			if opt == 'C' {
				a.script([]Word{arg}, depth, self, i)
			}
			break
		}
	}
}

// find handles -exec, -execdir, -ok and -okdir.
func (a *analyzer) find(ws []Word, depth, self int) {
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.Known || (w.Text != "-exec" && w.Text != "-execdir" && w.Text != "-ok" && w.Text != "-okdir") {
			continue
		}
		j := i + 1
		for j < len(ws) && !(ws[j].Known && (ws[j].Text == ";" || ws[j].Text == "+")) {
			j++
		}
		sub := ws[i+1 : j]
		if len(sub) > 0 && sub[0].Known && strings.Contains(sub[0].Text, "{}") {
			a.fail("find runs the files it finds")
			return
		}
		a.command(sub, false, depth+1, self, i+1, false, false)
		i = j
	}
}

// optSpec describes a wrapper's options, enough to find the command it runs.
type optSpec struct {
	flags string // short options without an argument
	args  string // short options with an argument
	// long options: true when the option takes an argument (given as
	// --opt=x or --opt x), false when it takes none or only --opt=x.
	long map[string]bool
	// assigns: NAME=val operands may come before the command (env, sudo).
	assigns bool
	// operands before the command (timeout's duration, chroot's root).
	operands int
}

// skip returns the words after the wrapper's options and operands, whether
// NAME=val operands set variables, the short options seen; ok is false
// when an option is unknown or computed when the line runs.
func (s optSpec) skip(ws []Word) (rest []Word, setsVars bool, seen map[string]bool, ok bool) {
	seen = map[string]bool{}
	i := 0
options:
	for ; i < len(ws); i++ {
		w := ws[i]
		if !w.Known {
			return nil, false, nil, false
		}
		t := w.Text
		switch {
		case t == "--":
			i++
			break options
		case strings.HasPrefix(t, "--"):
			name, _, hasValue := strings.Cut(t[2:], "=")
			takes, known := s.long[name]
			if !known {
				return nil, false, nil, false
			}
			seen[name] = true
			if takes && !hasValue {
				i++
			}
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				c := t[j]
				seen[string(c)] = true
				if strings.IndexByte(s.flags, c) >= 0 {
					continue
				}
				if strings.IndexByte(s.args, c) >= 0 {
					if j == len(t)-1 {
						i++
					}
					break
				}
				return nil, false, nil, false
			}
		default:
			break options
		}
	}
	if i > len(ws) {
		return nil, false, seen, true // an option's argument is missing
	}
	if s.assigns {
		for ; i < len(ws); i++ {
			if !ws[i].Known {
				return nil, false, nil, false
			}
			if !isAssignment(ws[i].Text) {
				break
			}
			setsVars = true
		}
	}
	i += s.operands
	if i >= len(ws) {
		return nil, setsVars, seen, true
	}
	return ws[i:], setsVars, seen, true
}

// isAssignment reports whether env or sudo takes s as a NAME=value
// operand: any word with "=" in it, whatever the name (env 'a-b=1' rm x
// sets a-b and runs rm).
func isAssignment(s string) bool {
	return strings.Contains(s, "=")
}

var (
	envSpec = optSpec{flags: "i0v", args: "uC", assigns: true, long: map[string]bool{
		"ignore-environment": false, "null": false, "unset": true, "chdir": true, "debug": false,
		"block-signal": false, "default-signal": false, "ignore-signal": false, "list-signal-handling": false}}
	timeSpec = optSpec{flags: "pavqV", args: "fo", long: map[string]bool{
		"format": true, "output": true, "append": false, "verbose": false, "portability": false, "quiet": false}}
	timeoutSpec = optSpec{flags: "v", args: "sk", operands: 1, long: map[string]bool{
		"signal": true, "kill-after": true, "preserve-status": false, "foreground": false, "verbose": false}}
	niceSpec   = optSpec{flags: "0123456789", args: "n", long: map[string]bool{"adjustment": true}}
	ioniceSpec = optSpec{flags: "t", args: "cnpPu", long: map[string]bool{
		"class": true, "classdata": true, "pid": true, "pgid": true, "uid": true, "ignore": false}}
	stdbufSpec = optSpec{args: "ioe", long: map[string]bool{"input": true, "output": true, "error": true}}
	setsidSpec = optSpec{flags: "cfw", long: map[string]bool{"ctty": false, "fork": false, "wait": false}}
	chrootSpec = optSpec{operands: 1, long: map[string]bool{"userspec": true, "groups": true, "skip-chdir": false}}
	xargsSpec  = optSpec{flags: "0prtxi", args: "adEILnPs", long: map[string]bool{
		"null": false, "arg-file": true, "delimiter": true, "eof": false, "replace": false, "max-lines": false,
		"max-args": true, "max-procs": true, "interactive": false, "no-run-if-empty": false, "max-chars": true,
		"verbose": false, "exit": false, "show-limits": false, "open-tty": false, "process-slot-var": true}}
	sudoSpec = optSpec{flags: "AbEHiKklnPSsVv", args: "CDghprtTuU", assigns: true, long: map[string]bool{
		"askpass": false, "background": false, "close-from": true, "chdir": true, "preserve-env": false,
		"edit": false, "group": true, "set-home": false, "host": true, "login": false, "remove-timestamp": false,
		"reset-timestamp": false, "list": false, "non-interactive": false, "preserve-groups": false,
		"prompt": true, "chroot": true, "role": true, "stdin": false, "shell": false, "type": true,
		"command-timeout": true, "other-user": true, "user": true}}
	doasSpec  = optSpec{flags: "ns", args: "uC"}
	watchSpec = optSpec{flags: "bcdegtxprwfC", args: "nq", long: map[string]bool{
		"interval": true, "differences": false, "beep": false, "errexit": false, "chgexit": false,
		"no-title": false, "exec": false, "precise": false, "color": false, "no-wrap": false, "equexit": true}}
)
