// Package devbuild is the source half of `harness dev`: it watches plugin
// source folders and rebuilds a plugin with `go build` when its source
// changes, into the plugin dir that the toolbox watches. The toolbox then
// hot-reloads the new binary (host/toolbox); devbuild knows nothing of it.
//
// # Sources and outputs
//
// Each of Config.Sources is a Go main package folder, such as
// ./plugins/todo. Its binary is named as `go build -o DIR/` names it: the
// last element of the package's import path (go list tells it), so a
// module root is named for its module path (example.com/jsonq builds
// jsonq, example.com/tool/v2 builds tool), not for the folder it was
// checked out in; harness dev and a plugin's documented go build then put
// one file per plugin in a plugin dir. Two sources that would build the
// same name are a Config error. The plugin is built into
// Config.OutDir/<name> by running, in the folder,
//
//	go build -o <OutDir>/.<name>.build .
//
// and renaming the result to <OutDir>/<name> once the build succeeded
// (host/atomicfile.Rename: the binary and the folder are fsynced). The
// temporary name is a dotfile, which the toolbox ignores, and the rename is
// atomic, so the toolbox sees one complete new file whichever file system
// go build's work dir is on. A failed build leaves the last good binary in
// place, so the last good version keeps serving.
//
// [BuildAll] builds every source once (the CLI runs it before it opens the
// toolbox, so that the plugin dir starts current); [Watch] then rebuilds on
// change until its ctx ends.
//
// # What triggers a build
//
// Watch watches each source folder recursively with fsnotify, including
// subfolders created later, except hidden ones, ones starting with "_" and
// testdata (which go build ignores too). Any create, write, remove or
// rename of a file in them counts, except dotfiles, editor leftovers
// (`*~`, `*.swp`, `*.swx`, `*.tmp`, `#…#`, vim's `4913` probe), tests
// (`*_test.go`), and a binary named like the plugin (a `go build` run in the
// folder by hand); chmod alone does not. Embedded files (a description.md,
// a schema.json) count like Go files. A folder outside the sources (a
// package the plugin imports from elsewhere) is not watched: pass it as a
// source of its own, or touch a file of the plugin.
//
// Events are debounced per source: a build starts once the source has been
// quiet for Config.Debounce, at most Config.MaxDebounce after the first
// event (their docs give the defaults). Builds run one at a time (go build
// uses every CPU); changes made during a build cause one more build of
// that source after it.
//
// # Reporting
//
// Every build is logged (plugin, duration, ok or failed) and passed to
// Config.OnBuild. A failed build also writes a compact report to
// Config.Stderr: one header line naming the plugin, then go build's first
// Config.ErrorLines lines without its "# package" lines, and
// a count of the lines left out.
package devbuild
