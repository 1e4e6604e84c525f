package acpbridge

import (
	"context"
	"fmt"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// maxTerminalOutput bounds the output the editor keeps of a terminal
// (outputByteLimit): what the model reads of a command.
const maxTerminalOutput = 64 << 10

// terminalGrace bounds the calls that kill, read and release a terminal
// once the command's context has ended.
const terminalGrace = 5 * time.Second

// EditorTerminal says whether the bash calls of this turn run in the
// editor's terminals: Options.Terminal is set and the client offered
// terminal in initialize.
func (ts *turnStream) EditorTerminal() bool { return ts.b.terminal.Load() }

// RunInTerminal runs `bash -c command` in cwd in a terminal the editor
// creates (terminal/create) and shows on call callID (terminal content on
// its tool_call_update, kept on the final one), waits for it to exit,
// reads its output and releases it. When ctx ends first the command is
// killed (terminal/kill) and ctx's error returned with its output.
func (ts *turnStream) RunInTerminal(ctx context.Context, callID, command, cwd string) (output string, truncated bool, exitCode *int, signal string, err error) {
	sid := acp.SessionId(ts.sess.ID())
	var created acp.CreateTerminalResponse
	if err := ts.b.conn.Call(ctx, acp.ClientMethodTerminalCreate, acp.CreateTerminalRequest{SessionId: sid, Command: "bash",
		Args: []string{"-c", command}, Cwd: &cwd, OutputByteLimit: acp.Ptr(maxTerminalOutput)}, &created); err != nil {
		return "", false, nil, "", fmt.Errorf("terminal/create: %w", err)
	}
	id := created.TerminalId
	ts.mu.Lock()
	ts.catchUpLocked()
	if ts.tr.terminals == nil {
		ts.tr.terminals = make(map[string]string)
	}
	ts.tr.terminals[callID] = id
	ts.b.send(ts.sess.ID(), acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{ToolCallId: acp.ToolCallId(callID),
		Content: []acp.ToolCallContent{terminalContent(id)}}})
	ts.mu.Unlock()

	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminalGrace)
	defer cancel()
	defer ts.b.conn.Call(after, acp.ClientMethodTerminalRelease, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: id}, nil)
	var exit acp.WaitForTerminalExitResponse
	werr := ts.b.conn.Call(ctx, acp.ClientMethodTerminalWaitForExit, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id}, &exit)
	if werr != nil && ctx.Err() != nil {
		_ = ts.b.conn.Call(after, acp.ClientMethodTerminalKill, acp.KillTerminalRequest{SessionId: sid, TerminalId: id}, nil)
	}
	var out acp.TerminalOutputResponse
	oerr := ts.b.conn.Call(after, acp.ClientMethodTerminalOutput, acp.TerminalOutputRequest{SessionId: sid, TerminalId: id}, &out)
	exitCode = exit.ExitCode
	if exit.Signal != nil {
		signal = *exit.Signal
	}
	switch {
	case werr != nil && ctx.Err() != nil:
		err = ctx.Err()
	case werr != nil:
		err = fmt.Errorf("terminal/wait_for_exit: %w", werr)
	case oerr != nil:
		err = fmt.Errorf("terminal/output: %w", oerr)
	}
	return out.Output, out.Truncated, exitCode, signal, err
}

// terminalContent is tool call content showing terminal id.
func terminalContent(id string) acp.ToolCallContent {
	return acp.ToolCallContent{Terminal: &acp.ToolCallContentTerminal{Type: "terminal", TerminalId: id}}
}
