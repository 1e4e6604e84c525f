package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/prompt"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/host/tool"
)

// The tool budget: when a step's tool schemas pass a share of the
// session's context window, the tools beyond the core set — the MCP
// servers' first, then those of plugins outside the built-in plugin dirs
// — are deferred: the model is sent tool_search in their place, whose
// description lists each by name and one line, and which returns the
// full schemas of those it asks for. A tool it returned is sent in full
// from the next step on. What was asked for is read from the session's
// history — tool_search's results — at every step, so a restart keeps it
// and a compaction that summarizes those results drops it again.

// DefaultToolBudget is the share of the context window, in percent, the
// tool schemas may take before tools are deferred (Config.ToolBudget).
const DefaultToolBudget = 10

// ToolSearch is the name of the tool that loads deferred tools.
const ToolSearch = "tool_search"

// maxSearchHits bounds the tools one query returns.
const maxSearchHits = 5

// searchSchema is tool_search's parameters.
const searchSchema = `{"type":"object","properties":{` +
	`"names":{"type":"array","items":{"type":"string"},"description":"Exact names of the tools to load."},` +
	`"query":{"type":"string","description":"Words to find tools by name or description, when you do not know the names."}},` +
	`"additionalProperties":false}`

// loadedTag opens each tool in tool_search's result: the history is read
// back for it (loadedTools).
var loadedTag = regexp.MustCompile(`(?m)^<tool name="([^"\n]+)">$`)

// toolBudget returns the step's tool set within the session's tool
// budget: st itself when its tools fit or nothing can be deferred.
func (r *Runtime) toolBudget(info agent.StepInfo, st *step) agent.Step {
	share := cmp.Or(r.cfg.ToolBudget, DefaultToolBudget)
	s, _ := r.sessions.Session(info.SessionID)
	w := r.sessionWindow(s)
	if w <= 0 || share < 0 || share >= 100 {
		return st
	}
	all := st.Tools()
	budget := w * share / 100
	if llm.EstimateTools(specsOf(all)) <= budget {
		return st
	}
	var loaded map[string]bool
	if s != nil {
		loaded = loadedTools(s.Messages())
	}
	core := r.coreTools()
	// Defer the MCP tools; then, if the rest still passes the budget,
	// the third-party plugins' too.
	var kept, deferred []tool.Tool
	for _, third := range []bool{false, true} {
		kept, deferred = kept[:0], deferred[:0]
		for _, t := range all {
			deferrable := t.MCP != nil || third && t.Plugin != nil && !core[t.Spec.Name]
			if deferrable && !loaded[t.Spec.Name] {
				deferred = append(deferred, t)
			} else {
				kept = append(kept, t)
			}
		}
		if llm.EstimateTools(specsOf(kept))+llm.EstimateTools([]llm.ToolSpec{searchSpec(deferred, budget-llm.EstimateTools(specsOf(kept)))}) <= budget {
			break
		}
	}
	if len(deferred) == 0 {
		return st
	}
	b := &budgetStep{step: st, list: kept, deferred: map[string]tool.Tool{}, order: deferred}
	for _, t := range deferred {
		b.deferred[t.Spec.Name] = t
	}
	b.search = tool.Tool{Spec: searchSpec(deferred, budget-llm.EstimateTools(specsOf(kept))), ConcurrencySafe: true, Kind: "search", Title: "Load tools"}
	b.list = append(b.list, b.search)
	return b
}

// coreTools are the names of the tools never deferred: those of the
// plugins in the built-in plugin dirs, and of plugins named as harness's
// own are (a build of them run from another dir: a development tree, the
// tests). A plugin that takes such a name only keeps its tools in full;
// it gains nothing else by it.
func (r *Runtime) coreTools() map[string]bool {
	core := map[string]bool{}
	if r.tools == nil {
		return core
	}
	for _, p := range r.tools.Plugins() {
		if slices.Contains(r.cfg.BuiltinPluginDirs, filepath.Dir(p.Path)) || builtinName(p.Name) {
			for _, n := range p.Tools {
				core[n] = true
			}
		}
	}
	return core
}

// builtinName reports whether name is one of the plugins harness ships
// (plugins/ in its source tree).
func builtinName(name string) bool {
	switch name {
	case "bash", "fs", "subagent", "todo":
		return true
	}
	return false
}

// specsOf returns the tools' specs.
func specsOf(tools []tool.Tool) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		specs[i] = t.Spec
	}
	return specs
}

// searchSpec is tool_search's spec listing the deferred tools in the
// most detail that fits in room tokens: each by name and the first line
// of its description; else by name, grouped by the prefix MCP tools
// share (mcp__server__); else each group by its count alone, found by a
// query. The last form is a few tokens a server, so the budget holds
// whatever the number of deferred tools.
func searchSpec(deferred []tool.Tool, room int) llm.ToolSpec {
	const intro = "Loads tools not sent in full, to save context: call it with the names of those you need, or a query; it returns their schemas, and you can call them from your next step on."
	var lines strings.Builder
	lines.WriteString(intro + " The tools:\n")
	for _, t := range deferred {
		fmt.Fprintf(&lines, "- %s: %s\n", t.Spec.Name, oneLine(t.Spec.Description))
	}
	desc := strings.TrimSpace(lines.String())
	if llm.EstimateText(desc) > room {
		groups := groupNames(deferred)
		var names, counts strings.Builder
		names.WriteString(intro + " The tools, by name (a query finds them by what they do too):\n")
		counts.WriteString(intro + " Too many to list: find them with a query. The tools:\n")
		for _, g := range groups {
			label := "- " + g.prefix + "*: "
			if g.prefix == "" {
				label = "- "
			}
			fmt.Fprintf(&names, "%s%s\n", label, strings.Join(g.names, ", "))
			n := fmt.Sprintf("%d tools", len(g.names))
			if len(g.names) == 1 {
				n = "1 tool"
			}
			fmt.Fprintf(&counts, "%s%s\n", label, n)
		}
		desc = strings.TrimSpace(names.String())
		if llm.EstimateText(desc) > room {
			desc = strings.TrimSpace(counts.String())
		}
	}
	return llm.ToolSpec{Name: ToolSearch, Description: desc, Parameters: json.RawMessage(searchSchema)}
}

// nameGroup is deferred tools sharing a name prefix, and the rest of
// their names.
type nameGroup struct {
	prefix string
	names  []string
}

// groupNames groups tools by the prefix of their names up to the last
// "__" (an MCP tool's mcp__server__), in the order each prefix first
// appears; names without one form the group with no prefix.
func groupNames(tools []tool.Tool) []nameGroup {
	var groups []nameGroup
	for _, t := range tools {
		prefix, rest := "", t.Spec.Name
		if i := strings.LastIndex(rest, "__"); i > 0 && i+2 < len(rest) {
			prefix, rest = rest[:i+2], rest[i+2:]
		}
		i := slices.IndexFunc(groups, func(g nameGroup) bool { return g.prefix == prefix })
		if i < 0 {
			groups = append(groups, nameGroup{prefix: prefix})
			i = len(groups) - 1
		}
		groups[i].names = append(groups[i].names, rest)
	}
	return groups
}

// oneLine is the first sentence or line of a description, at most 80
// bytes.
func oneLine(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexAny(desc, "\n"); i >= 0 {
		desc = desc[:i]
	}
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	return shorten.OneLine(shorten.Bytes(desc, 80))
}

// loadedTools are the tools tool_search returned in the history msgs:
// the names its results open a tool with.
func loadedTools(msgs []llm.Message) map[string]bool {
	calls := map[string]bool{} // ids of tool_search calls
	loaded := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name == ToolSearch {
				calls[c.ID] = true
			}
		}
		if m.Role == llm.RoleTool && calls[m.ToolCallID] && !m.IsError {
			for _, sm := range loadedTag.FindAllStringSubmatch(m.Text, -1) {
				loaded[sm[1]] = true
			}
		}
	}
	return loaded
}

// budgetStep is a step whose deferred tools are left out of its list,
// behind tool_search.
type budgetStep struct {
	*step
	list     []tool.Tool
	deferred map[string]tool.Tool
	order    []tool.Tool // deferred, in the step's order
	search   tool.Tool
}

// Tools implements agent.Step.
func (b *budgetStep) Tools() []tool.Tool { return slices.Clone(b.list) }

// Tool implements agent.Step.
func (b *budgetStep) Tool(name string) (tool.Tool, bool) {
	if name == ToolSearch {
		return b.search, true
	}
	if _, ok := b.deferred[name]; ok {
		return tool.Tool{}, false
	}
	return b.step.Tool(name)
}

// Warm implements agent.Step.
func (b *budgetStep) Warm(name string) {
	if name != ToolSearch {
		b.step.Warm(name)
	}
}

// Preview implements agent.Step.
func (b *budgetStep) Preview(ctx context.Context, c tool.Call) tool.Meta {
	if c.Name == ToolSearch {
		return tool.Meta{Title: "Load tools"}
	}
	return b.step.Preview(ctx, c)
}

// Unlisted implements agent.Unlisted: a deferred tool is loaded first.
func (b *budgetStep) Unlisted(name string) (string, bool) {
	if _, ok := b.deferred[name]; !ok {
		return "", false
	}
	return fmt.Sprintf("%s is not loaded: call %s with its name first, then call it in your next step", name, ToolSearch), true
}

// Call implements agent.Step: tool_search answers from the deferred
// tools; a deferred tool's call is refused until it is loaded.
func (b *budgetStep) Call(ctx context.Context, c tool.Call) tool.Result {
	if c.Name == ToolSearch {
		return b.searchCall(c.Args)
	}
	if why, ok := b.Unlisted(c.Name); ok {
		return tool.Result{Content: "Error: " + why, IsError: true}
	}
	return b.step.Call(ctx, c)
}

// lookup finds the deferred tool named n, or, when n is a name without
// its group's prefix (the listing's gen_17 for mcp__gen__gen_17), the
// one deferred tool whose name ends in "__"+n.
func (b *budgetStep) lookup(n string) (tool.Tool, bool) {
	if t, ok := b.deferred[n]; ok {
		return t, true
	}
	var hit tool.Tool
	count := 0
	for _, t := range b.order {
		if strings.HasSuffix(t.Spec.Name, "__"+n) {
			hit, count = t, count+1
		}
	}
	return hit, count == 1
}

// searchCall runs tool_search: the deferred tools named, or those a query
// matches best, each as `<tool name="…">`, its spec as JSON, `</tool>`.
func (b *budgetStep) searchCall(args string) tool.Result {
	var in struct {
		Names []string `json:"names"`
		Query string   `json:"query"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return tool.Result{Content: "Error: invalid arguments: " + err.Error(), IsError: true}
	}
	var found []tool.Tool
	var missing []string
	for _, n := range in.Names {
		t, ok := b.lookup(n)
		if ok && !slices.ContainsFunc(found, func(f tool.Tool) bool { return f.Spec.Name == t.Spec.Name }) {
			found = append(found, t)
		} else if !ok {
			missing = append(missing, strconv.Quote(n)) // one line: never read back as a tool
		}
	}
	if q := strings.Fields(strings.ToLower(in.Query)); len(q) > 0 {
		type hit struct {
			t     tool.Tool
			score int
		}
		var hits []hit
		for _, t := range b.order {
			text := strings.ToLower(t.Spec.Name + " " + t.Spec.Description)
			n := 0
			for _, w := range q {
				n += strings.Count(text, w)
			}
			if n > 0 && !slices.ContainsFunc(found, func(f tool.Tool) bool { return f.Spec.Name == t.Spec.Name }) {
				hits = append(hits, hit{t, n})
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
		for _, h := range hits[:min(len(hits), maxSearchHits)] {
			found = append(found, h.t)
		}
	}
	if len(found) == 0 {
		msg := "Error: no deferred tool matches"
		if len(missing) > 0 {
			msg += "; unknown: " + strings.Join(missing, ", ")
		}
		return tool.Result{Content: msg + ". The deferred tools are listed in " + ToolSearch + "'s description.", IsError: true}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Loaded %d tools; call them from your next step on.\n", len(found))
	for _, t := range found {
		params := t.Spec.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{}`)
		}
		spec, _ := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{t.Spec.Name, t.Spec.Description, params})
		fmt.Fprintf(&out, "<tool name=%q>\n%s\n</tool>\n", t.Spec.Name, spec)
	}
	if len(missing) > 0 {
		fmt.Fprintf(&out, "Not deferred or unknown: %s\n", strings.Join(missing, ", "))
	}
	return tool.Result{Content: strings.TrimSpace(out.String())}
}

// sessionWindow is the context window s's requests are fitted in, as the
// loop takes it: a provider's stated limit, else the session's model's,
// else the configured one; 0 when unknown. s may be nil.
func (r *Runtime) sessionWindow(s *session.Session) int {
	if s != nil {
		if n := s.ContextLimit(); n > 0 {
			return n
		}
		if n := r.windowOf(s); n > 0 {
			return n
		}
	}
	return r.cfg.ContextWindow
}

// Fixed is the part of a session's context window every request takes
// whatever the history: the system prompt and the tools, as the next
// step would send them (past the tool budget, tool_search in the place
// of the deferred tools), in estimated tokens.
type Fixed struct {
	System, Tools int
	// Window is the session's context window; 0: unknown.
	Window int
	// Biggest are the tools, the largest first.
	Biggest []ToolSize
}

// ToolSize is one tool's schema size in estimated tokens.
type ToolSize struct {
	Name   string
	Tokens int
}

// Total is the fixed part's size.
func (f Fixed) Total() int { return f.System + f.Tools }

// Warning is one line saying that the fixed part passes half the window,
// naming the three biggest tools and what to do; "" when it does not or
// the window is unknown.
func (f Fixed) Warning() string {
	if f.Window <= 0 || 2*f.Total() <= f.Window {
		return ""
	}
	var big []string
	for _, t := range f.Biggest[:min(3, len(f.Biggest))] {
		big = append(big, fmt.Sprintf("%s ~%d", t.Name, t.Tokens))
	}
	return fmt.Sprintf("warning: the system prompt and tools take ~%d of the %d-token context window (%d %%), leaving little for the conversation; biggest tools: %s. Use fewer plugins or MCP servers, or a model with a larger window.",
		f.Total(), f.Window, 100*f.Total()/f.Window, strings.Join(big, ", "))
}

// FixedContext measures s's fixed part now (Fixed).
func (r *Runtime) FixedContext(ctx context.Context, s *session.Session) (Fixed, error) {
	res, err := prompt.Build(prompt.Env{Cwd: s.Cwd(), OS: runtime.GOOS, Date: time.Now(), Base: r.cfg.Instructions})
	if err != nil {
		return Fixed{}, err
	}
	st, err := sessionTools{r: r}.Step(ctx, agent.StepInfo{SessionID: s.ID(), Cwd: s.Cwd()})
	if err != nil {
		return Fixed{}, err
	}
	tools := st.Tools()
	st.Close()
	f := Fixed{Window: r.sessionWindow(s)}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Spec.Name
		n := llm.EstimateTools([]llm.ToolSpec{t.Spec})
		f.Tools += n
		f.Biggest = append(f.Biggest, ToolSize{t.Spec.Name, n})
	}
	slices.SortStableFunc(f.Biggest, func(a, b ToolSize) int { return b.Tokens - a.Tokens })
	f.System = llm.EstimateText(res.ForTools(names))
	return f, nil
}
