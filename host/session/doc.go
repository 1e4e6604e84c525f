// Package session is one session of the agent host: its durable log (package
// eventlog), the projections the host needs from it — the model's messages,
// the todo list (the last todo/write), the turns, the "always" permission
// answers (Session.Always, Session.AlwaysKind), the permission mode
// (Session.Mode, the last permission/mode), the sandbox setting
// (Session.Sandbox, the last sandbox/policy) — and followers that see every event. A Store
// also walks a child session's ancestry through its headers
// (Store.Lineage, Store.Depth, Store.Cwd) without opening the logs, and
// forks a session (Store.Fork): a new log whose first forkSeq events are
// copies of the parent's, cut where no turn is open, its header naming
// the parent and forkSeq; it shares nothing mutable with the parent (its
// blobs are copied; the parent's log is read, never held or written) and
// is the root of its own lineage.
//
// # History and compaction
//
// Messages() is the model's history, derived from the surface events. A
// context/compact (event.Compact) changes the derivation from there on: the
// history becomes its context message (event.Compact.ContextText: the
// summary and the todo list current at the compaction — the last
// todo/write — each item verbatim), then the last user message if it came
// before Keep, then the messages of the surface events from seq Keep on,
// verbatim, then those appended after it. Nothing is deleted: Events()
// still holds every event, and replaying the log derives the same history.
// MessageSeqs() says which event each message comes from (-1 for the
// compaction's), ContextUsage() the usage the provider last reported and
// how many messages it covers (none after a compaction), ContextLimit() the
// limit a provider stated in an overflow error, as the last compaction
// recorded it. A context/compact must sit in a turn, outside any step, with
// a summary, a reason and 0 ≤ From ≤ Keep ≤ its own seq.
//
// # The store contract
//
// A [Store] keeps its sessions in a [Backend], the session store as a
// contract: create a log with its header, append with the expected seq
// (an append whose seq is not the next one is refused and writes nothing),
// read from a seq without the lock, open for the single writer (the hold),
// list. A Backend knows records, never payloads: the turn structure, the
// projections, the recovery of an interrupted turn and the followers are the
// Session's, the same over every Backend. [JSONL] is the one implementation
// today and the default (Store.Backend nil); package storetest is the
// conformance suite any later store must pass, and JSONL passes it.
//
// # The index
//
// A Backend may keep its sessions' summaries beside the logs
// ([IndexBackend]; package natsstore does, JSONL does not). A Session
// keeps what List shows of its log as it appends — the one fold List
// applies reading a log — and puts it, current to the log's Next, at
// Create, at every turn/end, at Open (after recovery) and at Close, as
// Import does for the log it writes. [Store.List] then reads the lengths
// of the logs and every entry in one call each and lists a session from
// its entry only when the entry's Next is its log's length; it reads the
// log of any other (a turn running, a writer killed between an append and
// its put, a log written before the index, an entry that does not decode),
// and every log when the index cannot be read.
// The index is a cache, never the truth: a put that fails is not
// reported, and costs List one read of that log.
//
// # Store and files
//
// By default a [Store] keeps sessions as <Dir>/<id>.jsonl (directory 0700,
// files 0600, whatever the umask). A sessions folder or a log another user
// could have written — owned by a user other than this one or root, or
// writable by group or others — is refused with one line naming it, its
// owner, its mode and the fix (package ownership), never repaired: Create,
// Open and List fail on such a folder, Open on such a log, and List gives
// such a log's Summary that error.
// [Store.Create] starts a session, [Store.Open] reopens one, [Store.List]
// summarises them all without taking any lock. One process at a time may
// have a session open: a second Open fails with an error matching
// eventlog.ErrLocked.
//
// # Structure
//
// Every event sits inside a turn — but config/option, permission/mode and
// sandbox/policy, which may come anywhere (Session.Mode, Session.Sandbox
// are the last one's) — and steps nest inside turns.
// Append and AppendRaw refuse, with an [*InvalidError] and without writing
// anything, an event that would break this: anything but turn/start (and
// the settings above) outside a turn; a sandbox/policy without mode or
// network; a
// turn/start while a turn is open or with a number other than LastTurn()+1; a
// turn/end while a step is open or for another turn; a step/start while a
// step is open or out of sequence (steps count from 1 within a turn); a
// step/end for another step; an assistant/message or tool/call outside the
// open step; a tool/result naming a step that is not open (or, between
// steps, one not yet run in this turn). The same rules are checked when a
// log is replayed: a line that breaks them is corruption.
//
// # Durability
//
// Append hands each event to the kernel before returning (it survives a
// crash of this process) but does not fsync — except a turn/end: a turn/end
// is durable when Append returns. [Session.Sync] makes everything durable.
//
// # Recovery
//
// Open replays the log. A torn tail (a last line without '\n') is cut (see
// package eventlog); a session file that is a symbolic link, a FIFO, a
// device or a directory is refused (eventlog.ErrNotRegular), never followed
// or waited on; damage anywhere else — including an event that breaks the turn structure or a
// host event whose payload does not decode — fails Open with an
// *eventlog.CorruptError naming the file and line. If the last turn was left
// open by a crash, Open closes it: an error tool/result ("interrupted: no
// result was recorded") for every tool call of the turn that has none, a
// step/end if a step is open, then turn/end with reason interrupted, all
// stamped with the time of the last real event and synced before Open
// returns. [Session.Recovery] says what was done.
//
// Replay decodes host payloads with one table-driven reader whose plans are
// built from host/event's payload structs (fields and json tags), not with
// encoding/json; any shape it does not read exactly as encoding/json would
// (an unknown, repeated or escaped key, a misplaced null, a large or
// fractional number) falls back to event.Decode, so both give the same
// payload (FuzzFastDecode). A payload field is added in host/event alone.
//
// # Followers never drop
//
// The session keeps every event in memory; that slice is the in-memory log.
// [Session.Follow] yields every event from a given seq on, in order, with no
// gap and no repeat, waiting for new ones until its context is done or the
// session is closed. A follower is only a cursor into the slice: nothing is
// queued per follower, so a slow follower costs no memory and loses nothing
// — it reads from where it is when it comes back. Appends never wait for
// followers.
//
// # Blobs
//
// The bytes of a session's images are not in its log: [Session.PutBlob]
// writes them (synced, 0600) to <id>.blobs/<sha256 hex> next to <id>.jsonl,
// once per content, before the caller appends the event that names the
// hash (event.Content.Blob); [Session.Blob] reads one back (a name that is
// not a hex SHA-256 is refused). The model's history loads a user
// message's images from there (llm.Message.Images) and names each in its
// text as [image: <mime type>]; a tool result's images
// (event.ToolResult.Images) too, which its text already names
// (llm.ImageNote). A backend that keeps them itself (BlobBackend: the
// NATS store's object store) is used instead of the folder; any other
// backend that is not a directory of files has no blobs. Blobs travel
// with their session: a fork copies those its events name, from either
// kind of store; [Store.ExportBlobs] writes them beside an exported log
// ([BlobsBeside]: s.blobs/ for s.jsonl, the layout of a files store) and
// [Store.Import] stores those it finds there, refusing bytes that do not
// hash to their name.
//
// # Concurrency
//
// A *Session is safe for concurrent use. The slices it returns (Events,
// Messages) share memory with the session and must not be modified; events
// and messages, once appended, never change.
package session
