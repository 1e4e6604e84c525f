package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// TestConformance runs the rules every harness plugin keeps, through the
// same go-plugin and gRPC path as in production.
func TestConformance(t *testing.T) {
	t.Parallel()
	plugintest.Conformance(t, plugintest.Start(t, jsonqPlugin()))
}

const packageJSON = `{
  "name": "web",
  "version": "1.2.0",
  "dependencies": {"react": "19.1.0", "left-pad": "1.3.0"},
  "scripts": {"build.prod": "vite build"},
  "items": [
    {"name": "a", "size": 10},
    {"name": "b", "size": 12345678901234567890},
    {"size": 3}
  ],
  "empty": {}
}`

// workdir returns a session cwd holding package.json, a broken file, a
// big file and a symlink leading out.
func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", packageJSON)
	write("sub/conf.json", `{"a":{"b":[1,2,3]}}`)
	write("broken.json", `{"a": 1,`)
	write("lines.jsonl", "{\"a\":1}\n{\"a\":2}\n")
	big := map[string]string{}
	for i := range 2000 {
		big[fmt.Sprintf("key%04d", i)] = strings.Repeat("v", 20)
	}
	b, _ := json.Marshal(map[string]any{"big": big})
	write("big.json", string(b))
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`{"token":"hunter2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestQuery(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, jsonqPlugin())
	cwd := workdir(t)
	tests := map[string]struct {
		file, path string
		cwd        string // default: the workdir
		want       string // the content, or for errors a part of it
		isError    bool
	}{
		"a string":              {file: "package.json", path: ".dependencies.react", want: `"19.1.0"`},
		"no leading dot":        {file: "package.json", path: "dependencies.react", want: `"19.1.0"`},
		"an object":             {file: "sub/conf.json", path: ".a", want: "{\n  \"b\": [\n    1,\n    2,\n    3\n  ]\n}"},
		"the whole document":    {file: "sub/conf.json", path: "", want: "{\n  \"a\": {\n    \"b\": [\n      1,\n      2,\n      3\n    ]\n  }\n}"},
		"an index":              {file: "package.json", path: ".items[0].name", want: `"a"`},
		"a negative index":      {file: "package.json", path: ".items[-1].size", want: `3`},
		"a big number as typed": {file: "package.json", path: ".items[1].size", want: `12345678901234567890`},
		"every item's field":    {file: "package.json", path: ".items[*].name", want: "[\n  \"a\",\n  \"b\"\n]"},
		"every value":           {file: "package.json", path: ".dependencies[*]", want: "[\n  \"1.3.0\",\n  \"19.1.0\"\n]"},
		"a quoted key":          {file: "package.json", path: `.scripts["build.prod"]`, want: `"vite build"`},
		"a quoted key, jq form": {file: "package.json", path: `.scripts.["build.prod"]`, want: `"vite build"`},
		"an empty object":       {file: "package.json", path: ".empty", want: `{}`},
		"an absolute path in the cwd": {
			file: filepath.Join(cwd, "package.json"), path: ".name", want: `"web"`,
		},
		"a missing key lists the keys": {
			file: "package.json", path: ".dependencies.vue", isError: true,
			want: `Error: package.json: .dependencies has no key "vue"; its keys: left-pad, react`,
		},
		"out of range": {
			file: "package.json", path: ".items[5]", isError: true,
			want: "index 5 is out of range: .items has 3 items",
		},
		"not an object": {
			file: "package.json", path: ".name.first", isError: true,
			want: `.name is a string, not an object: it has no key "first"`,
		},
		"a bad path": {
			file: "package.json", path: ".items[x]", isError: true,
			want: `Error: invalid path ".items[x]": at offset 6: [x]: want an index, * or a quoted key`,
		},
		"a missing file": {
			file: "nope.json", isError: true, want: "Error: open nope.json: no such file or directory",
		},
		"not JSON": {
			file: "broken.json", isError: true, want: "Error: broken.json is not JSON: unexpected EOF",
		},
		"JSON lines": {
			file: "lines.jsonl", isError: true, want: "is not one JSON value",
		},
		"dot-dot leaves the cwd": {
			file: "../secret.json", isError: true, want: "Error: ../secret.json is outside the working directory",
		},
		"an absolute path elsewhere": {
			file: "/etc/passwd", isError: true, want: "Error: /etc/passwd is outside the working directory",
		},
		"a symlink out of the cwd": {
			file: "link.json", isError: true, want: "Error: open link.json: path escapes from parent",
		},
		"no cwd": {
			file: "package.json", cwd: "-", isError: true, want: "json_query needs a working directory",
		},
		"a big value is cut with a hint": {
			file: "big.json", path: ".big", want: "… cut at 16384 of ",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := cwd
			if tc.cwd == "-" {
				dir = ""
			}
			res := plugintest.Exec(t, c, pluginapi.CallRequest{
				Tool: "json_query",
				Args: plugintest.Args(t, map[string]string{"file": tc.file, "path": tc.path}),
				Cwd:  dir,
			})
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.isError, res.Content)
			}
			if tc.isError || strings.HasPrefix(tc.want, "…") {
				if !strings.Contains(res.Content, tc.want) {
					t.Errorf("content\n%s\nlacks\n%s", res.Content, tc.want)
				}
				return
			}
			if res.Content != tc.want {
				t.Errorf("content\n%s\nwant\n%s", res.Content, tc.want)
			}
		})
	}
}

func TestCutHintNamesKeys(t *testing.T) {
	t.Parallel()
	c := plugintest.Start(t, jsonqPlugin())
	res := plugintest.Exec(t, c, pluginapi.CallRequest{
		Tool: "json_query", Args: json.RawMessage(`{"file":"big.json","path":".big"}`), Cwd: workdir(t),
	})
	if len(res.Content) > maxResultBytes+2000 || !strings.Contains(res.Content, "query one of its keys: key0000, key0001, ") ||
		!strings.Contains(res.Content, "more)") {
		t.Errorf("cut result ends:\n%s", res.Content[max(0, len(res.Content)-600):])
	}
}

func TestParsePath(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		path    string
		want    []seg
		wantErr string
	}{
		"empty":       {path: ""},
		"dot":         {path: "."},
		"keys":        {path: ".a.b", want: []seg{{kind: segKey, key: "a"}, {kind: segKey, key: "b"}}},
		"index, all":  {path: "a[2][*]", want: []seg{{kind: segKey, key: "a"}, {kind: segIndex, index: 2}, {kind: segAll}}},
		"negative":    {path: "[-1]", want: []seg{{kind: segIndex, index: -1}}},
		"quoted":      {path: `["a.b \"c\"]"]`, want: []seg{{kind: segKey, key: `a.b "c"]`}}},
		"empty key":   {path: ".a..b", wantErr: "at offset 3: empty key"},
		"unclosed":    {path: ".a[1", wantErr: "unterminated ["},
		"unclosed q":  {path: `["a`, wantErr: `unterminated ["key"]`},
		"bad inside":  {path: "[a]", wantErr: "want an index, * or a quoted key"},
		"trailing ]":  {path: ".a]", want: []seg{{kind: segKey, key: "a]"}}},
		"spaces trim": {path: "  .a  ", want: []seg{{kind: segKey, key: "a"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := parsePath(tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parsePath(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// TestCancelledRead stops reading a file once the call's context is done.
func TestCancelledRead(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	_, err := readJSON(ctx, workdir(t), "big.json")
	if err == nil || time.Since(start) > time.Second {
		t.Errorf("readJSON on a cancelled context = %v after %v", err, time.Since(start))
	}
}
