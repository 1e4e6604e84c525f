// Package modproxy is test support for the plugin SDK's third-party path:
// it makes a file-based Go module proxy (GOPROXY=file://DIR) that serves a
// module in a subfolder of this git repository under a release version,
// with the @v/list, .info, .mod and .zip files the go command asks for, so
// that an outside module can require that version with no replace
// directive and the go command resolves and verifies it the normal way.
//
// [Build] serves the version from its git tag (SUBDIR/vX.Y.Z) when the
// repository has it: the zip is made by golang.org/x/mod/zip's
// CreateFromVCS (the go command's own rules: git archive of the tagged
// tree, the repository's LICENSE, no nested modules), so its h1: hash is
// the one proxy.golang.org serves for the tag and the one a go.sum
// records; .info carries the tagged commit's time and .mod the tagged
// go.mod. When the tag is absent (a clone without tags, a shallow copy, a
// version not yet released) it serves the checkout's files instead —
// tracked, or new and not ignored (git ls-files) — zipped by the same
// rules, and says so ([Served.Source]). [BuildAt] serves a version from a
// given commit instead, the way the go command would from a tag on it:
// an old release of the SDK that the repository no longer tags, for a
// test that builds a plugin against it.
//
// It also gives the environment such a go command runs with ([Env]),
// reads the version a go.mod requires ([Required]), copies a module out
// of the repository keeping its go.sum checked ([Copy]) and names the
// host-only modules in a list of module paths ([HostOnly]). Only tests
// use it.
package modproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// Served says what a proxy built by [Build] serves for a version.
type Served struct {
	// Source names where the files came from: "tag pluginapi/v1.2.0
	// (commit …)" or "checkout DIR (no tag …)".
	Source string
	// FromTag reports whether they came from a commit: the git tag's, or
	// the one given to [BuildAt]. The zip is then the release's.
	FromTag bool
	// Sum and GoModSum are the go.sum hashes of the zip and of the
	// go.mod (h1:…), as the go command computes them.
	Sum, GoModSum string
}

// Build writes into dir a module proxy serving module, the module in the
// folder subdir (slash-separated) of the git repository repo, as
// version: from the tag subdir/version when repo has it, else from the
// checkout's files. It returns what it served.
func Build(dir, repo, subdir, module, version string) (Served, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return Served{}, err
	}
	tag := subdir + "/" + version
	var (
		served Served
		zb     bytes.Buffer
		gomod  []byte
		when   time.Time
	)
	commit, err := git(repo, "rev-parse", "-q", "--verify", "refs/tags/"+tag+"^{commit}")
	switch {
	case err == nil:
		served = Served{Source: fmt.Sprintf("tag %s (commit %.12s)", tag, commit), FromTag: true}
		if gomod, when, err = fromTag(&zb, repo, subdir, module, version, commit); err != nil {
			return Served{}, fmt.Errorf("zip %s from tag %s: %w", module, tag, err)
		}
	default:
		root := filepath.Join(repo, filepath.FromSlash(subdir))
		served = Served{Source: fmt.Sprintf("checkout %s (no tag %s in the repository)", root, tag)}
		when = time.Now()
		if gomod, err = fromCheckout(&zb, root, module, version); err != nil {
			return Served{}, fmt.Errorf("zip %s from the checkout: %w", module, err)
		}
	}
	return served, write(dir, module, version, &served, zb.Bytes(), gomod, when)
}

// BuildAt writes into dir a module proxy serving module, the module in
// the folder subdir of the git repository repo, as version, from the
// commit revision (a hash or any name git resolves), as [Build] does from
// a tag. A repository without that commit (a shallow clone) is an error
// that says so.
func BuildAt(dir, repo, subdir, module, version, revision string) (Served, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return Served{}, err
	}
	commit, err := git(repo, "rev-parse", "-q", "--verify", revision+"^{commit}")
	if err != nil {
		shallow, _ := git(repo, "rev-parse", "--is-shallow-repository")
		return Served{}, fmt.Errorf("serve %s@%s: commit %s is not in the repository %s (shallow clone: %s; fetch the full history, git fetch --unshallow): %w",
			module, version, revision, repo, shallow, err)
	}
	served := Served{Source: fmt.Sprintf("commit %.12s", commit), FromTag: true}
	var zb bytes.Buffer
	gomod, when, err := fromTag(&zb, repo, subdir, module, version, commit)
	if err != nil {
		return Served{}, fmt.Errorf("zip %s from commit %.12s: %w", module, commit, err)
	}
	return served, write(dir, module, version, &served, zb.Bytes(), gomod, when)
}

// write computes served's sums and writes the proxy's files for
// module@version: list, .info (with the time when), .mod and .zip.
func write(dir, module, version string, served *Served, zipData, gomod []byte, when time.Time) error {
	var err error
	if served.Sum, served.GoModSum, err = sums(zipData, gomod); err != nil {
		return err
	}
	info, err := json.Marshal(map[string]any{"Version": version, "Time": when.UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	at := filepath.Join(dir, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  zipData,
	} {
		if err := os.WriteFile(filepath.Join(at, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fromTag writes to w the module zip of the tagged commit's subdir and
// returns its go.mod and the commit's time, as the go command takes them
// from a tag. CreateFromVCS needs a repository whose .git is a folder in
// repoRoot, which a linked worktree is not, so it runs on a clone sharing
// repo's objects (git clone --shared: no object is copied).
func fromTag(w io.Writer, repo, subdir, mod, version, commit string) ([]byte, time.Time, error) {
	gomod, err := gitBytes(repo, "cat-file", "blob", commit+":"+subdir+"/go.mod")
	if err != nil {
		return nil, time.Time{}, err
	}
	ct, err := git(repo, "show", "-s", "--format=%ct", commit)
	if err != nil {
		return nil, time.Time{}, err
	}
	sec, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the commit time of %s: %w", commit, err)
	}
	clone, err := os.MkdirTemp("", "modproxy-clone-")
	if err != nil {
		return nil, time.Time{}, err
	}
	defer os.RemoveAll(clone)
	if _, err := git(repo, "clone", "--quiet", "--shared", "--no-checkout", repo, clone); err != nil {
		return nil, time.Time{}, err
	}
	if err := modzip.CreateFromVCS(w, module.Version{Path: mod, Version: version}, clone, commit, subdir); err != nil {
		return nil, time.Time{}, err
	}
	return gomod, time.Unix(sec, 0), nil
}

// fromCheckout writes to w the module zip of the files in root a commit
// would hold (see [Files]) and returns its go.mod.
func fromCheckout(w io.Writer, root, mod, version string) ([]byte, error) {
	names, err := Files(root)
	if err != nil {
		return nil, err
	}
	files := make([]modzip.File, 0, len(names))
	for _, name := range names {
		path := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, err
		}
		files = append(files, diskFile{path: path, name: name, info: fi})
	}
	if err := modzip.Create(w, module.Version{Path: mod, Version: version}, files); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(root, "go.mod"))
}

// diskFile is a file of the checkout for modzip.Create.
type diskFile struct {
	path, name string
	info       fs.FileInfo
}

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// sums returns the go.sum hashes of a module zip and of its go.mod.
func sums(zipData, gomod []byte) (sum, gomodSum string, err error) {
	tmp, err := os.CreateTemp("", "modproxy-*.zip")
	if err != nil {
		return "", "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(zipData)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", err
	}
	if sum, err = dirhash.HashZip(tmp.Name(), dirhash.Hash1); err != nil {
		return "", "", fmt.Errorf("hash the module zip: %w", err)
	}
	gomodSum, err = dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
	return sum, gomodSum, err
}

// git runs git in dir and returns its trimmed output.
func git(dir string, args ...string) (string, error) {
	b, err := gitBytes(dir, args...)
	return strings.TrimSpace(string(b)), err
}

func gitBytes(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Files lists the regular files of the module in root as a commit would
// hold them — tracked, or new and not ignored (git ls-files) —
// slash-separated, relative to root and sorted.
func Files(root string) ([]string, error) {
	out, err := gitBytes(root, "ls-files", "--cached", "--others", "--exclude-standard", "-z", ".")
	if err != nil {
		return nil, fmt.Errorf("list the files of %s (git ls-files; the proxy needs git): %w", root, err)
	}
	var files []string
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode().IsRegular() {
			files = append(files, name)
		}
	}
	slices.Sort(files)
	if !slices.Contains(files, "go.mod") {
		return nil, fmt.Errorf("the files of %s lack go.mod: %v", root, files)
	}
	return files, nil
}

// Env returns base (an environment, e.g. os.Environ()) for a go command
// run as a third party's on the module cache modcache: GOPROXY tries the
// proxy first, then fallbacks, then goproxy (the user's GOPROXY); module
// is not in the public checksum database (this repository's tags are not
// published from here), so GONOSUMDB names it and go.sum alone verifies
// it; go.mod and go.sum are read-only (-mod=readonly: a missing or wrong
// go.sum line fails the command); the cache is writable (-modcacherw), so
// that a test's temp dir can be removed; no workspace.
func Env(base []string, proxy, modcache, module, goproxy string, fallbacks ...string) []string {
	list := append([]string{"file://" + filepath.ToSlash(proxy)}, fallbacks...)
	if goproxy != "" {
		list = append(list, goproxy)
	}
	var goflags []string
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags = nil
			for _, f := range strings.Fields(v) {
				if !strings.HasPrefix(f, "-mod=") {
					goflags = append(goflags, f)
				}
			}
		}
	}
	goflags = append(goflags, "-mod=readonly", "-modcacherw")
	return append(slices.Clone(base),
		"GOPROXY="+strings.Join(list, ","),
		"GONOSUMDB="+module,
		"GOMODCACHE="+modcache,
		"GOFLAGS="+strings.Join(goflags, " "),
		"GOWORK=off",
	)
}

// Required returns the version of module the go.mod in dir requires. It
// fails if that go.mod has a replace directive: a third party's has none.
func Required(dir, module string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	if regexp.MustCompile(`(?m)^\s*replace\b`).Match(b) {
		return "", fmt.Errorf("%s/go.mod has a replace directive; a third party's module has none:\n%s", dir, b)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(v\S+)`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s/go.mod does not require %s:\n%s", dir, module, b)
	}
	return string(m[1]), nil
}

// SumLines returns the go.sum lines a module's go.sum holds for
// module@version when the go command verified served.
func SumLines(module, version string, served Served) []string {
	return []string{
		module + " " + version + " " + served.Sum,
		module + " " + version + "/go.mod " + served.GoModSum,
	}
}

// Copy copies the module in src to dst, for a go command to build it
// against a proxy serving module@version as served. The go.sum's lines
// for module@version must be exactly [SumLines] when served comes from
// the tag: the go command then checks the download against them. When
// served comes from the checkout (no tag) and they differ — the folder
// changed since the tag, or the version is not released yet — Copy drops
// them, and the go command adds the served ones (go mod download); it
// reports whether go.sum was kept as it stands.
func Copy(src, dst, module, version string, served Served) (kept bool, err error) {
	want := SumLines(module, version, served)
	kept = true
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel == "go.sum" {
			var have, keep []string
			for _, line := range strings.SplitAfter(string(b), "\n") {
				if strings.HasPrefix(line, module+" "+version+" ") || strings.HasPrefix(line, module+" "+version+"/") {
					have = append(have, strings.TrimSpace(line))
					continue
				}
				keep = append(keep, line)
			}
			if slices.Equal(have, want) {
				return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
			}
			if served.FromTag {
				return fmt.Errorf("%s holds %q for %s@%s, the %s serves %q: update it (docs/releasing.md)", path, have, module, version, served.Source, want)
			}
			kept = false
			b = []byte(strings.Join(keep, ""))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	return kept, err
}

// hostOnlyModules are modules the host needs and a plugin must never pull
// in: the plugin SDK's dependency graph is go-plugin, gRPC, protobuf and
// hclog (and what they need).
var hostOnlyModules = []string{
	"github.com/harness-dev/harness", // the host module itself
	"github.com/coder/acp-go-sdk",
	"github.com/fsnotify/fsnotify",
	"github.com/modelcontextprotocol/go-sdk",
	"github.com/go-git/go-git/v5",
	"mvdan.cc/sh/v3",
	"github.com/BurntSushi/toml",
	"github.com/anthropics/anthropic-sdk-go/v2",
}

// HostOnly returns the host-only modules among the module paths mods
// (e.g. `go list -deps -f {{.Module.Path}}`'s or `go list -m all`'s first
// column), sorted and once each.
func HostOnly(mods []string) []string {
	var found []string
	for _, m := range mods {
		if slices.Contains(hostOnlyModules, m) && !slices.Contains(found, m) {
			found = append(found, m)
		}
	}
	slices.Sort(found)
	return found
}
