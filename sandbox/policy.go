package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is what a command may write.
type Mode string

// The modes.
const (
	// WorkspaceWrite: writes only beneath the writable roots (the cwd,
	// the folders added, a private temp folder), the protected paths in
	// them excepted; reads anywhere but DenyRead.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly: writes only in the private temp folder.
	ReadOnly Mode = "read-only"
	// Off: no sandbox; the command has the user's rights.
	Off Mode = "off"
)

// DefaultPidsLimit is PidsLimit when none is set.
const DefaultPidsLimit = 1024

// Policy is what a sandboxed command may do. Every path is absolute and
// clean.
type Policy struct {
	Mode    Mode    `json:"mode"`
	Network Network `json:"network"`
	// WritableRoots: writes are allowed beneath them (Landlock).
	WritableRoots []string `json:"writableRoots,omitempty"`
	// ReadOnly paths are bound read-only over themselves where they exist
	// (a mount namespace), so that no write reaches them even beneath a
	// writable root; one inside a DenyRead path is shown again, read-only.
	ReadOnly []string `json:"readOnly,omitempty"`
	// DenyRead paths are hidden: an empty read-only folder or file is
	// bound over each that exists.
	DenyRead []string `json:"denyRead,omitempty"`
	// TempDir is the command's private temp folder: writable, and its
	// TMPDIR.
	TempDir string `json:"tempDir,omitempty"`
	// PidsLimit caps the processes (and threads) of one command; 0 is
	// DefaultPidsLimit.
	PidsLimit int `json:"pidsLimit,omitempty"`
	// Proxy is, with an allow-list, the Unix socket of the proxy that is
	// the command's only way out of its network namespace (the command's
	// init forwards 127.0.0.1:<port> in the namespace to it); "" without
	// one.
	Proxy string `json:"proxy,omitempty"`
}

// Enabled reports whether p confines anything.
func (p Policy) Enabled() bool { return p.Mode != Off && p.Mode != "" }

// Writable is where p allows writes: the writable roots and the temp
// folder.
func (p Policy) Writable() []string {
	if p.TempDir == "" {
		return p.WritableRoots
	}
	return append(slicesClone(p.WritableRoots), p.TempDir)
}

// Pids is the pids limit p sets.
func (p Policy) Pids() int {
	if p.PidsLimit <= 0 {
		return DefaultPidsLimit
	}
	return p.PidsLimit
}

// String is the policy in a few words, for a result or a log line:
// "workspace-write, network off".
func (p Policy) String() string {
	if !p.Enabled() {
		return "off"
	}
	return fmt.Sprintf("%s, network %s", p.Mode, p.Network.Describe())
}

// maxPaths bounds each list of a decoded policy; maxPidsLimit its pids
// limit.
const (
	maxPaths     = 4096
	maxPidsLimit = 1 << 22
)

// Validate checks p: a known mode and network, absolute clean paths
// without NUL, a pids limit in range.
func (p Policy) Validate() error {
	switch p.Mode {
	case WorkspaceWrite, ReadOnly, Off:
	default:
		return fmt.Errorf("unknown sandbox mode %q (want workspace-write, read-only or off)", p.Mode)
	}
	if err := p.Network.Validate(); err != nil {
		return err
	}
	if p.Proxy != "" && !p.Network.IsAllowList() {
		return fmt.Errorf("a proxy socket (%q) without a network allow-list", p.Proxy)
	}
	if p.PidsLimit < 0 || p.PidsLimit > maxPidsLimit {
		return fmt.Errorf("pids limit %d out of range (0 to %d)", p.PidsLimit, maxPidsLimit)
	}
	for _, l := range []struct {
		name  string
		paths []string
	}{{"writable root", p.WritableRoots}, {"read-only path", p.ReadOnly}, {"deny-read path", p.DenyRead}, {"temp folder", nonEmpty(p.TempDir)}, {"proxy socket", nonEmpty(p.Proxy)}} {
		if len(l.paths) > maxPaths {
			return fmt.Errorf("%d %ss, at most %d", len(l.paths), l.name, maxPaths)
		}
		for _, path := range l.paths {
			if err := checkPath(path); err != nil {
				return fmt.Errorf("%s: %w", l.name, err)
			}
		}
	}
	return nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// checkPath accepts an absolute, clean path without NUL.
func checkPath(p string) error {
	switch {
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("%q holds a NUL", p)
	case !filepath.IsAbs(p):
		return fmt.Errorf("%q is not absolute", p)
	case filepath.Clean(p) != p:
		return fmt.Errorf("%q is not clean (want %q)", p, filepath.Clean(p))
	}
	return nil
}

// Encode is p's JSON.
func (p Policy) Encode() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// Decode reads a policy from JSON and validates it: unknown fields,
// trailing data, an unknown mode or network and bad paths are refused.
func Decode(b []byte) (Policy, error) { return decodeStrict[Policy](b, "sandbox policy", "policy") }

// decodeStrict reads one T from JSON and validates it: unknown fields,
// trailing data and what T's Validate refuses are errors naming what.
func decodeStrict[T interface{ Validate() error }](b []byte, what, noun string) (T, error) {
	var zero, v T
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return zero, fmt.Errorf("decode %s: %w", what, err)
	}
	if dec.More() {
		return zero, fmt.Errorf("decode %s: data after the %s", what, noun)
	}
	if err := v.Validate(); err != nil {
		return zero, fmt.Errorf("decode %s: %w", what, err)
	}
	return v, nil
}

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case WorkspaceWrite, ReadOnly, Off:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (want workspace-write, read-only or off)", s)
}

// ProtectedNames are the names re-bound read-only in every writable root
// where they exist: what they hold runs commands or steers the tools.
var protectedNames = []string{".vscode", ".idea", ".zed", ".mcp.json"}

// gitProtected are the entries of a git folder re-bound read-only: its
// config and hooks run commands; info holds exclude and attributes.
var gitProtected = []string{"hooks", "config", "info"}

// CredentialStores are the paths, relative to the home folder, that
// DenyRead holds by default.
var credentialStores = []string{".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".docker/config.json", ".kube"}

// escapeSockets are Unix sockets whose daemons run what they are asked
// outside any sandbox (a container with the host's / mounted): DenyRead
// holds them by default. Landlock (before ABI 9's resolve-unix right)
// does not refuse connecting to a socket by its path.
// The X server's sockets are hidden too: a client can type into the
// user's terminals.
var escapeSockets = []string{
	"/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock",
	"/run/containerd/containerd.sock", "/var/run/containerd/containerd.sock",
	"/tmp/.X11-unix",
}

// Setup is what a policy is built from.
type Setup struct {
	Mode    Mode
	Network Network
	Cwd     string   // the session's working directory
	AddDirs []string // more writable folders the user added
	TempDir string   // the command's private temp folder (writable in every mode)
	Home    string   // the user's home folder: its credential stores are hidden
	// RuntimeDir is $XDG_RUNTIME_DIR, hidden whole: the sockets of the
	// user's daemons — D-Bus and systemd (systemd-run --user starts
	// anything outside the sandbox), the keyring, gpg-agent, Wayland,
	// rootless docker and podman.
	RuntimeDir string
	// Harness are harness's own files and folders (config, rules,
	// mcp.json, state): hidden from reads and never writable.
	Harness []string
	// Show are paths inside Harness a command may still read (the
	// session's spill folder).
	Show      []string
	DenyRead  []string // more paths to hide
	PidsLimit int
}

// Build makes the policy of s: its writable roots (the cwd and the added
// folders in workspace-write, plus the temp folder; and the git folder of
// a repository the cwd is inside of, with its protected entries), the
// protected paths in them, the credential stores and harness's own files
// hidden. Relative paths are dropped; the rest are cleaned.
func Build(s Setup) Policy {
	p := Policy{Mode: s.Mode, Network: s.Network, PidsLimit: s.PidsLimit}
	if p.Network == "" {
		p.Network = NetworkOff
	}
	if !p.Enabled() {
		p.Mode = Off
		return p
	}
	add := func(list *[]string, paths ...string) {
		for _, path := range paths {
			if path == "" || !filepath.IsAbs(path) {
				continue
			}
			path = filepath.Clean(path)
			for _, have := range *list {
				if have == path {
					path = ""
					break
				}
			}
			if path != "" {
				*list = append(*list, path)
			}
		}
	}
	if p.Mode == WorkspaceWrite {
		add(&p.WritableRoots, s.Cwd)
		add(&p.WritableRoots, s.AddDirs...)
		for _, root := range slicesClone(p.WritableRoots) {
			for _, n := range protectedNames {
				add(&p.ReadOnly, filepath.Join(root, n))
			}
			git := gitDirs(root)
			if git.file != "" {
				// A .git file names the git folder: rewritten, it would
				// send the user's next git command to hooks and a config
				// the command chose.
				add(&p.ReadOnly, git.file)
			}
			if git.dir != "" {
				if !within(git.dir, p.WritableRoots) {
					add(&p.WritableRoots, git.dir) // git add and commit work from a subfolder too
				}
				if git.common != git.dir && !within(git.common, p.WritableRoots) {
					add(&p.WritableRoots, git.common)
				}
				for _, n := range gitProtected {
					add(&p.ReadOnly, filepath.Join(git.dir, n), filepath.Join(git.common, n))
				}
			}
		}
	}
	if s.TempDir != "" && filepath.IsAbs(s.TempDir) {
		p.TempDir = filepath.Clean(s.TempDir)
	}
	add(&p.ReadOnly, s.Harness...)
	add(&p.ReadOnly, s.Show...)
	if s.Home != "" {
		for _, c := range credentialStores {
			add(&p.DenyRead, filepath.Join(s.Home, c))
		}
	}
	add(&p.DenyRead, escapeSockets...)
	if s.Home != "" {
		add(&p.DenyRead, filepath.Join(s.Home, ".docker/run/docker.sock"))
	}
	add(&p.DenyRead, s.RuntimeDir)
	add(&p.DenyRead, s.Harness...)
	add(&p.DenyRead, s.DenyRead...)
	// A hidden folder holding a writable root would hide the root (a
	// session started in ~/.config/harness): the user chose it.
	p.DenyRead = slices.DeleteFunc(p.DenyRead, func(d string) bool {
		return slices.ContainsFunc(p.Writable(), func(r string) bool { return within(r, []string{d}) })
	})
	return p
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// within reports whether path is one of roots or beneath one.
func within(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) || r == "/" {
			return true
		}
	}
	return false
}

// gitDir is a repository's git folder and its common folder (the main
// repository's, for a linked worktree or a submodule; else the same), and
// the .git file that names it, if a file does.
type gitDir struct{ dir, common, file string }

// gitDirs finds the git folder of the repository that dir is in: the
// nearest .git folder, or the folder a linked worktree's .git file names
// (when that folder names the .git file back), in dir or a parent; the
// zero gitDir when there is none; only the file for a .git file that is
// not a linked worktree's (a submodule's: committing inside one needs the
// superproject's folder added).
func gitDirs(dir string) gitDir {
	for d := dir; ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		fi, err := os.Lstat(dot)
		switch {
		case err == nil && fi.IsDir():
			return gitDir{dir: dot, common: dot}
		case err == nil && fi.Mode().IsRegular():
			b, err := os.ReadFile(dot)
			if err != nil || len(b) > 4096 {
				return gitDir{file: dot}
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return gitDir{file: dot}
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(d, target)
			}
			g := gitDir{dir: filepath.Clean(target), common: filepath.Clean(target), file: dot}
			// A command may write a .git file in its cwd: its folder
			// would become writable. Only a linked worktree's folder,
			// whose gitdir file (outside the roots, git's) names this
			// .git file back, is taken.
			back, err := os.ReadFile(filepath.Join(g.dir, "gitdir"))
			if err != nil || filepath.Clean(strings.TrimSpace(string(back))) != dot {
				return gitDir{file: dot}
			}
			if c, err := os.ReadFile(filepath.Join(g.dir, "commondir")); err == nil {
				common := strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(g.dir, common)
				}
				g.common = filepath.Clean(common)
			}
			return g
		}
		if parent := filepath.Dir(d); parent == d {
			return gitDir{}
		}
	}
}
