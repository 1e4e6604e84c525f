//go:build unix

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/pluginapi"
)

// maxMetaLocations bounds the files a result names to the editor.
const maxMetaLocations = 50

// maxMetaDiff bounds the texts of a diff sent to the editor: a change to a
// larger file says which file it touched, without the diff.
const maxMetaDiff = 512 << 10

// display is how a title names path: relative to the call's cwd when it
// is inside it, else absolute.
func display(call *pluginapi.Call, path string) string {
	if call.Cwd != "" {
		if rel, err := filepath.Rel(call.Cwd, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return quoteName(rel)
		}
	}
	return quoteName(path)
}

// changeMeta is what the editor shows of a change: a title, the file (at
// its first changed line) and the diff.
func changeMeta(call *pluginapi.Call, verb string, ch fileChange) pluginapi.Meta {
	m := pluginapi.Meta{Title: verb + " " + display(call, ch.Path)}
	loc := pluginapi.Location{Path: ch.Path}
	if len(ch.Regions) > 0 {
		loc.Line = ch.Regions[0].First
	}
	m.Locations = []pluginapi.Location{loc}
	if len(ch.OldText)+len(ch.NewText) <= maxMetaDiff {
		// The texts are for display: bytes that are not UTF-8 show as
		// U+FFFD there (the protocol carries UTF-8 only); the file keeps them.
		m.Diffs = []pluginapi.Diff{{Path: ch.Path, OldText: strings.ToValidUTF8(ch.OldText, "\uFFFD"),
			NewText: strings.ToValidUTF8(ch.NewText, "\uFFFD"), NewFile: ch.Created}}
	}
	return m
}

// readTitle titles a read of path: "Read README.md (lines 1–200)".
func readTitle(call *pluginapi.Call, path string, first, last int) string {
	if first <= 0 {
		return "Read " + display(call, path)
	}
	return fmt.Sprintf("Read %s (lines %d–%d)", display(call, path), first, last)
}

// previewTarget resolves the path p of a call for a preview, without
// asking anyone: ok is false for a path outside the project, which a
// preview does not open (the call asks first). Inside, the target is
// opened beneath its project folder; the caller closes it.
func previewTarget(call *pluginapi.Call, p string) (target, bool) {
	t, err := resolvePath(call.Cwd, p)
	if err != nil {
		return target{}, false
	}
	base := projectOf(call).rootOf(t.Real)
	if base == "" || t.open(base) != nil {
		return t, false
	}
	return t, true
}

// previewRead says which file a read reads, and from which line.
func (s *server) previewRead(_ context.Context, call *pluginapi.Call, a readArgs) pluginapi.Meta {
	abs, ok := lexical(call.Cwd, a.FilePath)
	if !ok {
		return pluginapi.Meta{}
	}
	loc := pluginapi.Location{Path: abs}
	title := readTitle(call, abs, 0, 0)
	if a.Offset != nil && *a.Offset > 1 {
		loc.Line = *a.Offset
		limit := defaultReadLimit
		if a.Limit != nil && *a.Limit > 0 {
			limit = *a.Limit
		}
		title = readTitle(call, abs, *a.Offset, *a.Offset+limit-1)
	}
	return pluginapi.Meta{Title: title, Locations: []pluginapi.Location{loc}}
}

// previewWrite is the change a write would make, with its diff when the
// file is in the project.
func (s *server) previewWrite(ctx context.Context, call *pluginapi.Call, a writeArgs) pluginapi.Meta {
	t, inside := previewTarget(call, a.FilePath)
	defer t.close()
	if t.Real == "" {
		return pluginapi.Meta{}
	}
	m := pluginapi.Meta{Title: "Write " + display(call, t.Real), Locations: []pluginapi.Location{{Path: t.Real}}}
	if !inside {
		return m
	}
	old, exists, err := s.load(ctx, s.filesFor(call), t, "write")
	if err != nil {
		return m
	}
	verb := "Write"
	if !exists {
		verb = "Create"
	}
	return changeMeta(call, verb, fileChange{Path: t.Real, OldText: old, NewText: a.Content, Created: !exists})
}

// previewEdit is the change an edit would make, with its diff when the
// file is in the project and old_string matches as the call asks.
func (s *server) previewEdit(ctx context.Context, call *pluginapi.Call, a editArgs) pluginapi.Meta {
	t, inside := previewTarget(call, a.FilePath)
	defer t.close()
	if t.Real == "" {
		return pluginapi.Meta{}
	}
	m := pluginapi.Meta{Title: "Edit " + display(call, t.Real), Locations: []pluginapi.Location{{Path: t.Real}}}
	if !inside {
		return m
	}
	old, exists, err := s.load(ctx, s.filesFor(call), t, "edit")
	if err != nil || !exists {
		return m
	}
	ch, _, err := replace(t, old, a)
	if err != nil {
		return m
	}
	return changeMeta(call, "Edit", ch)
}
