// Package atomicfile writes a file so that its path names the old
// content or the new, whole and durable, never a part: harness's one
// temporary-file-then-rename write (plugin locks, session blobs, the
// plugin cache's entries, index, book and descriptions, the reloads file,
// `harness dev`'s binaries, a session log's header).
//
// # Contract
//
// [WriteFile] and [Create] write to a temporary file in the target's own
// folder (so that the rename cannot cross a file system), created 0600,
// named `.<base>.<random>.tmp` ([IsTemp]); then fsync the file, set its
// mode to perm exactly (fchmod: the umask does not apply), close it,
// rename it over the target and fsync the folder, so that the rename
// itself survives a crash. [WriteNew] links instead of renaming: it fails
// with an error matching fs.ErrExist when the target exists, and never
// replaces it. [Rename] is the same last step (fsync the file, rename,
// fsync the folders) for a file written by someone else (go build) or
// whose name is known only once it is written (a content-addressed copy).
//
// A symlink at the target is replaced, not followed: rename(2) swaps the
// directory entry, so the file the link pointed to is left untouched.
// Symlinks in the folder's path are resolved as usual.
//
// On an error the temporary file is removed and the target left as it
// was. A crash (or SIGKILL) before the rename leaves the target as it was
// and the temporary file behind; its name ends in ".tmp" and starts with
// a dot, so that watchers skip it (host/pluginlock.Skip) and a later run
// may sweep it ([IsTemp]; the plugin cache's prune does, in its folder).
// Nothing reads such a file: elsewhere one stays until removed by hand. A crash after the rename, before the folder's
// fsync, may lose the rename but never leaves a part of the file at the
// target.
//
// Platforms: on Linux and the BSDs the folder's fsync is what makes the
// rename durable. On macOS [os.File.Sync] is F_FULLFSYNC (the drive's
// cache too); a folder's fsync that the file system refuses (EINVAL,
// ENOTSUP) is skipped there as everywhere. On Windows Go cannot fsync a
// folder (the step is skipped; NTFS journals the rename as metadata), and
// the rename may fail while another process holds the target open.
//
// # Why not renameio
//
// github.com/google/renameio/v2 (v2.0.2) fsyncs the file but not the
// folder after the rename, so a crash can lose the rename; and by default
// it applies the umask to the mode and may put the temporary file in
// $TMPDIR. Here the folder is fsynced, the mode is perm exactly and the
// temporary file sits next to the target.
//
// The plugin side has its own equivalent beneath an [os.Root]:
// pluginapi/fsroot's WriteFile (a separate module, which plugins use and
// harness's text files for plugins too).
package atomicfile
