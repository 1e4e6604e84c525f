package harness_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"os"
	"os/exec"
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

// importRule: a package under dir (dir itself or below it) may import,
// from this module, only the listed prefixes; external modules are allowed
// with allowExternal. A package follows the most specific rule whose dir
// holds it.
type importRule struct {
	dir           string
	allowInternal []string
	allowExternal bool
	// allowModules are the external modules (path prefixes) allowed
	// when allowExternal is false.
	allowModules []string
	// deny are packages of this module (path prefixes) the rule's
	// packages must not import, even where allowInternal admits them.
	deny []string
	// except are packages under dir the rule does not apply to.
	except []string
}

// importRules are the import rules of docs/architecture.md, which lists
// them in a table (TestArchitectureDoc keeps the two in step).
func importRules() []importRule {
	return []importRule{
		{dir: "host/event"},
		{dir: "host/eventlog", allowInternal: []string{"host/atomicfile", "host/ownership"}},
		// the one temporary-file-then-rename write: the standard library only.
		{dir: "host/atomicfile"},
		// whether a file of harness's own may be trusted: the standard library only.
		{dir: "host/ownership"},
		{dir: "host/shorten"},
		// the one filter for text shown on a terminal: the standard library only.
		{dir: "host/termsafe"},
		{dir: "host/llm", allowInternal: []string{"host/llm", "host/shorten"}, allowExternal: true},
		// the host side and the process side of harness-llm: never the
		// SDK providers themselves (cmd/harness-llm hands them to Serve),
		// so that the host links no SDK (TestHostLinksNoSDK).
		{dir: "host/llm/llmproc", allowInternal: []string{"host/llm", "pluginapi"}, allowExternal: true,
			deny: []string{"host/llm/anthropic", "host/llm/responses"}},
		// the one tool vocabulary: data only, over the events and the
		// model's tool spec.
		{dir: "host/tool", allowInternal: []string{"host/event", "host/llm"}},
		// opening providers by name: through llmproc, never the SDK
		// providers (TestHostLinksNoSDK); pluginhost's Supervisor type
		// for the harness-llm process.
		{dir: "host/llm/providers", allowInternal: []string{"host/llm", "host/shorten", "pluginapi"}, allowExternal: true,
			deny: []string{"host/llm/anthropic", "host/llm/responses"}},
		{dir: "host/session", allowInternal: []string{"host/atomicfile", "host/event", "host/eventlog", "host/llm", "host/ownership"}},
		// the store conformance suite: the contract it checks and the
		// payloads its sessions carry.
		{dir: "host/session/storetest", allowInternal: []string{"host/event", "host/eventlog", "host/session"}},
		{dir: "host/session/natsstore", allowInternal: []string{"host/eventlog", "host/session"}, allowExternal: true},
		{dir: "host/agent", allowInternal: []string{"host/event", "host/llm", "host/shorten", "host/tool"}, allowExternal: true},
		{dir: "host/prompt"},
		{dir: "host/permission", allowInternal: []string{"host/event", "host/ownership", "host/shorten"}, allowExternal: true},
		{dir: "host/pluginlock", allowInternal: []string{"host/atomicfile"}},
		{dir: "host/plugincache", allowInternal: []string{"host/atomicfile", "host/pluginlock"}, allowExternal: true},
		{dir: "host/subagent", allowInternal: []string{"host/agent", "host/event", "host/llm", "host/session", "host/shorten", "host/tool"}, allowExternal: true},
		{dir: "host/devbuild", allowInternal: []string{"host/atomicfile"}, allowExternal: true},
		// the one way settings are read: flags, environment, the TOML file.
		{dir: "host/settings", allowInternal: []string{"host/ownership"}, allowModules: []string{"github.com/BurntSushi/toml"}},
		// the default folders and files: the standard library, and the
		// plugin lock files' suffix.
		{dir: "host/settings/paths", allowInternal: []string{"host/pluginlock"}},
		{dir: "host/plugincheck", allowInternal: []string{"host/event", "host/pluginlock", "host/shorten", "pluginapi"}, allowExternal: true},
		// MCP servers: the SDK's client, pluginapi's schema rules and
		// pluginhost's launch environment.
		{dir: "host/mcpclient", allowInternal: []string{"host/event", "host/keeper", "host/llm", "host/ownership", "host/tool", "pluginapi"}, allowExternal: true},
		// the keeper every plugin, harness-llm and stdio MCP server runs under: the standard library and the sandbox it confines plugins with.
		{dir: "host/keeper", allowInternal: []string{"sandbox"}, allowModules: []string{"golang.org/x/sys", "github.com/landlock-lsm/go-landlock", "github.com/elastic/go-seccomp-bpf"}},
		// the sandbox decisions: the setting, a call's sandbox, a plugin's
		// and an MCP server's profile under their keeper.
		{dir: "host/confine", allowInternal: []string{"host/event", "host/keeper", "host/mcpclient", "host/pluginlock", "host/tool", "host/toolbox", "pluginapi", "sandbox"}, allowExternal: true},
		// the plugins' host services: sessions, approvers, editors and
		// children as the runtime hands them; text files with fsroot.
		{dir: "host/services", allowInternal: []string{"host/agent", "host/permission", "host/session", "host/subagent", "pluginapi"}},
		// a session's tokens and their price: events, model prices, listed sessions.
		{dir: "host/pricing", allowInternal: []string{"host/event", "host/llm", "host/session"}},
		// the slash commands: their names and how a prompt invokes one.
		{dir: "host/slash", allowInternal: []string{"host/event"}},
		// the running build's version and its plugin SDK's.
		{dir: "host/buildinfo", allowInternal: []string{"pluginapi"}},
		{dir: "host/toolbox", allowInternal: []string{"host/atomicfile", "host/event", "host/llm", "host/ownership", "host/plugincache", "host/pluginlock", "host/shorten", "host/tool", "pluginapi"}, allowExternal: true},
		// pluginapi is the contract and the plugin side; the host side
		// (launcher, attacher, HostServices server) is pluginapi/pluginhost,
		// which only the host imports. plugintest plays the host in tests.
		{dir: "pluginapi", allowInternal: []string{"pluginapi"}, allowExternal: true,
			deny: []string{"pluginapi/pluginhost"}, except: []string{"pluginapi/pluginhost", "pluginapi/plugintest"}},
		{dir: "pluginapi/pluginhost", allowInternal: []string{"pluginapi"}, allowExternal: true},
		{dir: "pluginapi/plugintest", allowInternal: []string{"pluginapi"}, allowExternal: true},
		// plugins see only the public contract and the plugin side (Go's
		// internal rule keeps them out of pluginapi/internal); their tests
		// may use plugintest and pluginhost.
		// plugins/fs's vetted matchers and diff (see its package doc).
		{dir: "plugins", allowInternal: []string{"pluginapi", "sandbox"}, deny: []string{"pluginapi/pluginhost", "pluginapi/plugintest"}, allowModules: []string{
			"github.com/bmatcuk/doublestar/v4", "github.com/go-git/go-git/v5/plumbing/format/gitignore", "github.com/aymanbagabas/go-udiff"}},
		// the kernel-enforced sandbox: a leaf the plugins (and later the
		// host) build on; Landlock, seccomp and x/sys only.
		{dir: "sandbox", allowModules: []string{"golang.org/x/sys", "github.com/landlock-lsm/go-landlock", "github.com/elastic/go-seccomp-bpf"}},
		{dir: "acpbridge", allowInternal: []string{"acpbridge/internal/jsonrpc", "host/event", "host/shorten"}, allowExternal: true},
		// the bridge's JSON-RPC connection: the standard library only.
		{dir: "acpbridge/internal/jsonrpc"},
		// the terminal front end, as acpbridge is the editor's.
		{dir: "termview", allowInternal: []string{"engine", "host/agent", "host/confine", "host/event", "host/llm", "host/mcpclient", "host/permission", "host/pricing", "host/session", "host/termsafe", "host/toolbox"},
			allowModules: []string{"github.com/aymanbagabas/go-udiff"}},
		// the runtime composes host/* and the plugin contract; the front
		// ends (acpbridge, cmd) sit on it, never under it.
		{dir: "engine", allowInternal: []string{"host", "pluginapi", "sandbox"}, allowExternal: true},
		// the engine as an ACP agent: the adapter between the two.
		{dir: "acpagent", allowInternal: []string{"acpbridge", "engine", "host", "sandbox"}, allowExternal: true},
	}
}

// vocabularyExempt are the packages outside host/tool that may export a
// type named Tool, Call or Result, and why.
var vocabularyExempt = map[string]string{
	// the plugin SDK: its own module, the wire contract with plugins; the
	// toolbox converts its types to host/tool's (host/toolbox/convert.go).
	"pluginapi": "the plugin SDK's wire contract",
}

// vocabularyOther are types of those names that are not a tool, a call
// or a result of one, by package and name, and what they are.
var vocabularyOther = map[string]string{
	"host/prompt.Result":   "a built system prompt",
	"host/subagent.Result": "a child session's final answer",
}

// TestOneToolVocabulary: host/tool's Tool, Call and Result are the only
// exported types of those names in the host (see vocabularyExempt), so
// that a tool, a call and a result have one shape from the model's
// answer to the log.
func TestOneToolVocabulary(t *testing.T) {
	t.Parallel()
	names := map[string]bool{"Tool": true, "Call": true, "Result": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || dir == "host/tool" {
			return nil
		}
		for p := range vocabularyExempt {
			if dir == p || strings.HasPrefix(dir, p+"/") {
				return nil
			}
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				if ts := spec.(*ast.TypeSpec); names[ts.Name.Name] && vocabularyOther[dir+"."+ts.Name.Name] == "" {
					t.Errorf("%s exports a type %s: the host's tools, calls and results are host/tool's", path, ts.Name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportRules enforces the import rules of docs/architecture.md.
func TestImportRules(t *testing.T) {
	t.Parallel()
	rules := importRules()
	// A package follows the most specific rule whose dir holds it.
	slices.SortFunc(rules, func(a, b importRule) int { return len(b.dir) - len(a.dir) })
	for _, p := range readPackages(t) {
		for _, r := range rules {
			if p.dir != r.dir && !strings.HasPrefix(p.dir, r.dir+"/") || slices.ContainsFunc(r.except, func(e string) bool { return p.dir == e || strings.HasPrefix(p.dir, e+"/") }) {
				continue
			}
			for imp := range p.imports {
				internal, ok := strings.CutPrefix(imp, module+"/")
				switch {
				case ok && slices.ContainsFunc(r.deny, func(d string) bool { return internal == d || strings.HasPrefix(internal, d+"/") }):
					t.Errorf("%s imports %s; %s must not import %v", p.dir, internal, r.dir, r.deny)
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
			break // the most specific rule only
		}
	}
}

// TestPluginsLinkNoLauncher checks, on the build graph itself, that a
// plugin binary carries the contract and the plugin side of pluginapi and
// none of the host side: no package that `go list -deps ./plugins/...`
// names declares a function Launch (pluginhost.Launch).
func TestPluginsLinkNoLauncher(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}{{end}}", "./plugins/...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./plugins/...: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, rest, _ := strings.Cut(line, "\t")
		dir, files, _ := strings.Cut(rest, "\t")
		if path == "" {
			continue
		}
		seen++
		if path == module+"/pluginapi/pluginhost" {
			t.Errorf("the plugins depend on %s, the host side of the plugin protocol", path)
		}
		for _, name := range strings.Fields(files) {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parse %s: %v", filepath.Join(dir, name), err)
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "Launch" {
					t.Errorf("the plugins depend on %s, which defines Launch (%s): a plugin must not link the host's launcher", path, name)
				}
			}
		}
	}
	if seen == 0 || !strings.Contains(string(out), module+"/pluginapi\t") {
		t.Fatalf("go list -deps ./plugins/... named no pluginapi package; the check saw nothing:\n%s", out)
	}
}

// TestHostLinksNoSDK checks, on the build graph, that the harness binary
// links neither model SDK: the providers built on them run in
// cmd/harness-llm, started on first use (package host/llm/llmproc),
// because the SDKs' package initialisation alone costs the host ~22 MB
// of resident memory.
func TestHostLinksNoSDK(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return string(out)
	}
	sdks := []string{"github.com/anthropics/anthropic-sdk-go", "github.com/openai/openai-go"}
	host := deps("./cmd/harness")
	for _, sdk := range sdks {
		for _, line := range strings.Split(host, "\n") {
			if line == sdk || strings.HasPrefix(line, sdk+"/") {
				t.Errorf("./cmd/harness depends on %s; the SDK providers belong in cmd/harness-llm (host/llm/llmproc)", line)
				break
			}
		}
	}
	// The check sees the graph: the process that serves them links both.
	llm := deps("./cmd/harness-llm")
	for _, sdk := range sdks {
		if !strings.Contains(llm, sdk) {
			t.Errorf("./cmd/harness-llm does not depend on %s; the check would see nothing", sdk)
		}
	}
	if !strings.Contains(host, module+"/host/llm/llmproc") {
		t.Error("./cmd/harness does not depend on host/llm/llmproc; the check looks at the wrong graph")
	}
}

// sdkModuleDeps are the modules the plugin SDK (module pluginapi) may
// require directly: what a plugin needs, and go-cmp for its tests only.
var sdkModuleDeps = map[string]bool{
	"github.com/hashicorp/go-plugin": true,
	"github.com/hashicorp/go-hclog":  true,
	"google.golang.org/grpc":         true,
	"google.golang.org/protobuf":     true,
	"github.com/google/go-cmp":       true, // tests only
}

// TestPluginAPIModule checks the module rules of the plugin SDK: pluginapi
// is its own module, github.com/harness-dev/harness/pluginapi, requiring
// nothing but sdkModuleDeps directly and with no replace directive (a
// released module's replaces are ignored by its users); its packages'
// build graph holds only those modules and what they need, none of the
// host's (the ACP SDK, fsnotify, …); and the host module requires it,
// replaced by the folder next to it for development in this repository.
func TestPluginAPIModule(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	type goMod struct {
		Module  struct{ Path string }
		Require []struct {
			Path     string
			Indirect bool
		}
		Replace []struct {
			Old struct{ Path string }
			New struct{ Path string }
		}
	}
	read := func(dir string) goMod {
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go mod edit -json in %s: %v", dir, err)
		}
		var m goMod
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	sdk := read("pluginapi")
	if sdk.Module.Path != module+"/pluginapi" {
		t.Fatalf("pluginapi/go.mod declares module %q, want %s/pluginapi", sdk.Module.Path, module)
	}
	for _, r := range sdk.Require {
		if !r.Indirect && !sdkModuleDeps[r.Path] {
			t.Errorf("pluginapi/go.mod requires %s: the plugin SDK depends only on go-plugin, gRPC, protobuf and hclog", r.Path)
		}
	}
	if len(sdk.Replace) > 0 {
		t.Errorf("pluginapi/go.mod has replace directives (%v): its users would not see them", sdk.Replace)
	}
	host := read(".")
	required, replaced := false, false
	for _, r := range host.Require {
		required = required || r.Path == module+"/pluginapi"
	}
	for _, r := range host.Replace {
		if r.Old.Path == module+"/pluginapi" {
			replaced = r.New.Path == "./pluginapi"
		}
	}
	if !required || !replaced {
		t.Errorf("go.mod must require %s/pluginapi and replace it with ./pluginapi (required %v, replaced %v)", module, required, replaced)
	}

	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")
	cmd.Dir = "pluginapi"
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./... in pluginapi: %v", err)
	}
	mods := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		mods[m] = true
	}
	for _, host := range []string{module, "github.com/coder/acp-go-sdk", "github.com/fsnotify/fsnotify", "github.com/modelcontextprotocol/go-sdk"} {
		if mods[host] {
			t.Errorf("the plugin SDK's packages depend on the host-only module %s", host)
		}
	}
	if !mods[module+"/pluginapi"] || !mods["github.com/hashicorp/go-plugin"] {
		t.Fatalf("go list -deps in pluginapi named %v; the check saw nothing", mods)
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
		for at, line := range sourceLines(t, p.dir) {
			if strings.Contains(line, "stdout-ok") {
				continue
			}
			for _, bad := range []string{"os.Stdout", "fmt.Print(", "fmt.Println(", "fmt.Printf("} {
				if strings.Contains(line, bad) {
					t.Errorf("%s writes to stdout (%s); stdout belongs to ACP: use the logger or an injected io.Writer", at, bad)
				}
			}
		}
	}
}

// TestOneAtomicWrite keeps host/atomicfile the host's one
// temporary-file-then-rename write: no other package of the host renames
// or links a file into place itself (the plugin side, pluginapi and
// plugins, writes beneath an os.Root with pluginapi/fsroot).
func TestOneAtomicWrite(t *testing.T) {
	t.Parallel()
	for _, p := range readPackages(t) {
		if p.dir == "host/atomicfile" || p.dir == "pluginapi" || p.dir == "plugins" || p.dir == "examples" ||
			strings.HasPrefix(p.dir, "pluginapi/") || strings.HasPrefix(p.dir, "plugins/") || strings.HasPrefix(p.dir, "examples/") {
			continue
		}
		for at, line := range sourceLines(t, p.dir) {
			for _, bad := range []string{"os.Rename(", "os.Link("} {
				if strings.Contains(line, bad) {
					t.Errorf("%s puts a file in place with %s: use host/atomicfile (WriteFile, Create, WriteNew, Rename), which fsyncs the file and its folder", at, bad)
				}
			}
		}
	}
}

// TestArchitectureDoc keeps docs/architecture.md in step with the code: its
// import-rule table says what importRules enforces, row for row, and its
// package map names every package of the module and nothing that is gone.
func TestArchitectureDoc(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	section := func(heading string) string {
		_, rest, ok := strings.Cut(doc, "\n## "+heading+"\n")
		if !ok {
			t.Fatalf("docs/architecture.md has no section %q", heading)
		}
		s, _, _ := strings.Cut(rest, "\n## ")
		return s
	}
	// dropNote removes a trailing parenthesised note: "pluginapi (its own subpackages)".
	dropNote := func(s string) string {
		if i := strings.Index(s, " ("); i >= 0 {
			s = s[:i]
		}
		return strings.TrimSpace(s)
	}

	rows := map[string][2]string{}
	for _, line := range strings.Split(section("Import rules"), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if !strings.HasPrefix(line, "| ") || len(cells) != 3 || strings.HasPrefix(cells[0], "-") || strings.TrimSpace(cells[0]) == "directory" {
			continue
		}
		rows[dropNote(cells[0])] = [2]string{dropNote(cells[1]), strings.TrimSpace(cells[2])}
	}
	for _, r := range importRules() {
		row, ok := rows[r.dir]
		if !ok {
			t.Errorf("docs/architecture.md: the import-rule table has no row for %s", r.dir)
			continue
		}
		delete(rows, r.dir)
		want := "nothing"
		if len(r.allowInternal) > 0 {
			want = strings.Join(r.allowInternal, ", ")
		}
		if row[0] != want {
			t.Errorf("docs/architecture.md: %s may import %q from this module, the code says %q", r.dir, row[0], want)
		}
		switch ext := row[1]; {
		case r.allowExternal && ext != "any":
			t.Errorf("docs/architecture.md: %s's external modules are %q, the code allows any", r.dir, ext)
		case !r.allowExternal && len(r.allowModules) == 0 && !strings.HasPrefix(ext, "none"):
			t.Errorf("docs/architecture.md: %s's external modules are %q, the code allows none", r.dir, ext)
		case !r.allowExternal && len(r.allowModules) > 0 && (ext == "any" || strings.HasPrefix(ext, "none")):
			t.Errorf("docs/architecture.md: %s's external modules are %q, the code allows %v", r.dir, ext, r.allowModules)
		}
	}
	for dir := range rows {
		t.Errorf("docs/architecture.md: the import-rule table has a row for %s, which no rule enforces", dir)
	}

	listed := map[string]bool{}
	for _, line := range strings.Split(section("Layers and packages"), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasSuffix(f[0], "/") {
			continue
		}
		dir := strings.TrimSuffix(f[0], "/")
		listed[dir] = true
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("docs/architecture.md lists %s/, which does not exist", dir)
		}
	}
	for _, p := range readPackages(t) {
		if p.dir == "." || strings.HasPrefix(p.dir, "examples/") {
			continue
		}
		if !listed[p.dir] {
			t.Errorf("docs/architecture.md's package map does not name %s/", p.dir)
		}
	}
}

// TestNoCommittedBinaries keeps built programs out of the repository: a
// plugin built in place (plugins/bash/bash) was once committed, 19.7 MB
// that every clone carried and no test rebuilt. No file git tracks may be
// an ELF, Mach-O or PE executable.
func TestNoCommittedBinaries(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git ls-files: %v", err)
		}
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	magics := map[string]string{"\x7fELF": "ELF", "\xcf\xfa\xed\xfe": "Mach-O", "\xfe\xed\xfa\xcf": "Mach-O", "MZ": "PE"}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for magic, kind := range magics {
			if n >= len(magic) && string(head[:len(magic)]) == magic {
				t.Errorf("%s is a committed %s binary: remove it (git rm --cached) and ignore it in .gitignore", name, kind)
			}
		}
	}
}

// sourceLines yields each line of dir's non-test Go files: where it is
// (dir/file.go:line) and its text.
func sourceLines(t *testing.T, dir string) iter.Seq2[string, string] {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return func(yield func(string, string) bool) {
		for _, e := range entries {
			n := e.Name()
			if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if !yield(fmt.Sprintf("%s/%s:%d", dir, n, i+1), line) {
					return
				}
			}
		}
	}
}
