// Package modproxy is test support for the plugin SDK's third-party path:
// it makes a file-based Go module proxy (GOPROXY=file://DIR) that serves a
// module folder of this repository under a release version, with the
// @v/list, .info, .mod and .zip files the go command asks for, so that an
// outside module can require that version with no replace directive and
// the go command resolves it the normal way. The zip holds the files a
// commit would hold (git ls-files: tracked, or new and not ignored).
//
// It also gives the environment such a go command runs with ([Env]),
// reads the version a go.mod requires ([Required]) and copies a module out
// of the repository ([Copy]). Only tests use it.
package modproxy

import (
	"archive/zip"
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
	"strings"
	"time"
)

// Build writes into dir a module proxy serving the module in the folder
// root, whose path is module, as version.
func Build(dir, root, module, version string) error {
	files, err := Files(root)
	if err != nil {
		return err
	}
	at := filepath.Join(dir, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	info, err := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, name := range files {
		if err := addFile(zw, module+"@"+version+"/"+name, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("zip %s: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  zb.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func addFile(zw *zip.Writer, name, path string) error {
	w, err := zw.Create(name)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Files lists the regular files of the module in root as a commit would
// hold them — tracked, or new and not ignored (git ls-files) —
// slash-separated, relative to root and sorted.
func Files(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", ".")
	cmd.Dir = root
	out, err := cmd.Output()
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
// is not in the checksum database before its release, so GONOSUMDB names
// it; the cache is writable (-modcacherw), so that a test's temp dir can
// be removed; no workspace.
func Env(base []string, proxy, modcache, module, goproxy string, fallbacks ...string) []string {
	list := append([]string{"file://" + filepath.ToSlash(proxy)}, fallbacks...)
	if goproxy != "" {
		list = append(list, goproxy)
	}
	goflags := ""
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags = v
		}
	}
	return append(slices.Clone(base),
		"GOPROXY="+strings.Join(list, ","),
		"GONOSUMDB="+module,
		"GOMODCACHE="+modcache,
		"GOFLAGS="+strings.TrimSpace(goflags+" -modcacherw"),
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

// Copy copies the module in src to dst, leaving out module's lines in
// go.sum: the go command adds them from the proxy (before a release, the
// folder served is not the tagged one byte for byte).
func Copy(src, dst, module string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
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
			var keep []string
			for _, line := range strings.SplitAfter(string(b), "\n") {
				if !strings.HasPrefix(line, module+" ") {
					keep = append(keep, line)
				}
			}
			b = []byte(strings.Join(keep, ""))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
