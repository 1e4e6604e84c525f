package harness_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/harness-dev/harness"

// pkg is one Go package of the repository, read from its source files.
type pkg struct {
	dir     string          // slash-separated, relative to the module root
	name    string          // package clause
	imports map[string]bool // import paths of non-test files
	hasDoc  bool            // some non-test file carries a package doc
}

func readPackages(t *testing.T) []pkg {
	t.Helper()
	byDir := map[string]*pkg{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := byDir[dir]
		if p == nil {
			p = &pkg{dir: dir, name: f.Name.Name, imports: map[string]bool{}}
			byDir[dir] = p
		}
		if f.Doc != nil {
			p.hasDoc = true
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			p.imports[ip] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read packages: %v", err)
	}
	var out []pkg
	for _, p := range byDir {
		out = append(out, *p)
	}
	return out
}

// TestPackageDocs checks that every package says what its job is.
func TestPackageDocs(t *testing.T) {
	t.Parallel()
	for _, p := range readPackages(t) {
		if !p.hasDoc {
			t.Errorf("package %s (%s) has no package doc saying its job", p.dir, p.name)
		}
	}
}

// TestImportRules enforces the import rules of ARCHITECTURE.md.
func TestImportRules(t *testing.T) {
	t.Parallel()
	// rule: a package under dir may import, from this module, only the
	// listed prefixes; external modules are listed with allowExternal.
	type rule struct {
		dir           string
		allowInternal []string
		allowExternal bool
		// allowModules are the external modules (path prefixes) allowed
		// when allowExternal is false.
		allowModules []string
	}
	rules := []rule{
		{dir: "host/event"},
		{dir: "host/eventlog"},
		{dir: "host/llm", allowInternal: []string{"host/llm"}, allowExternal: true},
		{dir: "host/session", allowInternal: []string{"host/event", "host/eventlog", "host/llm"}},
		{dir: "host/agent", allowInternal: []string{"host/event", "host/llm"}, allowExternal: true},
		{dir: "host/prompt"},
		{dir: "host/permission", allowInternal: []string{"host/event"}, allowExternal: true},
		{dir: "host/pluginlock"},
		{dir: "host/subagent", allowInternal: []string{"host/agent", "host/event", "host/llm", "host/session"}, allowExternal: true},
		{dir: "host/devbuild", allowExternal: true},
		{dir: "host/plugincheck", allowInternal: []string{"host/event", "host/pluginlock", "pluginapi"}, allowExternal: true},
		{dir: "host/toolbox", allowInternal: []string{"host/event", "host/llm", "host/pluginlock", "pluginapi"}, allowExternal: true},
		{dir: "pluginapi", allowInternal: []string{"pluginapi"}, allowExternal: true},
		// plugins see only the public contract (Go's internal rule keeps
		// them out of pluginapi/internal).
		// plugins/fs's vetted matchers and diff (see its package doc).
		{dir: "plugins", allowInternal: []string{"pluginapi"}, allowModules: []string{
			"github.com/bmatcuk/doublestar/v4", "github.com/go-git/go-git/v5/plumbing/format/gitignore", "github.com/aymanbagabas/go-udiff"}},
		{dir: "acpbridge", allowInternal: []string{"host/event"}, allowExternal: true},
		// the runtime composes host/* and the plugin contract; the front
		// ends (acpbridge, cmd) sit on it, never under it.
		// the terminal front end, as acpbridge is the editor's.
		{dir: "termview", allowInternal: []string{"host/event", "host/permission", "host/session", "host/toolbox"}},
		{dir: "engine", allowInternal: []string{"host", "pluginapi"}, allowExternal: true},
	}
	for _, p := range readPackages(t) {
		for _, r := range rules {
			if p.dir != r.dir && !strings.HasPrefix(p.dir, r.dir+"/") {
				continue
			}
			for imp := range p.imports {
				internal, ok := strings.CutPrefix(imp, module+"/")
				switch {
				case ok:
					allowed := false
					for _, a := range r.allowInternal {
						if internal == a || strings.HasPrefix(internal, a+"/") {
							allowed = true
						}
					}
					if !allowed {
						t.Errorf("%s imports %s; %s may import only %v from this module", p.dir, internal, r.dir, r.allowInternal)
					}
				case !isStdlib(imp) && !r.allowExternal && !slices.ContainsFunc(r.allowModules, func(m string) bool { return imp == m || strings.HasPrefix(imp, m+"/") }):
					t.Errorf("%s imports %s; %s may import only the standard library", p.dir, imp, r.dir)
				}
			}
		}
	}
}

// isStdlib reports whether an import path belongs to the standard library:
// its first element has no dot.
func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// TestNoStdoutOutsideMain keeps stdout for ACP: only cmd/ may write to it.
func TestNoStdoutOutsideMain(t *testing.T) {
	t.Parallel()
	for _, p := range readPackages(t) {
		if strings.HasPrefix(p.dir, "cmd/") || strings.HasPrefix(p.dir, "examples/") {
			continue
		}
		entries, err := os.ReadDir(p.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			n := e.Name()
			if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(p.dir, n))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "stdout-ok") {
					continue
				}
				for _, bad := range []string{"os.Stdout", "fmt.Print(", "fmt.Println(", "fmt.Printf("} {
					if strings.Contains(line, bad) {
						t.Errorf("%s/%s:%d writes to stdout (%s); stdout belongs to ACP: use the logger or an injected io.Writer", p.dir, n, i+1, bad)
					}
				}
			}
		}
	}
}
