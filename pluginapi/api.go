package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harness-dev/harness/pluginapi/internal/wire"
)

// ProtocolVersion is the major version of the plugin protocol: the go-plugin
// handshake version and the proto package suffix (harness.plugin.v1).
const ProtocolVersion = 1

// ProtocolMinor is the additive revision of v1 this package speaks:
//
//   - 0: Describe, Configure, Execute, Cancel; HostServices.ReadState.
//   - 1: Configure carries the host's state dir ([ConfigureRequest.StateDir],
//     [Call.StateDir], [Call.SessionDir]); the SessionClosed RPC
//     ([Client.SessionClosed], [Plugin.SessionClosed]).
//   - 2: tool metadata for editors: [ToolSpec.Kind] in Describe,
//     [Result.Meta] (title, locations, diffs), the Preview RPC
//     ([Tool.Preview]); HostServices.ReadTextFile and WriteTextFile
//     ([ReadTextFile], [WriteTextFile]).
//   - 3: [Plugin.StartEarly] in Describe ([Description.StartEarly]): the
//     plugin runs from the host's start and is never stopped when idle.
//   - 4: [CallRequest.Sandbox]: the sandbox the host runs the call's
//     commands under (the bash plugin builds each command's policy from
//     it); [Plugin.Capabilities] in Describe ([Description.Capabilities]):
//     what the plugin's process needs beyond the default confinement the
//     host launches it under.
//   - 5: declared presentation in Describe: [ToolSpec.HasPreview] (the host
//     calls Preview only for tools that have one; [Serve] sets it from
//     [Tool.Preview]) and [ToolSpec.Title] (a title template the host
//     expands without an RPC, [ExpandTitle]).
const ProtocolMinor = 5

// Magic cookie of the go-plugin handshake. It keeps a user from running a
// plugin by hand by mistake; it is not a security measure.
const (
	MagicCookieKey   = "HARNESS_PLUGIN_MAGIC_COOKIE"
	MagicCookieValue = "9c4e1f7a2b6d48e3a05c31d87f2e6b94"
)

// ExpandTitle is a call's title from its tool's [ToolSpec.Title] template
// and its arguments object: each {name} is replaced by the top-level
// string argument name, trimmed of surrounding space. When a named
// argument is missing, not a string or blank, the title is empty (the
// caller shows the tool's name instead). A brace that does not enclose a
// name (letters, digits, '_' or '-') stays as it is.
func ExpandTitle(template string, args json.RawMessage) string {
	if !strings.Contains(template, "{") {
		return template
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		obj = nil
	}
	var b strings.Builder
	for rest := template; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String()
		}
		n := strings.IndexByte(rest[open:], '}')
		if n < 0 || !isArgName(rest[open+1:open+n]) {
			b.WriteString(rest[:open+1])
			rest = rest[open+1:]
			continue
		}
		var v string
		if json.Unmarshal(obj[rest[open+1:open+n]], &v) != nil || strings.TrimSpace(v) == "" {
			return ""
		}
		b.WriteString(rest[:open])
		b.WriteString(strings.TrimSpace(v))
		rest = rest[open+n+1:]
	}
}

// titleNames returns the argument names a title template uses, in order.
func titleNames(template string) []string {
	var names []string
	for rest := template; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return names
		}
		n := strings.IndexByte(rest[open:], '}')
		if n < 0 {
			return names
		}
		if name := rest[open+1 : open+n]; isArgName(name) {
			names = append(names, name)
			rest = rest[open+n+1:]
			continue
		}
		rest = rest[open+1:]
	}
}

// checkTitle checks that spec's title template names only properties its
// schema declares (when the schema lists any), so that a misspelt name
// fails at Serve rather than leaving every call untitled.
func checkTitle(spec ToolSpec) error {
	names := titleNames(spec.Title)
	if len(names) == 0 {
		return nil
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(spec.Schema, &schema) != nil || schema.Properties == nil {
		return nil
	}
	for _, n := range names {
		if _, ok := schema.Properties[n]; !ok {
			return fmt.Errorf("names {%s}, which is not a property of the tool's schema", n)
		}
	}
	return nil
}

// isArgName reports whether s can name an argument in a title template.
func isArgName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Tool kinds, ACP's ToolKind vocabulary.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindDelete  = "delete"
	KindMove    = "move"
	KindSearch  = "search"
	KindExecute = "execute"
	KindThink   = "think"
	KindFetch   = "fetch"
	KindOther   = "other"
)

// ValidKind reports whether k is one of the Kind* constants or empty.
func ValidKind(k string) bool {
	switch k {
	case "", KindRead, KindEdit, KindDelete, KindMove, KindSearch, KindExecute, KindThink, KindFetch, KindOther:
		return true
	}
	return false
}

// HostServices are the host's services a plugin may call back, over the
// go-plugin broker. The host implements them; a plugin reaches them through
// Call.Host. Methods not yet offered return an error wrapping
// ErrUnimplemented.
type HostServices interface {
	ReadState(ctx context.Context, req ReadStateRequest) (ReadStateResponse, error)
}

// Permissions is implemented by a HostServices that can ask the user
// (HostServices.RequestPermission). On the plugin side, call
// [RequestPermission] rather than asserting it.
type Permissions interface {
	RequestPermission(ctx context.Context, req PermissionRequest) (PermissionResponse, error)
}

// RequestPermission asks the user through the host behind h. A host that
// cannot ask answers an error wrapping ErrUnimplemented.
func RequestPermission(ctx context.Context, h HostServices, req PermissionRequest) (PermissionResponse, error) {
	p, ok := h.(Permissions)
	if !ok {
		return PermissionResponse{}, fmt.Errorf("request permission: %w", ErrUnimplemented)
	}
	return p.RequestPermission(ctx, req)
}

// Subagents is implemented by a HostServices that can run child agents
// (HostServices.SpawnSubagent). On the plugin side, call [SpawnSubagent]
// rather than asserting it.
type Subagents interface {
	// SpawnSubagent runs a child session to its answer, reporting its
	// progress as it goes. It returns when the child ends or ctx is done.
	SpawnSubagent(ctx context.Context, req SubagentRequest, progress Progress) (SubagentResult, error)
}

// SpawnSubagent asks the host behind h for a child agent. A host that
// offers none answers an error wrapping ErrUnimplemented.
func SpawnSubagent(ctx context.Context, h HostServices, req SubagentRequest, progress Progress) (SubagentResult, error) {
	s, ok := h.(Subagents)
	if !ok {
		return SubagentResult{}, fmt.Errorf("spawn subagent: %w", ErrUnimplemented)
	}
	return s.SpawnSubagent(ctx, req, progress)
}

// TextFiles is implemented by a HostServices that reads and writes text
// files the way the user sees them (HostServices.ReadTextFile and
// WriteTextFile, minor 2). On the plugin side, call [ReadTextFile] and
// [WriteTextFile] rather than asserting it.
type TextFiles interface {
	// ReadTextFile returns the text of the file at the absolute path: the
	// editor's buffer (unsaved changes included) when the session's editor
	// offers it, else the file on disk. A missing file is an error
	// wrapping fs.ErrNotExist.
	ReadTextFile(ctx context.Context, req ReadTextFileRequest) (TextFile, error)
	// WriteTextFile replaces the text of the file (creating it): through
	// the session's editor when it offers it, else on disk. The caller
	// asks for any permission needed before.
	WriteTextFile(ctx context.Context, req WriteTextFileRequest) (TextFile, error)
}

// ReadTextFile reads a file through the host behind h. A host that offers
// no text files (minor < 2) answers an error wrapping ErrUnimplemented;
// the plugin then reads the disk itself.
func ReadTextFile(ctx context.Context, h HostServices, req ReadTextFileRequest) (TextFile, error) {
	t, ok := h.(TextFiles)
	if !ok {
		return TextFile{}, fmt.Errorf("read text file: %w", ErrUnimplemented)
	}
	return t.ReadTextFile(ctx, req)
}

// WriteTextFile writes a file through the host behind h. A host that
// offers no text files answers an error wrapping ErrUnimplemented.
func WriteTextFile(ctx context.Context, h HostServices, req WriteTextFileRequest) (TextFile, error) {
	t, ok := h.(TextFiles)
	if !ok {
		return TextFile{}, fmt.Errorf("write text file: %w", ErrUnimplemented)
	}
	return t.WriteTextFile(ctx, req)
}

// Progress receives the progress text of a running call (live output). It
// may be called from any goroutine of the handler, never after the handler
// returned.
type Progress func(text string)

// ErrUnimplemented is wrapped by errors of HostServices methods the host
// does not offer (gRPC Unimplemented).
var ErrUnimplemented = wire.ErrUnimplemented
