package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// placeholderPolicy is a workspace-write policy over a fresh root.
func placeholderPolicy(t *testing.T) (Policy, string) {
	t.Helper()
	root := t.TempDir()
	return Build(Setup{Mode: WorkspaceWrite, Cwd: root}), root
}

// names lists what is in dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestPlaceholders: Make creates the four names, of their kind and mode,
// shares them between commands, and the last release removes them; a
// placeholder something else changed, and anything that was there
// before, is never removed.
func TestPlaceholders(t *testing.T) {
	all := []string{".idea", ".mcp.json", ".vscode", ".zed"}
	tests := []struct {
		name   string
		before func(root string) error // the project before the command
		during func(root string) error // something outside the sandbox meanwhile
		made   []string                // covered by Make
		after  []string                // left in the project after release
	}{
		{name: "all missing", made: all},
		{name: "existing kept", before: func(root string) error {
			return os.Mkdir(filepath.Join(root, ".vscode"), 0o755) // the user's, empty
		}, made: []string{".idea", ".mcp.json", ".zed"}, after: []string{".vscode"}},
		{name: "link not followed", before: func(root string) error {
			if err := os.Symlink(filepath.Join(filepath.Dir(root), "elsewhere"), filepath.Join(root, ".vscode")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(filepath.Dir(root), "elsewhere.json"), filepath.Join(root, ".mcp.json"))
		}, made: []string{".idea", ".zed"}, after: []string{".mcp.json", ".vscode"}},
		{name: "written into outside", during: func(root string) error {
			if err := os.WriteFile(filepath.Join(root, ".vscode", "tasks.json"), []byte("x"), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, ".mcp.json"), []byte("{}"), 0o644)
		}, made: all, after: []string{".mcp.json", ".vscode"}},
		{name: "replaced outside", during: func(root string) error {
			if err := os.Remove(filepath.Join(root, ".zed")); err != nil {
				return err
			}
			if err := os.Mkdir(filepath.Join(root, ".zed"), 0o700); err != nil {
				return err
			}
			if err := os.Remove(filepath.Join(root, ".mcp.json")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, ".mcp.json"), nil, 0o600)
		}, made: all, after: []string{".mcp.json", ".zed"}},
		{name: "hard link outside", during: func(root string) error {
			return os.Link(filepath.Join(root, ".mcp.json"), filepath.Join(root, "linked"))
		}, made: all, after: []string{".mcp.json", "linked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, root := placeholderPolicy(t)
			if tt.before != nil {
				if err := tt.before(root); err != nil {
					t.Fatal(err)
				}
			}
			table := NewPlaceholders(t.TempDir())
			before := names(t, filepath.Dir(root))
			covered, release := table.Make(p)
			var got []string
			for _, c := range covered {
				got = append(got, filepath.Base(c))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.made) {
				t.Fatalf("covered %v, want %v", got, tt.made)
			}
			for _, c := range covered {
				fi, err := os.Lstat(c)
				if err != nil {
					t.Fatal(err)
				}
				want := os.FileMode(0o600)
				if filepath.Base(c) != ".mcp.json" {
					want = os.ModeDir | 0o700
				}
				if fi.Mode() != want {
					t.Errorf("%s: mode %v, want %v", c, fi.Mode(), want)
				}
			}
			// A second command shares them: its release removes nothing.
			_, release2 := table.Make(p)
			if tt.during != nil {
				if err := tt.during(root); err != nil {
					t.Fatal(err)
				}
			}
			release2()
			for _, c := range covered {
				if _, err := os.Lstat(c); err != nil {
					t.Errorf("%s removed while another command holds it", c)
				}
			}
			release()
			release() // once only
			if got := names(t, root); !slices.Equal(got, tt.after) {
				t.Errorf("left %v, want %v", got, tt.after)
			}
			if got := names(t, filepath.Dir(root)); !slices.Equal(got, before) {
				t.Errorf("beside the root: %v, was %v", got, before)
			}
			if live := table.Live(); len(live) != 0 {
				t.Errorf("the table still holds %v", live)
			}
		})
	}
}

// TestPlaceholdersOff: no placeholder without a sandbox, nor for a
// read-only policy (no writable root).
func TestPlaceholdersOff(t *testing.T) {
	root := t.TempDir()
	for _, p := range []Policy{Build(Setup{Mode: Off, Cwd: root}), Build(Setup{Mode: ReadOnly, Cwd: root})} {
		covered, release := NewPlaceholders("").Make(p)
		release()
		if len(covered) != 0 || len(names(t, root)) != 0 {
			t.Errorf("%s: covered %v, made %v", p.Mode, covered, names(t, root))
		}
	}
}

// deadPid is the pid of a process that ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestPlaceholdersSweep: the placeholders a killed process recorded are
// removed by the next table made in the folder, only when they are
// still the recorded inode and empty; a live process's record is left.
func TestPlaceholdersSweep(t *testing.T) {
	p, root := placeholderPolicy(t)
	dir := t.TempDir()
	killed := NewPlaceholders(dir)
	covered, _ := killed.Make(p) // never released: its process "died"
	if len(covered) != 4 {
		t.Fatalf("covered %v", covered)
	}
	// Something changed two of them since.
	if err := os.WriteFile(filepath.Join(root, ".idea", "workspace.xml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, ".zed")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".zed"), 0o700); err != nil {
		t.Fatal(err)
	}
	record, err := os.ReadFile(killed.record)
	if err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(dir, fmt.Sprintf("placeholders-%d-x", deadPid(t)))
	if err := os.WriteFile(dead, record, 0o600); err != nil {
		t.Fatal(err)
	}
	alive := filepath.Join(dir, "placeholders-1-x") // pid 1 lives
	if err := os.WriteFile(alive, record, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(killed.record); err != nil {
		t.Fatal(err)
	}
	next := NewPlaceholders(dir)
	covered, release := next.Make(Build(Setup{Mode: WorkspaceWrite, Cwd: t.TempDir()}))
	release()
	if len(covered) != 4 {
		t.Fatalf("the next table covered %v", covered)
	}
	if got, want := names(t, root), []string{".idea", ".zed"}; !slices.Equal(got, want) {
		t.Errorf("after the sweep: %v, want %v", got, want)
	}
	if got, want := names(t, dir), []string{"placeholders-1-x"}; !slices.Equal(got, want) {
		t.Errorf("records left: %v, want %v", got, want)
	}
}

// FuzzParseRecordLine: a record line is read back as written, and
// nothing read is anything but an absolute, clean protected name.
func FuzzParseRecordLine(f *testing.F) {
	f.Add(`dir 66306 1234 1764690000123456789 0 "/home/me/p/.vscode"`)
	f.Add(`file 1 2 3 4 "/p/.mcp.json"`)
	f.Add(`dir 1 2 3 4 "/p/../etc/.vscode"`)
	f.Add(`file 1 2 3 4 "/p/.vscode"`)
	f.Add(`dir 1 2 -3 4 "/p/x\n/.zed"`)
	f.Fuzz(func(t *testing.T, line string) {
		path, ph, ok := parseRecordLine(line)
		if !ok {
			return
		}
		if !filepath.IsAbs(path) || filepath.Clean(path) != path || !slices.Contains(protectedNames, filepath.Base(path)) {
			t.Fatalf("%q read as %q", line, path)
		}
		kind := "file"
		if ph.dir {
			kind = "dir"
		}
		again := recordLine(kind, ph.id, path)
		p2, ph2, ok := parseRecordLine(again)
		if !ok || p2 != path || *ph2 != *ph || strings.Contains(again, "\n") {
			t.Fatalf("%q: written back as %q, read %q %+v", line, again, p2, ph2)
		}
	})
}

// BenchmarkPlaceholders is a command's cost of its placeholders: the
// four names made, recorded, and removed.
func BenchmarkPlaceholders(b *testing.B) {
	root := b.TempDir()
	p := Build(Setup{Mode: WorkspaceWrite, Cwd: root})
	for _, rec := range []string{"recorded", "unrecorded"} {
		b.Run(rec, func(b *testing.B) {
			dir := b.TempDir()
			if rec == "unrecorded" {
				dir = ""
			}
			table := NewPlaceholders(dir)
			for b.Loop() {
				covered, release := table.Make(p)
				if len(covered) != 4 {
					b.Fatalf("covered %v", covered)
				}
				release()
			}
		})
	}
}

// TestPlaceholdersRemade: a command's release never touches a
// placeholder made again at its path after the one it held was replaced.
func TestPlaceholdersRemade(t *testing.T) {
	p, root := placeholderPolicy(t)
	vscode := filepath.Join(root, ".vscode")
	table := NewPlaceholders(t.TempDir())
	_, releaseA := table.Make(p)
	// Replaced from outside, seen by the next command, then gone again.
	if err := os.Remove(vscode); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(vscode, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vscode, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, releaseB := table.Make(p)
	releaseB()
	if err := os.RemoveAll(vscode); err != nil {
		t.Fatal(err)
	}
	covered, releaseC := table.Make(p)
	if !slices.Contains(covered, vscode) {
		t.Fatalf("C covered %v", covered)
	}
	releaseA()
	if _, err := os.Lstat(vscode); err != nil {
		t.Fatalf("A's release removed C's placeholder: %v", err)
	}
	releaseC()
	if got := names(t, root); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}
