package services

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/pluginapi"
)

// Sessions finds a session open in this process by id.
type Sessions interface {
	Session(id string) (*session.Session, bool)
}

// Approvers finds the approver of a session's running turn (a running
// child's is its root's, asking on the parent's call).
type Approvers interface {
	Approver(sessionID string) (agent.Approver, bool)
}

// Editors finds the editor of a session's running turn, when its client
// reads or writes files for the agent.
type Editors interface {
	Editor(sessionID string) (EditorFiles, bool)
}

// Spawner runs a child session for a parent's tool call and returns its
// answer; the child's permission questions go to approver.
type Spawner interface {
	Spawn(ctx context.Context, req pluginapi.SubagentRequest, approver agent.Approver, progress pluginapi.Progress) (subagent.Result, error)
}

// Host implements pluginapi.HostServices for the sessions of one
// runtime. Every answer is projected from a session's log or comes from
// the session's running turn; Host holds no state of its own. All fields
// are required.
type Host struct {
	Sessions  Sessions
	Approvers Approvers
	Editors   Editors
	Subagents Spawner
}

var _ pluginapi.HostServices = (*Host)(nil)

// ReadState implements pluginapi.HostServices: the session's todo list and
// cwd, from its log.
func (h *Host) ReadState(_ context.Context, req pluginapi.ReadStateRequest) (pluginapi.ReadStateResponse, error) {
	s, ok := h.Sessions.Session(req.SessionID)
	if !ok {
		return pluginapi.ReadStateResponse{}, fmt.Errorf("read state: no open session %q", req.SessionID)
	}
	resp := pluginapi.ReadStateResponse{Cwd: s.Cwd()}
	for _, t := range s.Todos() {
		resp.Todos = append(resp.Todos, pluginapi.Todo{Content: t.Content, Status: string(t.Status)})
	}
	return resp, nil
}

// RequestPermission implements pluginapi.Permissions: a plugin's own
// question goes to whoever answers for the session's running turn (the
// editor or the terminal), through its policy. The answer holds for this
// request only; it is not logged (the loop logs its own checks).
func (h *Host) RequestPermission(ctx context.Context, req pluginapi.PermissionRequest) (pluginapi.PermissionResponse, error) {
	ap, ok := h.Approvers.Approver(req.SessionID)
	if !ok {
		return pluginapi.PermissionResponse{Reason: "no one to ask: session " + req.SessionID + " has no running turn"}, nil
	}
	a, err := ap.Approve(ctx, agent.ApprovalRequest{SessionID: req.SessionID, CallID: req.CallID,
		Tool: req.Tool, Args: string(req.Args), Title: req.Title, Once: true})
	if err != nil {
		return pluginapi.PermissionResponse{}, err
	}
	reason := a.Reason
	if !a.Decision.Allows() && reason == "" {
		reason = "permission denied by user"
	}
	return pluginapi.PermissionResponse{Allowed: a.Decision.Allows(), Reason: reason}, nil
}

// subagentApprover asks the root client about a child's calls, naming the
// subagent and showing the question on the parent's subagent tool call.
type subagentApprover struct {
	inner        agent.Approver
	parentCallID string
	label        string
}

// Approve implements agent.Approver.
func (a subagentApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, error) {
	what := cmp.Or(req.ToolTitle, req.Tool) // an MCP tool by its title
	if cmd := permission.Command([]byte(req.Args)); cmd != "" {
		what += ": " + cmd
	}
	if req.Title == "" {
		req.Title = fmt.Sprintf("subagent %q to run %s", a.label, clip(what, 200))
	}
	req.CallID = a.parentCallID
	return a.inner.Approve(ctx, req)
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// SpawnSubagent implements pluginapi.Subagents: it runs a child session of
// the caller's and returns its answer, with its session and usage noted.
func (h *Host) SpawnSubagent(ctx context.Context, req pluginapi.SubagentRequest, progress pluginapi.Progress) (pluginapi.SubagentResult, error) {
	parent, ok := h.Approvers.Approver(req.ParentSessionID)
	if !ok {
		return pluginapi.SubagentResult{}, fmt.Errorf("spawn subagent: session %s has no running turn", req.ParentSessionID)
	}
	child := subagentApprover{inner: parent, parentCallID: req.ParentCallID, label: req.Description}
	res, err := h.Subagents.Spawn(ctx, req, child, progress)
	var serr *subagent.Error
	switch {
	case errors.As(err, &serr):
		return pluginapi.SubagentResult{Text: serr.Error() + footer(serr.SessionID, serr.Usage.InputTokens, serr.Usage.OutputTokens), IsError: true}, nil
	case err != nil:
		return pluginapi.SubagentResult{}, err
	}
	return pluginapi.SubagentResult{Text: strings.TrimSpace(res.Text) + footer(res.SessionID, res.Usage.InputTokens, res.Usage.OutputTokens)}, nil
}

// footer notes the child's session and usage under its answer.
func footer(id string, in, out int) string {
	if id == "" {
		return ""
	}
	if in+out == 0 {
		return fmt.Sprintf("\n\n[subagent session %s]", id)
	}
	return fmt.Sprintf("\n\n[subagent session %s · %d input, %d output tokens]", id, in, out)
}

// EditorFiles is implemented by a turn's Live whose client is an editor
// that reads and writes files for the agent (an ACP client that offered
// fs.readTextFile / fs.writeTextFile in initialize). While the turn runs,
// the plugins' text files (HostServices.ReadTextFile, WriteTextFile) go
// through it, so that they see unsaved buffers and the editor applies
// their changes; without it they are served from disk.
type EditorFiles interface {
	// EditorFiles says which of reading and writing the editor offers.
	EditorFiles() (read, write bool)
	// ReadEditorFile returns the text of the file at the absolute path as
	// the editor has it, unsaved changes included.
	ReadEditorFile(ctx context.Context, path string) (string, error)
	// WriteEditorFile has the editor replace the file's text.
	WriteEditorFile(ctx context.Context, path, content string) error
}

// maxTextFile bounds a text file the host reads or writes for a plugin,
// under the plugin protocol's message bound.
const maxTextFile = 32 << 20

// textFileCheck refuses what no session's text file can be.
func (h *Host) textFileCheck(op, sessionID, path string) error {
	if _, ok := h.Sessions.Session(sessionID); !ok {
		return fmt.Errorf("%s: no open session %q", op, sessionID)
	}
	if !filepath.IsAbs(path) || strings.ContainsRune(path, 0) {
		return fmt.Errorf("%s: %q is not an absolute path", op, path)
	}
	return nil
}

// ReadTextFile implements pluginapi.TextFiles: through the session's
// editor when it reads files, else from disk, opened as textfiles.go
// says (beneath the session's cwd, following no symlink).
func (h *Host) ReadTextFile(ctx context.Context, req pluginapi.ReadTextFileRequest) (pluginapi.TextFile, error) {
	if err := h.textFileCheck("read text file", req.SessionID, req.Path); err != nil {
		return pluginapi.TextFile{}, err
	}
	if ed, ok := h.Editors.Editor(req.SessionID); ok {
		if read, _ := ed.EditorFiles(); read {
			if !utf8.ValidString(req.Path) {
				return pluginapi.TextFile{}, fmt.Errorf("read %q: the path is not UTF-8, and the editor's fs/read_text_file takes a UTF-8 path (it would name another file), so the host does not read it through the editor: read it from disk", req.Path)
			}
			if why := h.diskNotUTF8(req.SessionID, req.Path); why != "" {
				return pluginapi.TextFile{}, fmt.Errorf("read %s: the file on disk is not UTF-8 (%s); the editor's fs/read_text_file would hand over decoded text, and writing that back could change its other bytes, so the host does not read it through the editor: read its bytes from disk", req.Path, why)
			}
			text, err := ed.ReadEditorFile(ctx, req.Path)
			if err != nil {
				return pluginapi.TextFile{}, fmt.Errorf("read %s through the editor: %w", req.Path, err)
			}
			return pluginapi.TextFile{Content: text, Source: pluginapi.SourceEditor}, nil
		}
	}
	data, err := h.readRegular(req.SessionID, req.Path)
	if err != nil {
		return pluginapi.TextFile{}, err
	}
	if why := notUTF8(data); why != "" {
		return pluginapi.TextFile{}, fmt.Errorf("read %s: the file is not UTF-8 (%s); the host's text files are UTF-8 strings, which cannot carry its bytes: read its bytes from disk", req.Path, why)
	}
	return pluginapi.TextFile{Content: string(data), Source: pluginapi.SourceDisk}, nil
}

// WriteTextFile implements pluginapi.TextFiles: through the session's
// editor when it writes files, else on disk, atomically, beneath the
// session's cwd (see textfiles.go).
func (h *Host) WriteTextFile(ctx context.Context, req pluginapi.WriteTextFileRequest) (pluginapi.TextFile, error) {
	if err := h.textFileCheck("write text file", req.SessionID, req.Path); err != nil {
		return pluginapi.TextFile{}, err
	}
	if len(req.Content) > maxTextFile {
		return pluginapi.TextFile{}, fmt.Errorf("write %s: %d bytes is over the %d the host writes", req.Path, len(req.Content), maxTextFile)
	}
	if ed, ok := h.Editors.Editor(req.SessionID); ok {
		if _, write := ed.EditorFiles(); write {
			if !utf8.ValidString(req.Path) {
				return pluginapi.TextFile{}, fmt.Errorf("write %q: the path is not UTF-8, and the editor's fs/write_text_file takes a UTF-8 path (it would name another file), so nothing was written: write it to disk", req.Path)
			}
			if why := notUTF8([]byte(req.Content)); why != "" {
				return pluginapi.TextFile{}, fmt.Errorf("write %s: the new text is not UTF-8 (%s); the editor's fs/write_text_file takes UTF-8 text and would store U+FFFD in place of those bytes, so nothing was written: write the bytes to disk", req.Path, why)
			}
			if why := h.diskNotUTF8(req.SessionID, req.Path); why != "" {
				return pluginapi.TextFile{}, fmt.Errorf("write %s: the file on disk is not UTF-8 (%s); the editor's fs/write_text_file would store its text over it and could change the bytes not meant to change, so nothing was written: write the bytes to disk", req.Path, why)
			}
			if err := ed.WriteEditorFile(ctx, req.Path, req.Content); err != nil {
				return pluginapi.TextFile{}, fmt.Errorf("write %s through the editor: %w", req.Path, err)
			}
			return pluginapi.TextFile{Source: pluginapi.SourceEditor}, nil
		}
	}
	if err := h.writeAtomic(req.SessionID, req.Path, []byte(req.Content)); err != nil {
		return pluginapi.TextFile{}, err
	}
	return pluginapi.TextFile{Source: pluginapi.SourceDisk}, nil
}

// notUTF8 says where data stops being UTF-8 ("byte 0xE9 at offset 3"),
// or "" when it is UTF-8.
func notUTF8(data []byte) string {
	if utf8.Valid(data) {
		return ""
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Sprintf("byte 0x%02X at offset %d", data[i], i)
		}
		i += n
	}
	return "invalid UTF-8"
}
