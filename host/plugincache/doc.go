// Package plugincache is the content-addressed cache of plugin binaries
// and the one pipeline that turns a plugin file into a cache entry. What
// the toolbox runs is never a discovered plugin file but its copy
// DIR/<sha256>: 0500 files in a 0700 dir, so the file can be overwritten
// while its plugin runs, a restart runs the same bytes as the first start,
// and the bytes hashed are the bytes that run.
//
// # The pipeline
//
// [Cache.Stage] copies an open file into a temporary file of the dir (in
// the kernel where it can; the write fd is open only with
// syscall.ForkLock read-held, so no concurrent fork inherits it and makes
// the exec fail with ETXTBSY, Go issue 22315), [Staged.Hash] names the
// copy by the sha256 of its bytes, [Staged.Place] renames it to
// DIR/<sha256> and records its identity in the book. An entry already
// present with the right size that the book vouches for is kept and the
// staged copy dropped; entries only ever appear by that rename. A reload
// drives these steps itself (it checks the copy between them);
// [Cache.Put], for a start-up, runs them for a file path: it hashes the
// file first (or takes its hash from the index), so an entry already
// present costs no copy, and a new copy must hash to the same digest.
// [ErrChanging] says the file changed while it was read: a writer is still
// at work.
//
// # The book: verified before every start
//
// DIR/book.json records, for each entry, its identity (device, inode,
// size, modification and change times) when its bytes were last hashed,
// and when it last started. [Cache.Verify], called before every start,
// accepts an entry whose identity is the recorded one (one stat) and
// hashes any other again (~15 ms for 19 MB, once); an entry whose bytes
// no longer match its name is removed, so a tampered copy never runs
// under the original sha256. The book is merged and rewritten by rename
// ([Cache.Save]); a lost update costs one hash, never an unchecked start.
// Every file of the dir is written with host/atomicfile (the book, the
// index, the descriptions; an entry's rename by atomicfile.Rename), so
// each is whole after a crash and only temporary files can be left over.
// [Cache.Prune] removes the entries no plugin runs that were last started
// more than a grace period ago, and stale temporary files
// (atomicfile.IsTemp).
//
// # The hash index
//
// DIR/index.json remembers each discovered file's hash by the file's
// identity (Linux only), so a start-up need not read every binary again.
// A file whose identity changed is hashed again; a file changed in the
// last two seconds is not remembered (coarse timestamps). A stale entry
// could at worst start the previous cached version, never unhashed bytes.
// [Cache.SaveIndex] writes it.
//
// # Cached descriptions
//
// [Cache.StoreDescription] keeps a plugin's description (opaque JSON, the
// caller's type) as DIR/<sha256>.describe.json, with the sha256 it
// describes and a check sum of its bytes; [Cache.LoadDescription] returns
// it only when both match, and an error for a missing, unreadable, too
// large or damaged one, which the caller replaces by describing the
// plugin again. Prune removes a description with its entry.
//
// Which files are plugins at all is [pluginlock.Skip]'s rule; which bytes
// a pinned dir may run is [pluginlock.Verify]'s, applied by the caller.
package plugincache
