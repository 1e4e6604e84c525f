// Package pluginlock pins plugin binaries: a lock file next to a plugin
// dir records the sha256 of every plugin file in it, and the host refuses
// a plugin whose bytes no longer match ([Verify]). It is Terraform's
// dependency lock file and Vault's plugin catalogue for the harness: a
// plugin dir that someone else can write to, or that an update replaced,
// cannot slip a new binary in unnoticed.
//
// # The lock file
//
// The lock of the plugin dir DIR is the file DIR.lock next to it, in DIR's
// parent: bin/plugins.lock for bin/plugins. It is not inside the dir, so
// the toolbox never mistakes it for a plugin and a hot-reload watcher of
// the dir never sees it change; and one parent can hold the locks of
// several plugin dirs. It is JSON, written by `harness plugins pin`, meant
// to be read in reviews and committed next to the dir:
//
//	{
//	  "version": 1,
//	  "development": false,
//	  "plugins": {
//	    "bash": {"sha256": "1f0c…"},
//	    "todo": {"sha256": "9a3e…"}
//	  }
//	}
//
// plugins maps a plugin's file name in DIR (not the name it gives in
// Describe: the file is what is hashed) to the sha256 of its bytes, in
// lower-case hex; keys are sorted. version is the format, [Version].
//
// # What is refused
//
// A dir without a lock file is not pinned: every plugin in it runs. In a
// pinned dir, a plugin file runs only if the lock names it with the sha256
// of the bytes about to run; a changed file and a file the lock does not
// name are refused, each with a one-line [*MismatchError] that says how to
// trust the new binary (run `harness plugins pin` again). A lock file that
// cannot be read or parsed refuses every plugin of its dir: it fails
// closed.
//
// # Development dirs
//
// A lock with "development": true (`harness plugins pin --dev`) marks its
// dir for development: hashes may change, so rebuilt plugins are
// hot-reloaded (`harness dev`), and the recorded sums are only a note of
// what was there. `harness plugins pin` without --dev pins the dir again.
//
// # Trust records
//
// `harness plugins trust NAME` records, under "trusted", that the user
// trusts the plugin file NAME — these bytes, by sha256 — with the
// capabilities it declared beyond the default confinement ([Trust],
// [SetTrust], [Trusted]); the host grants a binary with another sum
// nothing more than the default. In a dir without a lock it writes one
// marked "unpinned": true, which pins nothing (Verify lets every plugin
// run, as without a lock); `harness plugins pin` keeps the records. The
// lock file is as trustworthy as the folder holding it: whoever can
// write there can pin and trust.
//
// # Where the check belongs
//
// The host hashes a plugin file while it copies it into its
// content-addressed cache, and runs the copy, so the sum it verifies is the
// sum of the bytes that run: it calls Verify(dir, fileName, sum) right
// after hashing, at start and at every reload, and turns an error into the
// plugin's failure (the previous version, if any, keeps serving).
// [Scan] hashes the plugin files of a dir the way the host's discovery
// finds them, for `harness plugins pin`.
package pluginlock
