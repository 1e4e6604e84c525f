// Package services is the host side of the plugins' HostServices: Host
// implements pluginapi.HostServices for the sessions of one runtime, from
// what the runtime hands it through small interfaces (the open sessions
// by id, the approver and the editor of each session's running turn, a
// spawner of child sessions).
//
// ReadState answers a session's todo list and cwd from its log;
// RequestPermission asks whoever answers the session's running turn (once,
// not logged); SpawnSubagent runs a child session whose questions go to
// the parent's approver, shown on the parent's subagent call, and notes
// the child's session and usage under its answer. ReadTextFile and
// WriteTextFile go through the turn's editor when it offers them
// (EditorFiles: unsaved buffers, changes the editor applies), else to
// disk: opened in one step beneath the session's cwd, or "/", following
// no symlink (pluginapi/fsroot), written by a temporary file renamed into
// place. Text files are UTF-8: a file or a text that is not is refused in
// one line, never decoded or written lossily, and a file is at most
// maxTextFile bytes.
package services
