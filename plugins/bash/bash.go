//go:build unix

package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/sandbox"
)

// The model-facing description and the wire schema of bash.
var (
	//go:embed description.md
	description string
	//go:embed schema.json
	schema []byte
)

// Tool names.
const (
	toolBash   = "bash"
	toolOutput = "bash_output"
	toolKill   = "bash_kill"
)

// Timeouts of bash, in milliseconds.
const (
	defaultTimeoutMs = 120_000
	maxTimeoutMs     = 600_000
)

// taskSchema is the parameter schema of bash_output and bash_kill.
const taskSchema = `{"type":"object","properties":{"task_id":{"type":"string",` +
	`"description":"The id bash returned when it started the task, e.g. bash_1."}},` +
	`"required":["task_id"],"additionalProperties":false}`

const outputDescription = `Reads a background task's new output and its status (running, exited with its code, or killed).`

const killDescription = `Stops a background task and all it started; its output stays readable.`

// bashPlugin is the plugin's state: the processes it runs and the
// background tasks, shared by the tools' handlers.
type bashPlugin struct {
	bash    string // the path of bash; "" with bashErr when there is none
	bashErr error
	env     []string // the commands' environment
	tmpDir  string   // spill folders when the host gave no state dir
	groups  *groups
	tasks   *taskTable
	sb      *launcher
	sbx     *sandboxConfig // the commands' sandbox (Linux)

	privateOnce sync.Once
	privateErr  error

	spillCap int64 // the most a session's spill files may hold together
	spillMu  sync.Mutex
	spills   map[string]*spillQuota // by session id
}

// defaultSpillCap is spillCap: four background `yes` cannot fill a disk.
const defaultSpillCap = 256 << 20

// newPlugin makes the plugin's state; environ is the environment commands
// start from (the plugin's own), tmpDir the system's temporary folder.
func newPlugin(environ []string, tmpDir string) *bashPlugin {
	bash, err := exec.LookPath("bash")
	sbx := newSandboxConfig(environ)
	sb := newLauncher(environ)
	sb.sandboxed(sbx.mode != sandbox.Off)
	private := filepath.Join(tmpDir, "harness-bash-"+strconv.Itoa(os.Getuid()))
	sb.serveNetwork(newProxies(sbx.network, private))
	sb.keepPlaceholders(private)
	return &bashPlugin{
		bash:    bash,
		bashErr: err,
		env:     commandEnv(environ),
		tmpDir:  private,
		groups:  newGroups(),
		tasks:   newTaskTable(),
		sb:      sb,
		sbx:     sbx,

		spillCap: defaultSpillCap,
		spills:   map[string]*spillQuota{},
	}
}

// quota is the spill quota of a session.
func (b *bashPlugin) quota(session string) *spillQuota {
	b.spillMu.Lock()
	defer b.spillMu.Unlock()
	q := b.spills[session]
	if q == nil {
		q = newSpillQuota(b.spillCap)
		b.spills[session] = q
	}
	return q
}

// removeSpills removes the spill files of session, or of every session
// when all.
func (b *bashPlugin) removeSpills(session string, all bool) {
	b.spillMu.Lock()
	var qs []*spillQuota
	for s, q := range b.spills {
		if all || s == session {
			qs = append(qs, q)
			delete(b.spills, s)
		}
	}
	b.spillMu.Unlock()
	for _, q := range qs {
		q.removeAll()
	}
}

// plugin is what Serve serves.
func (b *bashPlugin) plugin() pluginapi.Plugin {
	return pluginapi.Plugin{
		Name:         "bash",
		Version:      "1.0.0",
		Capabilities: capabilities,
		Tools: []pluginapi.Tool{
			pluginapi.Typed(pluginapi.ToolSpec{
				Name:            toolBash,
				Description:     strings.TrimSpace(description),
				Schema:          schema,
				NeedsPermission: true,
				Kind:            pluginapi.KindExecute,
				Title:           "{command}",
			}, b.runBash),
			pluginapi.Typed(pluginapi.ToolSpec{
				Name:            toolOutput,
				Description:     outputDescription,
				Schema:          json.RawMessage(taskSchema),
				ConcurrencySafe: true,
				Kind:            pluginapi.KindRead, // reads a task's output, changes nothing
			}, b.readTask),
			pluginapi.Typed(pluginapi.ToolSpec{
				Name:            toolKill,
				Description:     killDescription,
				Schema:          json.RawMessage(taskSchema),
				NeedsPermission: true,
				Kind:            pluginapi.KindExecute, // stops a process
			}, b.killTask),
		},
		SessionClosed: b.sessionClosed,
		HoldsState:    b.tasks.holds,
		OnExit:        b.exit,
	}
}

type bashArgs struct {
	Command         string `json:"command"`
	Description     string `json:"description"`
	TimeoutMs       *int64 `json:"timeout_ms"`
	Workdir         string `json:"workdir"`
	RunInBackground bool   `json:"run_in_background"`
	// Sandbox "off" runs the command outside the sandbox; the host has
	// asked the user (the host reads it as this field is read: see
	// engine's escalates). Justification says why, for the question.
	Sandbox       string `json:"sandbox"`
	Justification string `json:"justification"`
}

// maxJustification is the longest justification, in bytes: one line.
const maxJustification = 500

type taskArgs struct {
	TaskID string `json:"task_id"`
}

// runBash is the bash tool: check the arguments, then run the command in
// the foreground or start it as a background task.
func (b *bashPlugin) runBash(ctx context.Context, call *pluginapi.Call, a bashArgs) (pluginapi.Result, error) {
	if strings.TrimSpace(a.Command) == "" {
		return pluginapi.ErrorResult("invalid command: expected a non-empty string"), nil
	}
	if strings.TrimSpace(a.Description) == "" {
		return pluginapi.ErrorResult("invalid description: expected a non-empty string"), nil
	}
	switch {
	case a.Sandbox != "" && a.Sandbox != string(sandbox.Off):
		return pluginapi.ErrorResult("invalid sandbox: %q; the only value is \"off\" (with a justification), or leave it out to run in the sandbox", a.Sandbox), nil
	case a.Sandbox == "" && a.Justification != "":
		return pluginapi.ErrorResult("invalid justification: it goes with sandbox \"off\" only; leave it out to run in the sandbox"), nil
	case a.Sandbox != "" && strings.TrimSpace(a.Justification) == "":
		return pluginapi.ErrorResult("invalid justification: sandbox \"off\" needs a one-line justification telling the user why the command must run outside the sandbox"), nil
	case strings.ContainsAny(a.Justification, "\r\n") || len(a.Justification) > maxJustification:
		return pluginapi.ErrorResult("invalid justification: expected one line of at most %d bytes", maxJustification), nil
	}
	timeout := time.Duration(defaultTimeoutMs) * time.Millisecond
	if a.TimeoutMs != nil {
		switch ms := *a.TimeoutMs; {
		case ms <= 0:
			return pluginapi.ErrorResult("invalid timeout_ms: expected a positive number of milliseconds, got %d", ms), nil
		case ms > maxTimeoutMs:
			return pluginapi.ErrorResult("invalid timeout_ms: %d is above the maximum of %d (10 minutes); use run_in_background for longer commands", ms, maxTimeoutMs), nil
		default:
			timeout = time.Duration(ms) * time.Millisecond
		}
	}
	dir, err := workdir(call.Cwd, a.Workdir)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	if b.bashErr != nil {
		return pluginapi.ErrorResult("find bash: %v", b.bashErr), nil
	}
	if ctx.Err() != nil {
		return pluginapi.ErrorResult("command aborted"), nil
	}
	c := command{bash: b.bash, line: a.Command, dir: dir, env: b.env}
	if runtime.GOOS == "linux" {
		base, err := workdir(call.Cwd, "")
		if err == nil {
			c.policy, err = b.sbx.policy(call, base, b.tmpDir, a.Sandbox == string(sandbox.Off))
		}
		if err != nil {
			return pluginapi.ErrorResult("set up the sandbox: %v", err), nil
		}
	}
	if a.RunInBackground {
		if a.TimeoutMs == nil {
			timeout = 0 // a background task runs until it ends or is killed
		}
		return b.startTask(call, c, timeout), nil
	}
	return b.foreground(ctx, call, c, timeout), nil
}

// workdir resolves the working directory: dir, relative to the session's
// cwd (the plugin's when the call has none); the cwd when dir is empty. It
// must be an existing directory.
func workdir(cwd, dir string) (string, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the working directory: %w", err)
		}
		cwd = wd
	}
	switch {
	case dir == "":
		dir = cwd
	case !filepath.IsAbs(dir):
		dir = filepath.Join(cwd, dir)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("workdir %s does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("check workdir: %w", err)
	case !fi.IsDir():
		return "", fmt.Errorf("workdir %s is not a directory", dir)
	}
	return filepath.Clean(dir), nil
}

// foreground runs c until it ends, times out or ctx is done, streaming its
// output as progress.
func (b *bashPlugin) foreground(ctx context.Context, call *pluginapi.Call, c command, timeout time.Duration) pluginapi.Result {
	dir, dirErr := b.spillDir(call)
	out := newOutput(dir, "bash-"+fileName(call.CallID, "call"), dirErr, true, b.quota(call.SessionID))
	missing := missingProtected(c.policy)
	p, err := start(c, out, b.groups, b.sb)
	if err != nil {
		return pluginapi.ErrorResult("start bash: %v", err)
	}
	stopLive := streamLive(out, call.Progress)
	timer := time.NewTimer(timeout)
	var markers []string
	aborted := false
	select {
	case <-p.exited:
	case <-timer.C:
		markers = append(markers, fmt.Sprintf("[timed out after %d ms]", timeout.Milliseconds()))
		p.stop()
	case <-ctx.Done():
		aborted = true
		p.stop()
	case <-out.overflowed():
		markers = append(markers, "[output passed 1 GiB; command stopped]")
		p.stop()
	}
	timer.Stop()
	p.finish()
	// The placeholders go when the init is reaped (its namespace gone),
	// a few milliseconds after the result: waiting for that here cost
	// every sandboxed command ~3 ms (its namespace's teardown). A next
	// command made meanwhile shares them (counted), so none is removed
	// under a running command.
	stopLive()
	out.close()
	if m := exitMarker(p.exitState()); m != "" {
		markers = append(markers, m)
		if st := p.exitState(); c.policy.Enabled() && !aborted && st != nil && st.code != 0 {
			pol := c.policy
			if p.leader.proxy != nil {
				pol.Proxy = p.leader.proxy.path // set when the command started
			}
			if note := sandboxNote(pol, out.tail()); note != "" {
				markers = append(markers, note)
			}
		}
	}
	if note := p.leader.proxy.note(); note != "" {
		markers = append(markers, note)
	}
	missing = slices.DeleteFunc(missing, func(m string) bool { return slices.Contains(p.leader.placeholders, m) })
	if note := createdNote(missing); note != "" {
		markers = append(markers, note)
	}
	trailer := strings.Join(markers, "\n")
	if aborted {
		return pluginapi.Result{Content: out.text("Error: command aborted\n", "(no output)", trailer), IsError: true}
	}
	return pluginapi.Result{Content: out.text("", "(no output)", trailer)}
}

// startTask starts c as a background task of the call's session.
func (b *bashPlugin) startTask(call *pluginapi.Call, c command, timeout time.Duration) pluginapi.Result {
	dir, dirErr := b.spillDir(call)
	quota := b.quota(call.SessionID)
	t, err := b.tasks.start(call.SessionID, timeout, func(id string) (*proc, *output, error) {
		out := newOutput(dir, "bash-"+id, dirErr, false, quota)
		p, err := start(c, out, b.groups, b.sb)
		return p, out, err
	})
	if err != nil {
		return pluginapi.ErrorResult("start bash: %v", err)
	}
	return pluginapi.Result{Content: fmt.Sprintf(
		"Started background task %s (process group %d). Read its output and status with bash_output {\"task_id\": %q}; stop it with bash_kill.",
		t.id, t.proc.pgid, t.id)}
}

// readTask is the bash_output tool.
func (b *bashPlugin) readTask(_ context.Context, call *pluginapi.Call, a taskArgs) (pluginapi.Result, error) {
	t, err := b.tasks.get(a.TaskID, call.SessionID)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	status, done := t.finished() // before the output: a finished task has all of it
	if !done {
		status = "running"
	}
	trailer := "[status: " + status + "]"
	if note := t.proc.leader.proxy.note(); done && note != "" {
		trailer = note + "\n" + trailer // the status stays the last line
	}
	return pluginapi.Result{Content: t.out.take("(no new output)", trailer)}, nil
}

// killTask is the bash_kill tool.
func (b *bashPlugin) killTask(ctx context.Context, call *pluginapi.Call, a taskArgs) (pluginapi.Result, error) {
	t, err := b.tasks.get(a.TaskID, call.SessionID)
	if err != nil {
		return pluginapi.ErrorResult("%v", err), nil
	}
	if status, done := t.finished(); done {
		return pluginapi.Result{Content: fmt.Sprintf("Task %s had already finished [status: %s].", t.id, status)}, nil
	}
	t.stop(ctx)
	status, done := t.finished()
	if !done {
		return pluginapi.ErrorResult("command aborted while stopping task %s", t.id), nil
	}
	return pluginapi.Result{Content: fmt.Sprintf("Stopped background task %s [status: %s]. Its output stays readable with bash_output.", t.id, status)}, nil
}

// sessionClosed stops the background tasks of a session that ended and
// removes its spill files.
func (b *bashPlugin) sessionClosed(ctx context.Context, session string) {
	b.tasks.closeSession(ctx, session)
	b.removeSpills(session, false)
	b.sbx.removeTemps(session, false)
	b.sb.sweep(b.groups, false)
}

// exit kills every process the plugin started and removes every spill
// file, as it exits.
func (b *bashPlugin) exit() {
	b.sb.close()
	b.tasks.close()
	b.groups.killAll()
	b.sb.awaitPlaceholders(killGrace)
	b.sb.sweep(b.groups, true)
	b.removeSpills("", true)
	b.sbx.removeTemps("", true)
}

// spillDir is where the call's spill files go: its session's folder when
// the host gave a state dir, else a private folder per session under the
// system's temporary folder.
func (b *bashPlugin) spillDir(call *pluginapi.Call) (string, error) {
	if dir := call.SessionDir(); dir != "" {
		return dir, nil
	}
	b.privateOnce.Do(func() { b.privateErr = ensurePrivate(b.tmpDir) })
	if b.privateErr != nil {
		return "", b.privateErr
	}
	return filepath.Join(b.tmpDir, fileName(call.SessionID, "no-session")), nil
}

// ensurePrivate makes dir a folder only this user can enter, refusing one
// that exists as anything else (another user's, a symbolic link, a folder
// others may enter).
func ensurePrivate(dir string) error {
	switch err := os.Mkdir(dir, 0o700); {
	case err == nil:
		// The umask may have taken the owner's bits (umask 0277 leaves
		// 0500, a folder its owner cannot write in): the folder made here
		// is set to 0700 whatever the umask. One that existed is checked,
		// never changed.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is not a private folder of this user", dir)
	}
	return nil
}

// mkdirPrivate makes dir and its missing parents 0700 whatever the umask
// (os.MkdirAll's 0700 is 0500 under umask 0277: a folder its owner cannot
// write in). Folders that exist are left as they are.
func mkdirPrivate(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a folder", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirPrivate(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return err
	}
	return os.Chmod(dir, 0o700)
}

// fileName makes s usable in a file name: letters, digits, '.', '_' and
// '-' are kept, anything else becomes '_', at most 64 bytes; fallback
// stands for an empty s.
func fileName(s, fallback string) string {
	b := []byte(s)
	if len(b) > 64 {
		b = b[:64]
	}
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return fallback
	}
	return string(b)
}
