// Package eventlog is the durable, append-only JSONL file behind a session:
// one header line, then one record per line with a contiguous seq. It knows
// the envelope of a record, never the meaning of its payload.
//
// # Format
//
// One file per session, conventionally <dir>/<id>.jsonl. Line 1 is the
// header:
//
//	{"type":"session","version":1,"id":"…","createdAt":"RFC 3339","cwd":"…","parentSession":"…","forkSeq":12}
//
// parentSession is omitted when empty; forkSeq, on a fork of the parent
// session, is the seq its own records start at (those before are copies
// of the parent's), omitted on every other log. A reader of a log without
// forkSeq reads it as before; a harness older than forkSeq refuses a
// fork's header as having an unknown field. Every further line is one record, its
// fields always in this order:
//
//	{"seq":0,"time":"2026-11-29T19:47:10.123456789Z","type":"turn/start","data":{"turn":1}}
//
// seq counts from 0 with no gap or repeat; time is RFC 3339 in UTC with up to
// nanosecond precision; type is 1 to 128 bytes of printable ASCII other than
// `"` and `\`; data is any JSON value, written verbatim (compacted only if it
// spans lines). Lines end in '\n'. A file with another header version is
// refused with [ErrVersion].
//
// # Durability
//
// [Log.Append] encodes the record into a reused buffer and hands the whole
// line to the kernel in one write(2): once it returns, the record survives a
// crash of the process, though not of the machine. It does not fsync.
// [Log.Sync] fsyncs everything appended so far; [Log.Close] syncs and
// unlocks. The caller chooses the sync points (package session syncs at every
// turn end). [Create] fsyncs the header and the directory before returning.
//
// # Locking
//
// A log has one writer. [Create] and [Open] take an exclusive flock(2) on
// the file, waiting at most a quarter second for a holder that is letting
// go (a process exiting, or a fork about to exec that still holds the
// file); a second opener — another process, or the same process again —
// then gets a [*LockedError] (errors.Is [ErrLocked]). The kernel
// drops the lock when the process dies, so a crash never leaves a stale lock.
// [Read] takes no lock: it may read a file another process is writing.
//
// # Recovery
//
// [Open] replays the file and repairs exactly one kind of damage, the torn
// tail a crash can leave: trailing NUL bytes, and a final line without '\n'
// (Append writes a line and its '\n' in one write, so only a write cut short
// lacks it). It truncates the file to the end of the last good line, fsyncs,
// and reports what it cut ([Log.Repaired]). Every other damage — any line
// ending in '\n' that does not parse, lacks a field, or breaks the seq
// sequence, the last one included, a blank line, a bad header — is never
// skipped or repaired: Open fails with a [*CorruptError] naming the file and
// line. [Read] applies the same rules but never writes: it ignores a torn tail
// instead of cutting it.
//
// # Files
//
// A log is a regular file. [Open], [Read], [ReadHeader] and [Create] never
// follow a symbolic link at the log's path (O_NOFOLLOW) and refuse a FIFO, a
// device, a directory or a socket there without opening it for I/O (checked
// with lstat before the open, which is non-blocking, and fstat after): the
// error wraps [ErrNotRegular] and names the file. A log another user could
// have written — owned by a user other than this one or root, or writable
// by group or others — is refused too, judged by fstat of the descriptor
// opened (so a rename cannot swap the file between check and read): the
// error is an *ownership.Error (errors.Is ownership.ErrUntrusted), one line
// naming file, owner, mode and fix. Never repaired: a log harness creates
// is 0600 whatever the umask. The directory holding the log is trusted as
// given; it may itself be a link (a state dir on another disk).
//
// # Concurrency
//
// The methods of a [*Log] are safe for concurrent use.
package eventlog
