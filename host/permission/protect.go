package permission

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// protectedNames make every path through them protected, in any folder
// and in any case: what they hold runs commands or steers the tools.
var protectedNames = map[string]string{
	".git":      "it is in a git folder (.git), whose config and hooks run commands",
	".mcp.json": "it is a project's MCP servers file (.mcp.json), which names commands harness may start",
	".vscode":   "it is in editor settings (.vscode), which can run tasks and commands",
	".idea":     "it is in editor settings (.idea), which can run tasks and commands",
	".zed":      "it is in editor settings (.zed), which can run tasks and commands",
}

// whyHarness is why a path of Policy.Protected is protected.
const whyHarness = "it is harness's own configuration or state (its permission rules, settings, MCP servers, sessions or plugins)"

// maxLinks bounds the symlinks followed resolving one path, as the
// kernel's limit does.
const maxLinks = 40

// protectedTarget returns the first path argument of a call that touches
// a protected path (see the package doc, Protected paths), and why; ""
// when none does. Relative paths are resolved against cwd. A call of kind
// delete or move also touches what a folder it names holds.
func (p Policy) protectedTarget(kind, cwd string, args json.RawMessage) (path, why string) {
	holds := kind == KindDelete || kind == KindMove
	paths := pathArgs(args)
	var words []shellWord
	if cmd, shell, _ := shellCommand(args); shell {
		words = shellPaths(ParseLine(cmd))
	}
	if len(paths) == 0 && len(words) == 0 {
		return "", ""
	}
	var roots []root
	for _, r := range p.Protected {
		if r != "" && filepath.IsAbs(r) {
			roots = append(roots, root{filepath.Clean(r), whyHarness})
		}
	}
	if cwd != "" && filepath.IsAbs(cwd) {
		roots = append(roots, gitRoots(filepath.Clean(cwd))...)
	}
	for _, a := range paths {
		if why := protectedPath(cwd, a, roots, holds); why != "" {
			return a, why
		}
	}
	// A command line's words are taken against its workdir, when the call
	// names one.
	dir := cwd
	if wd, ok := workdirArg(args); ok && wd != "" {
		if filepath.IsAbs(wd) {
			dir = wd
		} else if cwd != "" {
			dir = filepath.Join(cwd, wd)
		}
	}
	for _, w := range words {
		if why := protectedPath(dir, w.text, roots, holds || w.holds); why != "" {
			return w.text, why
		}
	}
	return "", ""
}

// maxShellWords bounds the words of one command line checked for
// protected paths; a line with more is checked as far as that.
const maxShellWords = 256

// shellWord is a word of a command line that may name a file; holds is
// set for the arguments of commands that delete or move what they name.
type shellWord struct {
	text  string
	holds bool
}

// readOnlyCommands write no file their arguments name (what they print
// may be redirected: a redirection's target is checked on its own), so
// cat .git/config or ls .git stays allowed where a rule allows cat or ls.
var readOnlyCommands = map[string]bool{
	"cat": true, "ls": true, "head": true, "tail": true, "less": true, "more": true, "wc": true,
	"stat": true, "file": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "diff": true,
	"cmp": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "readlink": true, "realpath": true,
	"du": true, "echo": true, "printf": true, "test": true, "[": true,
}

// shellPaths returns the words of a command line that may name files:
// the targets of its redirections, and every argument of every command
// the line runs but the read-only ones whose text is known (and what
// follows the = of an option such as --file=x or of=x). A protected
// path among them makes the line protected whatever the command: an allow
// rule for cp or tee must not let it write .git/hooks. git config, which
// writes .git/config without naming it, counts as naming it unless it only
// reads (--get…, --list, -l, get, list, or a key alone).
func shellPaths(l Line) []shellWord {
	var out []shellWord
	for _, w := range l.Targets {
		if t := pathText(w); t != "" {
			out = append(out, shellWord{text: t})
		}
	}
	for _, c := range l.Cmds {
		if len(c.Words) < 2 || readOnlyCommands[c.Name()] {
			continue
		}
		holds := false
		switch c.Name() {
		case "rm", "rmdir", "mv", "unlink", "shred":
			holds = true
		case "git":
			if gitConfigWrites(c.Words[1:]) {
				out = append(out, shellWord{text: ".git/config"})
			}
		}
		for _, w := range c.Words[1:] {
			t := pathText(w)
			if t == "" || len(out) >= maxShellWords {
				continue
			}
			out = append(out, shellWord{text: t, holds: holds})
			if _, v, ok := strings.Cut(t, "="); ok && v != "" {
				out = append(out, shellWord{text: v, holds: holds})
			}
		}
	}
	return out
}

// pathText is a word's text as a path: its text when known, "~/…" for one
// that starts with $HOME, "" when it is computed otherwise.
func pathText(w Word) string {
	if w.Known {
		return w.Text
	}
	return w.home
}

// gitConfigWrites reports whether git's arguments ws run a git config
// that may write a config file.
func gitConfigWrites(ws []Word) bool {
	i := 0
	for i < len(ws) && ws[i].Known && strings.HasPrefix(ws[i].Text, "-") {
		if t := ws[i].Text; t == "-C" || t == "-c" || t == "--git-dir" || t == "--work-tree" {
			i++ // its value
		}
		i++
	}
	if i >= len(ws) || !ws[i].Known || ws[i].Text != "config" {
		return false
	}
	var operands []string
	for _, w := range ws[i+1:] {
		if !w.Known {
			return true
		}
		switch t := w.Text; {
		case t == "get" || t == "list" || t == "-l" || t == "--list" || strings.HasPrefix(t, "--get"):
			return false
		case strings.HasPrefix(t, "-"):
		default:
			operands = append(operands, t)
		}
	}
	return len(operands) != 1 // one key alone reads it
}

// workdirArg returns the call's "workdir" argument, if it has one.
func workdirArg(args json.RawMessage) (string, bool) {
	var m struct {
		Workdir *string `json:"workdir"`
	}
	if json.Unmarshal(args, &m) != nil || m.Workdir == nil {
		return "", false
	}
	return *m.Workdir, true
}

// root is a protected file or folder and why it is protected.
type root struct{ path, why string }

// protectedPath says why the path argument a is protected, "" if it is
// not; with holds, a folder holding a protected path is protected too.
func protectedPath(cwd, a string, roots []root, holds bool) string {
	if strings.ContainsRune(a, 0) {
		return "" // no file has such a name: the call fails
	}
	if why := protectedName(a); why != "" {
		return why
	}
	var abs []string
	if filepath.IsAbs(a) {
		abs = append(abs, a)
	} else if cwd != "" && filepath.IsAbs(cwd) {
		abs = append(abs, cwd+string(filepath.Separator)+a) // not cleaned: realPath takes ".." after a link as the kernel does
	}
	if rest, ok := strings.CutPrefix(filepath.ToSlash(a), "~/"); ok { // a tool may expand it
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			abs = append(abs, home+string(filepath.Separator)+rest)
		}
	}
	for _, x := range abs {
		forms := []string{filepath.Clean(x)}
		real, ok := realPath(x)
		if !ok {
			return "its symlinks cannot be resolved, so where it leads cannot be checked"
		}
		forms = append(forms, real)
		rs := slices.Clip(roots)
		for _, f := range forms {
			rs = append(rs, gitRoots(filepath.Dir(f))...)
		}
		for _, f := range forms {
			if why := protectedName(f); why != "" {
				return why
			}
			if why := underRoot(f, rs, holds); why != "" {
				return why
			}
			if !holds {
				continue
			}
			if why := holdsProtected(f); why != "" {
				return why
			}
		}
	}
	return ""
}

// protectedName says why a path with a protected name among its elements
// is protected.
func protectedName(p string) string {
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if why, ok := protectedNames[strings.ToLower(el)]; ok {
			return why
		}
	}
	return ""
}

// underRoot says why f, a clean absolute path, is protected by a root: it
// is the root, inside it, or, with holds, a folder holding it (a delete
// or a move of the folder takes the root along).
func underRoot(f string, roots []root, holds bool) string {
	lf := strings.ToLower(f)
	for _, r := range roots {
		forms := []string{r.path}
		if real, ok := realPath(r.path); ok && real != r.path {
			forms = append(forms, real)
		}
		for _, rp := range forms {
			lr := strings.ToLower(rp)
			switch {
			case lf == lr || within(lf, lr):
				return r.why + " — " + rp
			case holds && within(lr, lf):
				return "it holds " + rp + ", and " + r.why
			}
		}
	}
	return ""
}

// within reports whether p is inside the folder dir (both clean, absolute).
func within(p, dir string) bool {
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// holdsProtected says why the folder p is protected when it directly
// holds an entry of a protected name (a delete or a move of a project
// takes its .git along); "" when it holds none or is no folder.
func holdsProtected(p string) string {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return ""
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if why, ok := protectedNames[strings.ToLower(e.Name())]; ok {
			return "it holds " + filepath.Join(p, e.Name()) + " and " + why
		}
	}
	return ""
}

// gitRoots returns the git folders that a .git FILE in dir or one of its
// parents points to (a worktree's or a submodule's "gitdir: …", and that
// folder's commondir), which have no .git in their path.
func gitRoots(dir string) []root {
	const why = "it is a git folder a .git file points to, whose config and hooks run commands"
	var out []root
	for {
		gf := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(gf); err == nil && fi.Mode().IsRegular() {
			if gd := readPointer(gf, "gitdir:"); gd != "" {
				if !filepath.IsAbs(gd) {
					gd = filepath.Join(dir, gd)
				}
				gd = filepath.Clean(gd)
				out = append(out, root{gd, why})
				if cd := readPointer(filepath.Join(gd, "commondir"), ""); cd != "" {
					if !filepath.IsAbs(cd) {
						cd = filepath.Join(gd, cd)
					}
					out = append(out, root{filepath.Clean(cd), why})
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// readPointer reads the first line of the small regular file path and
// returns what follows prefix on it, trimmed; "" when there is none.
func readPointer(path, prefix string) string {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if !ok {
		return ""
	}
	return strings.TrimSpace(rest)
}

// realPath resolves the absolute path p as the kernel would walk it:
// element by element, following every symlink (the last one too, and one
// that dangles: writing through it creates its target), ".." taken from
// the folder reached. The part from the first missing element on is
// appended as written (when a ".." follows, the walk goes on as if the
// element were a folder). It fails on a symlink loop or a link it cannot
// read.
func realPath(p string) (string, bool) {
	vol := filepath.VolumeName(p)
	sep := string(filepath.Separator)
	cur := vol + sep
	rest := strings.Split(filepath.ToSlash(p[len(vol):]), "/")
	links := 0
	for len(rest) > 0 {
		el := rest[0]
		rest = rest[1:]
		switch el {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, el)
		fi, err := os.Lstat(next)
		if err != nil && !slices.Contains(rest, "..") {
			return filepath.Join(append([]string{next}, rest...)...), true
		}
		if err != nil { // the kernel would fail; walk on as if it were a folder
			cur = next
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", false
		}
		t, err := os.Readlink(next)
		if err != nil || t == "" {
			return "", false
		}
		if filepath.IsAbs(t) {
			v := filepath.VolumeName(t)
			cur, t = v+sep, t[len(v):]
		}
		rest = append(strings.Split(filepath.ToSlash(t), "/"), rest...)
	}
	return cur, true
}

// pathArgs returns the strings of a call's arguments that name files: the
// values, at any depth, of keys (in any case) ending in path, paths,
// file, files, filename, dir, directory or folder, or named source, src,
// destination, dest, target, from, to or uri — strings, or lists of
// strings. A file:// URI gives its path.
func pathArgs(args json.RawMessage) []string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil
	}
	var out []string
	var walk func(v any, named bool)
	walk = func(v any, named bool) {
		switch v := v.(type) {
		case string:
			if named && v != "" {
				out = append(out, fileURIPath(v))
			}
		case []any:
			for _, x := range v {
				walk(x, named)
			}
		case map[string]any:
			for k, x := range v {
				walk(x, pathKey(k))
			}
		}
	}
	walk(v, false)
	return out
}

// pathKey reports whether an argument named k names files.
func pathKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"path", "paths", "file", "files", "filename", "dir", "directory", "folder"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	switch k {
	case "source", "src", "destination", "dest", "target", "from", "to", "uri":
		return true
	}
	return false
}

// fileURIPath returns the path of a file:// URI, else s.
func fileURIPath(s string) string {
	if len(s) < 7 || !strings.EqualFold(s[:7], "file://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Path == "" {
		return s
	}
	return u.Path
}
