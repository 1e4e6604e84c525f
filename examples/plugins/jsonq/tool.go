package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/harness-dev/harness/pluginapi"
)

const (
	// maxFileBytes bounds the JSON file read.
	maxFileBytes = 64 << 20
	// maxResultBytes bounds the text the model gets; a longer value is cut
	// and the model told how to narrow its query.
	maxResultBytes = 16 << 10
	// maxKeysShown bounds the keys listed in a hint.
	maxKeysShown = 30
)

const description = `Read one value out of a JSON file in the working directory, instead of reading the whole file.

path selects the value: ".dependencies.react", ".items[0].name", ".items[-1]" (the last), ".items[*].name" (every item's name, as an array), ".[\"key.with.dots\"]"; "" or "." is the whole document. The result is the value as indented JSON, cut at 16 KiB with a hint (an object's keys, an array's length) to narrow the path.`

const schema = `{
  "type": "object",
  "properties": {
    "file": {"type": "string", "description": "The JSON file, relative to the working directory."},
    "path": {"type": "string", "description": "The value to read, e.g. .dependencies.react or .items[0].name; empty for the whole document."}
  },
  "required": ["file"],
  "additionalProperties": false
}`

type queryArgs struct {
	File string `json:"file"`
	Path string `json:"path"`
}

func queryTool() pluginapi.Tool {
	return pluginapi.Typed(pluginapi.ToolSpec{
		Name:            "json_query",
		Description:     description,
		Schema:          json.RawMessage(schema),
		ConcurrencySafe: true,
	}, query)
}

// query answers one json_query call. Every failure the model can act on
// (a missing file, bad JSON, a path that selects nothing) is an error
// Result.
func query(ctx context.Context, call *pluginapi.Call, args queryArgs) (pluginapi.Result, error) {
	segs, err := parsePath(args.Path)
	if err != nil {
		return pluginapi.ErrorResult("invalid path %q: %v", args.Path, err), nil
	}
	if call.Cwd == "" {
		return pluginapi.ErrorResult("json_query needs a working directory: it reads files only under the session's cwd"), nil
	}
	doc, err := readJSON(ctx, call.Cwd, args.File)
	if err != nil {
		if ctx.Err() != nil {
			return pluginapi.ErrorResult("cancelled"), nil
		}
		return pluginapi.ErrorResult("%v", err), nil
	}
	v, err := eval(doc, segs, "")
	if err != nil {
		return pluginapi.ErrorResult("%s: %v", args.File, err), nil
	}
	call.Logger.Debug("query answered", "file", args.File, "path", args.Path)
	return pluginapi.Result{Content: render(v)}, nil
}

// readJSON reads and decodes file, a path under cwd, with numbers kept as
// written.
func readJSON(ctx context.Context, cwd, file string) (any, error) {
	rel, err := underCwd(cwd, file)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(cwd)
	if err != nil {
		return nil, fmt.Errorf("open the working directory: %w", err)
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s is %d MiB; json_query reads files up to %d MiB", file, st.Size()>>20, maxFileBytes>>20)
	}
	dec := json.NewDecoder(&ctxReader{ctx: ctx, r: io.LimitReader(f, maxFileBytes+1)})
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s is not JSON: %s", file, strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s is not one JSON value: data follows it (JSON Lines are not supported)", file)
	}
	return doc, nil
}

// underCwd returns file relative to cwd, refusing paths that leave it.
// os.Root enforces the same at open time, symlinks included; this gives
// the clearer message.
func underCwd(cwd, file string) (string, error) {
	if file == "" {
		return "", errors.New("no file given")
	}
	rel := file
	if filepath.IsAbs(file) {
		var err error
		if rel, err = filepath.Rel(cwd, file); err != nil {
			return "", fmt.Errorf("%s is outside the working directory %s", file, cwd)
		}
	}
	rel = filepath.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the working directory %s", file, cwd)
	}
	return rel, nil
}

// ctxReader stops reading once ctx is done, so a large file's decoding
// ends promptly when the call is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// render encodes v as indented JSON, cut at maxResultBytes with a hint.
func render(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // decoded JSON always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	if len(out) <= maxResultBytes {
		return out
	}
	cut := out[:maxResultBytes]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	hint := "query a narrower path"
	switch x := v.(type) {
	case map[string]any:
		hint = "query one of its keys: " + strings.Join(keys(x), ", ")
	case []any:
		hint = fmt.Sprintf("it is an array of %d items: query one, e.g. [0], or a field of each, e.g. [*].name", len(x))
	}
	return fmt.Sprintf("%s\n… cut at %d of %d bytes; %s", cut, maxResultBytes, len(out), hint)
}

// keys lists up to maxKeysShown keys of m, sorted.
func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	if len(ks) > maxKeysShown {
		ks = append(ks[:maxKeysShown], fmt.Sprintf("… (%d more)", len(m)-maxKeysShown))
	}
	return ks
}
