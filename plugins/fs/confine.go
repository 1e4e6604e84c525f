//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/harness-dev/harness/pluginapi"
)

// Asker asks the user, through the host, whether a running call may go
// ahead: title is the one-line question. Its production implementation is
// hostAsker (pluginapi.RequestPermission over the call's HostServices).
type Asker interface {
	Ask(ctx context.Context, call *pluginapi.Call, title string) (pluginapi.PermissionResponse, error)
}

// hostAsker asks through the host behind the call. The host answers for
// this one request (an "always" is not part of its answer), so every call
// that reaches outside the project asks again.
type hostAsker struct{}

func (hostAsker) Ask(ctx context.Context, call *pluginapi.Call, title string) (pluginapi.PermissionResponse, error) {
	return pluginapi.RequestPermission(ctx, call.Host, pluginapi.PermissionRequest{
		SessionID: call.SessionID, CallID: call.CallID, Tool: call.Tool, Title: title, Args: call.Args})
}

// project is where a call reaches without asking: its cwd and its
// session's own folder (where plugins keep the session's spilled output),
// each with its symlinks resolved. An empty cwd has no project.
type project struct {
	cwd   string   // the cwd as the user knows it, for messages
	roots []string // resolved folders
}

func projectOf(call *pluginapi.Call) project {
	var p project
	if call.Cwd != "" && filepath.IsAbs(call.Cwd) {
		p.cwd = filepath.Clean(call.Cwd)
		p.roots = append(p.roots, realDir(p.cwd))
	}
	if dir := call.SessionDir(); dir != "" && p.cwd != "" {
		p.roots = append(p.roots, realDir(dir))
	}
	return p
}

// realDir resolves dir's symlinks; a folder that cannot be resolved (gone,
// unreadable) stays as it is, so that only what is lexically below it
// counts as inside.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// contains reports whether the resolved path real is in the project.
func (p project) contains(real string) bool {
	return p.rootOf(real) != ""
}

// rootOf is the project folder holding the resolved path real, or "".
func (p project) rootOf(real string) string {
	for _, root := range p.roots {
		if real == root || strings.HasPrefix(real, strings.TrimSuffix(root, "/")+"/") {
			return root
		}
	}
	return ""
}

// where says what lies outside of, for questions and refusals.
func (p project) where() string {
	if p.cwd == "" {
		return "outside the project (the session has no working directory)"
	}
	return "outside the project " + quoteName(p.cwd)
}

// resolve makes the path p of a call absolute and resolves its symlinks,
// as resolvePath does, and asks the user (once) when the result is
// outside the project; verb names the action in the question ("read",
// "search", "list files in", "write", "edit"). A refusal is an error for
// the model. When p cannot be resolved, the question is about the path as
// written, so that an error names nothing outside the project unasked.
//
// The target it returns is opened where it will be used (see target):
// beneath the project folder holding it, or, outside, beneath "/" with
// the file as it was found before the question (device and inode) to
// compare with what is opened. The caller closes it.
func (s *server) resolve(ctx context.Context, call *pluginapi.Call, verb, p string) (target, error) {
	t, err := resolvePath(call.Cwd, p)
	proj := projectOf(call)
	if err != nil {
		abs, ok := lexical(call.Cwd, p)
		if !ok || proj.contains(realDir(filepath.Dir(abs))) {
			return target{}, err
		}
		if aerr := s.allow(ctx, call, proj, verb, target{Path: abs, Real: abs}); aerr != nil {
			return target{}, aerr
		}
		return target{}, err
	}
	if base := proj.rootOf(t.Real); base != "" {
		if err := t.open(base); err != nil {
			return target{}, err
		}
		return t, nil
	}
	if err := t.open("/"); err != nil {
		return target{}, err
	}
	ierr := t.identify() // said only once the user allowed the path
	if err := s.allow(ctx, call, proj, verb, t); err != nil {
		t.close()
		return target{}, err
	}
	if ierr != nil {
		t.close()
		return target{}, ierr
	}
	return t, nil
}

// lexical is p made absolute against cwd and cleaned, when it can be.
func lexical(cwd, p string) (string, bool) {
	p = unquoteArg(p)
	if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return "", false
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), true
}

// allow asks the user whether the call may act (verb) on t, outside the
// project.
func (s *server) allow(ctx context.Context, call *pluginapi.Call, proj project, verb string, t target) error {
	title := fmt.Sprintf("%s %s, %s", verb, quoteName(t.Real), proj.where())
	if t.Path != t.Real {
		title = fmt.Sprintf("%s %s (through the symlink %s), %s", verb, quoteName(t.Real), quoteName(t.Path), proj.where())
	}
	res, err := s.ask.Ask(ctx, call, title)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		why := err.Error()
		if errors.Is(err, pluginapi.ErrUnimplemented) {
			why = "this host cannot ask the user"
		}
		return fmt.Errorf("permission denied: %s is %s and the user could not be asked (%s); work inside the project or ask the user to allow it", quoteName(t.Real), proj.where(), why)
	}
	if res.Allowed {
		return nil
	}
	msg := fmt.Sprintf("permission denied: %s is %s; ask the user", quoteName(t.Real), proj.where())
	if why := strings.TrimPrefix(strings.TrimSpace(res.Reason), "permission denied: "); why != "" {
		msg += " (" + oneLine(why) + ")"
	}
	return errors.New(msg)
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
