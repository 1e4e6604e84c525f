//go:build unix

// Command fs is the harness plugin serving the file tools, with the
// argument shapes current models are trained on:
//
//   - read {file_path, offset?, limit?}: numbered lines (cat -n style),
//     2,000 from offset (1-based, default 1); lines longer than 2,000
//     bytes are cut with a marker; output capped at 100,000 bytes. A
//     binary file (a NUL byte in its first 8,000 bytes) is described, not
//     shown; a directory lists its entries (sorted, at most 500 of the
//     first 10,000 it looks at, saying what it cut); a missing file names
//     the nearest existing names (of the first 10,000 its folder lists,
//     compared on their first 64 characters; none once the call's
//     context has ended). Anything but a regular file or a directory
//     (a FIFO, /dev/zero, a socket) is refused before it is opened, and
//     opened with O_NONBLOCK anyway. A huge file is streamed, never
//     loaded whole; one read scans at most 256 MiB of it (and says where
//     it stopped), and its context is checked at every read from the
//     file, so a cancelled read stops inside an endless line.
//   - write {file_path, content}: creates the parent folders, writes
//     atomically (a temporary file in the same folder renamed over the
//     target, keeping its mode; new files 0644).
//   - edit {file_path, old_string, new_string, replace_all?}: exact
//     replacement; a missing or non-unique old_string is an error result
//     with the match count (and lines); answers with the changed region,
//     numbered.
//   - grep {pattern, path?, glob?, output_mode?, -i?, -n?, -A?, -B?, -C?,
//     context?, head_limit?}: Go RE2 regexps over the tree, skipping
//     .git, what .gitignore files ignore (nested ones too, and those of
//     the folders above up to the repository's root) and the
//     repository's .git/info/exclude, binary files and symlinks. Files
//     are streamed, never loaded whole, within budgets: 1 MiB of a line
//     is matched (the rest skipped), 32 MiB of a file searched, 512 MiB
//     scanned per call (then the walk stops); a search a budget cut ends
//     with one "[results incomplete: …]" line saying what. Output capped
//     (head_limit, default 250 entries, and 30,000 bytes) with the count
//     of what was cut; content lines past what can be shown are counted,
//     not kept, and so are matching files past the first 10,000.
//   - glob {pattern, path?}: doublestar patterns (`**`, `{a,b}`), files
//     only, newest first, .gitignore and .git/info/exclude respected, at
//     most 100 with the count cut. It keeps (and stats, to sort) the first
//     10,000 matches and counts the rest, saying in one "[results
//     incomplete: …]" line that the files listed are the newest of those.
//
// The walk of glob and grep reads at most 1,000,000 entries per call
// (ignored ones too; then it stops and says so in that line), and reads
// folders 1,000 entries at a time, checking the call's context between
// batches and between entries, so that a folder of millions neither loads
// whole nor delays cancellation. A folder of at most 10,000 entries is
// walked in lexical order; a larger one batch by batch, each sorted, in
// the order the system lists them.
//
// Paths are absolute or relative to the call's cwd; results name absolute
// paths, and say where a symlink leads (a symlink loop is an error). write
// and edit act on the resolved file, so a symlink stays a symlink. A name
// that is not UTF-8, holds a newline or any character that does not print,
// or starts with a double quote is Go-quoted (strconv.Quote) in results —
// grep's and glob's lines, a folder's listing, messages — so that a line
// is one name; a path argument that is a whole Go-quoted string is taken
// unquoted. Whatever a name or a file holds, results and their metadata
// are valid UTF-8 (validUTF8 checks last; an editor location or diff
// whose path is not UTF-8 is left out).
//
// Read before write: the plugin remembers, per session and resolved path,
// the sha256 (and size and mtime) of what the session last read or wrote.
// write over an existing file and edit are refused, with a one-line
// reason, unless the file's contents are still exactly that: the model
// must read a file before changing it and again after anything else
// changed it. A new file needs no read. The memory is the plugin
// process's only (SessionClosed drops a session's), so after a restart of
// the plugin the model reads again. Files over 16 MiB can be read but not
// written or edited, and write and edit refuse, in one line, new contents
// over 16 MiB (an edit's size is worked out before it is built, so a
// replace_all cannot multiply a file in memory).
//
// File contents go through the Files interface (files.go): per call,
// hostFiles reads and writes text through the host's ReadTextFile and
// WriteTextFile (pluginapi minor 2), which an editor serves under
// `harness acp` when it offers its file system — read sees unsaved
// buffers, write and edit change the buffer, and read before write is
// judged on the buffer — and the host serves from disk otherwise; an
// older host leaves everything to diskFiles. Binary files and files over
// 16 MiB are read from disk. So are files that are not UTF-8: the host's
// text is UTF-8 strings (an editor's JSON text turns a stray byte into
// U+FFFD), so such a file, and new contents that are not UTF-8, are read
// and written on disk byte for byte — an edit of a Latin-1 file keeps
// every byte it does not replace; read shows the bad bytes as U+FFFD and
// says so. grep and glob search the disk.
//
// What the editor shows: the tools declare their kinds (read read,
// write/edit edit, grep/glob search). read, write and edit have a
// Preview: before the call runs and the user is asked, it names the file
// and, for write and edit in the project, the diff the call would make
// (outside the project it reads nothing). Results carry Meta: a title
// ("Edit src/main.go", "Read README.md (lines 1–200)"), locations (the
// file at its first changed or shown line; grep's first 50 files at their
// first match) and the diff (whole old and new texts, up to 512 KiB; the
// summary in the result text uses github.com/aymanbagabas/go-udiff, a
// maintained export of gopls' diff).
//
// Dependencies: .gitignore matching is go-git's plumbing/format/gitignore
// (github.com/go-git/go-git/v5), git's semantics (negation, anchoring,
// dir-only patterns, `**`) scoped per folder by its pattern domains,
// maintained with go-git; sabhiram/go-gitignore was the alternative, but
// it is unmaintained since 2021 and has no notion of nested files. Globs
// are github.com/bmatcuk/doublestar/v4.
//
// The project: a call reaches its cwd (and the folder of its own session
// under the host's state dir, where plugins spill the session's output)
// without asking. Any other path — compared after ".." is cleaned and
// every symlink resolved, so a symlink in the project leading out counts
// as outside — is asked about first, once per call, through the host's
// RequestPermission (pluginapi.RequestPermission over the call's
// HostServices, behind the Asker interface in confine.go): "read
// /root/.ssh/id_rsa, outside the project /work/x". This happens before the
// path is opened or listed (resolving it only notes what it is, to check
// later that what is opened is that file), and a refusal reveals nothing
// of it, not even whether it exists. A refusal is an error result for the model
// ("permission denied: /root/.ssh/id_rsa is outside the project /work/x;
// ask the user (<the host's reason>)"); a host that cannot ask, or has no
// one to ask, refuses. The host's answer holds for that one request (it
// carries no "always"), so the next call asks again; the host treats the
// question as a protected one: no allow rule and no "always" answer about
// the tool answers it, a deny rule rejects it and --yes (allow-all) runs
// it. A call without a cwd has no project: every path is asked about.
// grep and glob walking a folder in the project stay in it: they never
// follow a symlinked folder, and grep skips symlinked files (glob lists a
// symlink's name, never what it leads to; it stats where the symlink
// leads for its time and kind, and never opens it).
//
// Opening what was checked: the check (resolve, in confine.go) resolves
// the path's symlinks and compares the result with the project; every
// use then opens that resolved path in one step where it was checked,
// following no symlink (pluginapi/fsroot): beneath the project folder
// holding it, opened once per call as an os.Root, one component at a
// time, each compared by device and inode with what Lstat found there; a
// path outside the project the user allowed is opened the same way
// beneath "/", and must be, by device and inode, the file resolve found
// before the question. Writes are a temporary file in the same folder
// renamed over the name beneath that folder (Root.Rename), never by
// absolute name; a walk opens each subfolder beneath the one before. A
// process swapping a file or a folder on the way for a symlink (even with
// renameat2 RENAME_EXCHANGE, between the check and the open) makes the
// call fail with one line ("it changed while this call ran …; try
// again"), or it acts on the file that was checked; it never reads or
// writes another. Through the host's text files, the host opens the path
// the same way (host/services/textfiles.go), and when it reads the disk the
// plugin shows the bytes it read itself from the file it checked. What is
// not covered: a hard link in the project to a file outside is, as far as
// the kernel knows, a file in the project; so is a bind mount; and the
// project folder itself is opened by its resolved path at the start of
// the call.
//
// read, grep and glob are concurrency-safe and need no permission from the
// host before they run (they ask themselves, as above, only outside the
// project); write and edit need permission and run alone, and outside the
// project they ask a second time, saying so, so that an "always" answered
// for write inside the project never covers a write outside it.
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
)

//go:embed tools
var toolDocs embed.FS

func main() {
	pluginapi.Serve(newServer(diskFiles{}, hostAsker{}).plugin())
}

// server holds what the tools share: how they reach files, how they ask
// the user, and what each session has read.
type server struct {
	files Files
	ask   Asker
	reads *readTracker
	// readScan is how many bytes of a file one read scans at most
	// (maxReadScan; tests lower it).
	readScan int64
	// grepBudgets bound what one grep reads (defaultGrepBudgets; tests
	// lower them).
	grepBudgets grepBudgets
	// walk bounds what one glob or grep walk reads and keeps
	// (defaultWalkBudgets; tests lower them).
	walk walkBudgets
}

// walkBudgets bound a glob's or grep's walk: the entries it reads, and
// the matches (glob) or matching files (grep) it keeps to sort; matches
// past keep are counted only.
type walkBudgets struct {
	entries, keep int
}

// maxKeptMatches is how many matches glob, and matching files grep, keep
// (and stat) to sort.
const maxKeptMatches = 10_000

var defaultWalkBudgets = walkBudgets{entries: maxWalkEntries, keep: maxKeptMatches}

func newServer(files Files, ask Asker) *server {
	return &server{files: files, ask: ask, reads: newReadTracker(), readScan: maxReadScan, grepBudgets: defaultGrepBudgets, walk: defaultWalkBudgets}
}

func (s *server) plugin() pluginapi.Plugin {
	return pluginapi.Plugin{
		Name:    "fs",
		Version: "1.0.0",
		// Reads anywhere (outside the project only what the user allowed,
		// asked above); writes the project. Under a host, write and edit
		// go through the host's WriteTextFile (hostFiles), which a host
		// bounds to these for a plugin that is not its own; outside the
		// project, once the user allowed it, only a built-in's land.
		Capabilities: pluginapi.Capabilities{Read: []string{"/"}, Write: []string{pluginapi.CapCwd}},
		Tools: []pluginapi.Tool{
			validUTF8(pluginapi.WithPreview(pluginapi.Typed(spec("read", pluginapi.KindRead, true, false), s.read), s.previewRead)),
			validUTF8(pluginapi.WithPreview(pluginapi.Typed(spec("write", pluginapi.KindEdit, false, true), s.write), s.previewWrite)),
			validUTF8(pluginapi.WithPreview(pluginapi.Typed(spec("edit", pluginapi.KindEdit, false, true), s.edit), s.previewEdit)),
			validUTF8(pluginapi.Typed(spec("grep", pluginapi.KindSearch, true, false), s.grep)),
			validUTF8(pluginapi.Typed(spec("glob", pluginapi.KindSearch, true, false), s.glob)),
		},
		SessionClosed: func(_ context.Context, sessionID string) { s.reads.forget(sessionID) },
	}
}

// validUTF8 is the final check on what tool t answers: its result and
// metadata are valid UTF-8, whatever a file's name or contents hold (the
// protocol's strings must be, and the model reads text). Results quote
// names and replace bad bytes of contents themselves; what still is not
// UTF-8 here has its bad bytes replaced by U+FFFD, and a location or diff
// whose path is not UTF-8 (which an editor could not open) is dropped.
func validUTF8(t pluginapi.Tool) pluginapi.Tool {
	run := t.Run
	t.Run = func(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
		res, err := run(ctx, call)
		if err != nil && !utf8.ValidString(err.Error()) {
			err = errors.New(strings.ToValidUTF8(err.Error(), "\uFFFD"))
		}
		res.Content = strings.ToValidUTF8(res.Content, "\uFFFD")
		res.Meta = validMeta(res.Meta)
		return res, err
	}
	if preview := t.Preview; preview != nil {
		t.Preview = func(ctx context.Context, call *pluginapi.Call) pluginapi.Meta {
			return validMeta(preview(ctx, call))
		}
	}
	return t
}

func validMeta(m pluginapi.Meta) pluginapi.Meta {
	m.Title = strings.ToValidUTF8(m.Title, "\uFFFD")
	var locs []pluginapi.Location
	for _, l := range m.Locations {
		if utf8.ValidString(l.Path) {
			locs = append(locs, l)
		}
	}
	m.Locations = locs
	var diffs []pluginapi.Diff
	for _, d := range m.Diffs {
		if utf8.ValidString(d.Path) {
			d.OldText = strings.ToValidUTF8(d.OldText, "\uFFFD")
			d.NewText = strings.ToValidUTF8(d.NewText, "\uFFFD")
			diffs = append(diffs, d)
		}
	}
	m.Diffs = diffs
	return m
}

// filesFor is how call reaches file contents: through the host (the
// editor's buffers under an editor that serves files), else the disk.
func (s *server) filesFor(call *pluginapi.Call) Files {
	if call.Host == nil {
		return s.files
	}
	return hostFiles{disk: s.files, host: call.Host, session: call.SessionID}
}

// spec reads a tool's description and schema from tools/<name>/.
func spec(name, kind string, concurrencySafe, needsPermission bool) pluginapi.ToolSpec {
	desc, err := toolDocs.ReadFile("tools/" + name + "/description.md")
	if err != nil {
		panic(err) // embedded at build time: a missing file is a build defect
	}
	schema, err := toolDocs.ReadFile("tools/" + name + "/schema.json")
	if err != nil {
		panic(err)
	}
	return pluginapi.ToolSpec{
		Name:            name,
		Description:     strings.TrimSpace(string(desc)),
		Schema:          json.RawMessage(schema),
		ConcurrencySafe: concurrencySafe,
		NeedsPermission: needsPermission,
		Kind:            kind,
	}
}
