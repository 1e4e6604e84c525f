package devbuild

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCompactReport(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	out.WriteString("# example.com/x/plug\n")
	for i := range 30 {
		fmt.Fprintf(&out, "./main.go:%d:1: error %d\n", i+1, i)
	}
	b := Build{Plugin: "plug", Elapsed: 1234 * time.Millisecond, Err: &BuildError{Plugin: "plug", Output: out.String(), Err: errors.New("exit status 1")}}
	got := compactReport(b, 20)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 22 {
		t.Fatalf("%d lines, want header + 20 + count:\n%s", len(lines), got)
	}
	if lines[0] != "plugin plug: build failed after 1.23s; the last good version keeps serving" {
		t.Errorf("header = %q", lines[0])
	}
	if lines[1] != "  ./main.go:1:1: error 0" || lines[21] != "  … 10 more lines" {
		t.Errorf("lines = %q … %q", lines[1], lines[21])
	}
	if msg := b.Err.Error(); msg != "build plugin plug: ./main.go:1:1: error 0" {
		t.Errorf("Error() = %q", msg)
	}

	// No output: the go command's own error.
	b.Err = &BuildError{Plugin: "plug", Err: errors.New(`exec: "go": executable file not found in $PATH`)}
	if got := compactReport(b, 20); !strings.Contains(got, "  go build: exec: \"go\"") {
		t.Errorf("report without output:\n%s", got)
	}
}

func TestSkipRules(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"main.go": false, "description.md": false, "go.mod": false, "schema.json": false,
		"main_test.go": true, ".main.go.swp": true, "main.go~": true, "main.go.swp": true, "x.tmp": true,
		"4913": true, "#main.go#": true, "plug": true, "plug.exe": true, "plug-go-tmp-umask": true,
	} {
		if got := skipFile(name, "plug"); got != want {
			t.Errorf("skipFile(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"internal": false, "testdata": true, ".git": true, "_old": true} {
		if got := skipDir(name); got != want {
			t.Errorf("skipDir(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSourceOf(t *testing.T) {
	t.Parallel()
	w := &watcher{srcs: []source{{dir: "/p/a"}, {dir: "/p/ab"}, {dir: "/p/a/nested"}}}
	for path, want := range map[string]int{
		"/p/a/main.go":          0,
		"/p/ab/main.go":         1,
		"/p/a/nested/x.go":      2,
		"/p/a/nested":           2,
		"/p/abc/x.go":           -1,
		"/elsewhere/p/a/x.go":   -1,
		"/p/a/sub/deeper/x.txt": 0,
	} {
		if got := w.sourceOf(filepath.FromSlash(path)); got != want {
			t.Errorf("sourceOf(%s) = %d, want %d", path, got, want)
		}
	}
	if !w.skippedDirBelow(0, "/p/a/testdata/x.go") || w.skippedDirBelow(0, "/p/a/sub/x.go") || w.skippedDirBelow(0, "/p/a/x.go") {
		t.Errorf("skippedDirBelow wrong")
	}
}

func TestExecName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"example.com/jsonq":      "jsonq",
		"example.com/tool/v2":    "tool",
		"example.com/tool/v10":   "tool",
		"example.com/tool/v1":    "v1",
		"example.com/tool/v0":    "v0",
		"example.com/tool/v2x":   "v2x",
		"gopkg.in/yaml.v3":       "yaml.v3",
		"v2":                     "v2",
		"_/home/me/src/myplugin": "myplugin",
		"example.com":            "example.com",
	} {
		if got := execName(in); got != want {
			t.Errorf("execName(%q) = %q, want %q", in, got, want)
		}
	}
}
