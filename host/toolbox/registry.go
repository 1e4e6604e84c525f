package toolbox

import (
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/pluginapi"
)

// registry is an immutable snapshot of the registered plugins: which
// process serves each tool. It is never modified once stored in
// Toolbox.reg; a change (a restart, a reload) builds a new one and
// swaps it in, so a reader sees one consistent state without locking.
type registry struct {
	members  []member         // registered plugins, in discovery order
	tools    map[string]entry // tool name → where it runs
	list     []tool.Tool      // sorted by name
	failures []Failure        // in discovery order
}

// member is a registered plugin and the process its tools route to in
// this snapshot.
type member struct {
	plug *plugin
	inst *instance
}

// ref names the process serving m in this snapshot: its plugin's binary
// with PID 0 when none runs (not started yet, or stopped when idle).
func (m member) ref() event.Plugin {
	if m.inst != nil {
		return m.inst.ref
	}
	return m.plug.ref()
}

// entry routes one tool. inst is nil when no process runs.
type entry struct {
	plug *plugin
	inst *instance
	spec pluginapi.ToolSpec
}

func newRegistry(members []member, failures []Failure) *registry {
	r := &registry{members: members, tools: map[string]entry{}, failures: failures}
	for _, m := range members {
		ref := m.ref()
		for _, spec := range m.plug.desc.Tools {
			r.tools[spec.Name] = entry{plug: m.plug, inst: m.inst, spec: spec}
			r.list = append(r.list, tool.Tool{
				Spec: llm.ToolSpec{
					Name:        spec.Name,
					Description: spec.Description,
					Parameters:  spec.Schema,
				},
				ConcurrencySafe: spec.ConcurrencySafe,
				NeedsPermission: spec.NeedsPermission,
				Kind:            toolKind(spec.Kind),
				Plugin:          &ref,
				Sandboxes:       m.plug.desc.Capabilities.Sandboxes,
				HasPreview:      hasPreview(m.plug.desc, spec),
				TitleTemplate:   spec.Title,
			})
		}
	}
	slices.SortFunc(r.list, func(a, b tool.Tool) int { return strings.Compare(a.Spec.Name, b.Spec.Name) })
	return r
}

// withInstance returns a copy of r in which p's tools route to inst, or
// nil if p is not a member of r.
func (r *registry) withInstance(p *plugin, inst *instance) *registry {
	i := slices.IndexFunc(r.members, func(m member) bool { return m.plug == p })
	if i < 0 {
		return nil
	}
	members := slices.Clone(r.members)
	members[i].inst = inst
	return newRegistry(members, r.failures)
}

// member returns the member serving the plugin file path.
func (r *registry) member(path string) (member, bool) {
	for _, m := range r.members {
		if m.plug.path == path {
			return m, true
		}
	}
	return member{}, false
}

// failure returns the failure recorded for the file path.
func (r *registry) failure(path string) (Failure, bool) {
	for _, f := range r.failures {
		if f.Path == path {
			return f, true
		}
	}
	return Failure{}, false
}

// withFile returns a copy of r in which the file path is served by m, or
// by nothing when m is nil, and has the failure f, or none when f is nil.
// cmp orders paths as discovery does; the new entries go where discovery
// would have put them.
func (r *registry) withFile(path string, m *member, f *Failure, cmp func(a, b string) int) *registry {
	members := make([]member, 0, len(r.members)+1)
	for _, x := range r.members {
		if x.plug.path != path {
			members = append(members, x)
		}
	}
	if m != nil {
		i := slices.IndexFunc(members, func(x member) bool { return cmp(x.plug.path, path) > 0 })
		if i < 0 {
			i = len(members)
		}
		members = slices.Insert(members, i, *m)
	}
	failures := make([]Failure, 0, len(r.failures)+1)
	for _, x := range r.failures {
		if x.Path != path {
			failures = append(failures, x)
		}
	}
	if f != nil {
		i := slices.IndexFunc(failures, func(x Failure) bool { return cmp(x.Path, path) > 0 })
		if i < 0 {
			i = len(failures)
		}
		failures = slices.Insert(failures, i, *f)
	}
	return newRegistry(members, failures)
}

// toolKind is a declared kind as the toolbox lists it: one of ACP's
// (pluginapi.Kind*), or "" for none; a kind harness does not know (a
// plugin built for a later ACP) lists as other.
func toolKind(k string) string {
	if pluginapi.ValidKind(k) {
		return k
	}
	return pluginapi.KindOther
}

// hasPreview reports whether the toolbox asks the plugin described by desc
// for a preview of calls of spec's tool: the tool declared one, or the
// plugin predates minor 5 (which declares none), so it is asked as before
// and answers an empty preview when the tool has none.
func hasPreview(desc pluginapi.Description, spec pluginapi.ToolSpec) bool {
	return spec.HasPreview || desc.ProtocolMinor < minorDeclaresPreviews
}

// minorDeclaresPreviews is the protocol minor from which a plugin's tool
// specs say whether they have a preview (pluginapi.ToolSpec.HasPreview).
const minorDeclaresPreviews = 5
