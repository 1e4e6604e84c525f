package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 29, 19, 47, 10, 123456789, time.UTC)

func testHeader(id string) Header {
	return Header{ID: id, CreatedAt: t0, Cwd: "/src/project"}
}

func rec(seq int64, typ, data string) Record {
	return Record{Seq: seq, Time: t0.Add(time.Duration(seq) * time.Millisecond), Type: typ, Data: json.RawMessage(data)}
}

// newLog creates a log in a fresh directory with n records and returns its
// path and the records, the log closed.
func newLog(t *testing.T, n int) (string, []Record) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions", "abc.jsonl")
	l, err := Create(path, testHeader("abc"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i := range int64(n) {
		r := rec(i, "note/add", fmt.Sprintf(`{"n":%d,"text":"line %d"}`, i, i))
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path, recs
}

// collect opens path and returns the log and every record replayed.
func collect(t *testing.T, path string) (*Log, []Record) {
	t.Helper()
	var got []Record
	l, err := Open(path, func(r Record) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, got
}

func diffRecords(want, got []Record) string {
	return cmp.Diff(want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }))
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "sessions")
	path := filepath.Join(dir, "abc.jsonl")
	local := time.FixedZone("X", 5*3600)
	h := Header{ID: "abc", CreatedAt: t0.In(local), Cwd: "/src/project", Parent: "parent-1"}
	l, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		rec(0, "turn/start", `{"turn":1}`),
		rec(1, "user/message", `{"content":[{"type":"text","text":"héllo \"you\"\n<tag>"}]}`),
		{Seq: 2, Time: t0.In(local), Type: "x/scalar", Data: json.RawMessage(`"just a string"`)},
		rec(3, "x/nested", `{"a":[1,2.5e3,{"b":null}],"c":true}`),
		{Seq: 4, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Type: "turn/end", Data: json.RawMessage(`{"turn":1,"reason":"completed"}`)},
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		path string
		mode fs.FileMode
	}{{dir, 0o700 | fs.ModeDir}, {path, 0o600}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != c.mode {
			t.Errorf("%s: mode %v, want %v", c.path, fi.Mode(), c.mode)
		}
	}

	l2, got := collect(t, path)
	if d := diffRecords(recs, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	wantH := Header{Version: 1, ID: "abc", CreatedAt: t0, Cwd: "/src/project", Parent: "parent-1"}
	if d := cmp.Diff(wantH, l2.Header()); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	if !l2.Repaired().IsZero() {
		t.Errorf("Repaired = %v, want clean", l2.Repaired())
	}
	if l2.Next() != 5 {
		t.Errorf("Next = %d, want 5", l2.Next())
	}
	if err := l2.Append(rec(5, "turn/start", `{"turn":2}`)); err != nil {
		t.Fatal(err)
	}
}

func TestFileFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "abc.jsonl")
	l, err := Create(path, testHeader("abc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{
		rec(0, "turn/start", `{"turn":1}`),
		rec(1, "x/indented", "{\n  \"a\": [1,\n 2]\n}"),
	} {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"session","version":1,"id":"abc","createdAt":"2026-11-29T19:47:10.123456789Z","cwd":"/src/project"}
{"seq":0,"time":"2026-11-29T19:47:10.123456789Z","type":"turn/start","data":{"turn":1}}
{"seq":1,"time":"2026-11-29T19:47:10.124456789Z","type":"x/indented","data":{"a":[1,2]}}
`
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("file (-want +got):\n%s", d)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not valid JSON: %s", i+1, line)
		}
	}
}

func TestTornTail(t *testing.T) {
	t.Parallel()
	good := `{"seq":3,"time":"2026-11-29T19:47:10Z","type":"note/add","data":{"n":3}}`
	for _, tc := range []struct {
		name     string
		tail     string
		keep     int // records kept
		line     int // line where the cut starts
		reason   string
		nonEmpty bool
	}{
		{name: "no newline", tail: good[:40], keep: 3, line: 5, reason: "no newline"},
		{name: "whole record without newline", tail: good, keep: 3, line: 5, reason: "no newline"},
		{name: "NUL tail", tail: strings.Repeat("\x00", 4096), keep: 3, line: 5, reason: "NUL"},
		{name: "partial line then NULs", tail: good[:20] + strings.Repeat("\x00", 100), keep: 3, line: 5, reason: "no newline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, recs := newLog(t, 3)
			before, _ := os.ReadFile(path)
			appendFile(t, path, tc.tail)

			// Read reports the tear but leaves the file alone.
			_, rep, err := Read(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Bytes != int64(len(tc.tail)) {
				t.Errorf("Read: repair %v, want %d bytes", rep, len(tc.tail))
			}
			if fi, _ := os.Stat(path); fi.Size() != int64(len(before)+len(tc.tail)) {
				t.Errorf("Read changed the file size to %d", fi.Size())
			}

			l, got := collect(t, path)
			if d := diffRecords(recs[:tc.keep], got); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			r := l.Repaired()
			if r.Line != tc.line || r.Bytes != int64(len(tc.tail)) || r.Offset != int64(len(before)) || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("Repaired = %+v, want line %d, %d bytes at %d, reason ~%q", r, tc.line, len(tc.tail), len(before), tc.reason)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, before) {
				t.Errorf("file after repair:\n%q\nwant:\n%q", after, before)
			}
			// Appending continues at the right seq.
			if l.Next() != 3 {
				t.Fatalf("Next = %d, want 3", l.Next())
			}
			next := rec(3, "note/add", `{"n":3}`)
			if err := l.Append(next); err != nil {
				t.Fatal(err)
			}
			l.Close()
			l2, got := collect(t, path)
			if d := diffRecords(append(recs, next), got); d != "" {
				t.Errorf("after append (-want +got):\n%s", d)
			}
			if !l2.Repaired().IsZero() {
				t.Errorf("second open repaired %v", l2.Repaired())
			}
		})
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// replaceLine replaces line n (1-based) of path with s; s == "" with remove
// set deletes it.
func replaceLine(t *testing.T, path string, n int, s string, remove bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if remove {
		lines = append(lines[:n-1], lines[n:]...)
	} else {
		lines[n-1] = s + "\n"
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCorrupt(t *testing.T) {
	t.Parallel()
	line := func(seq int) string {
		return fmt.Sprintf(`{"seq":%d,"time":"2026-11-29T19:47:10Z","type":"note/add","data":{}}`, seq)
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		line   int
		msg    string
	}{
		{"bad JSON in the middle", func(t *testing.T, p string) { replaceLine(t, p, 3, `{"seq":1,"time":`, false) }, 3, ""},
		{"blank middle line", func(t *testing.T, p string) { replaceLine(t, p, 4, ``, false) }, 4, ""},
		{"missing data", func(t *testing.T, p string) {
			replaceLine(t, p, 3, `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b"}`, false)
		}, 3, "no data"},
		{"missing seq", func(t *testing.T, p string) {
			replaceLine(t, p, 3, `{"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`, false)
		}, 3, "no seq"},
		{"unknown field", func(t *testing.T, p string) {
			replaceLine(t, p, 3, `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{},"x":1}`, false)
		}, 3, "unknown field"},
		{"bad type", func(t *testing.T, p string) {
			replaceLine(t, p, 3, `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a b","data":{}}`, false)
		}, 3, "type"},
		{"seq gap", func(t *testing.T, p string) { replaceLine(t, p, 4, "", true) }, 4, "seq 3 follows 1"},
		{"seq repeat", func(t *testing.T, p string) { replaceLine(t, p, 4, line(1), false) }, 4, "seq 1 follows 1"},
		{"first seq not 0", func(t *testing.T, p string) { replaceLine(t, p, 2, line(7), false) }, 2, "seq 7, want 0"},
		{"wrong seq on the final line", func(t *testing.T, p string) { replaceLine(t, p, 6, line(9), false) }, 6, "seq 9 follows 3"},
		// A complete last line (it ends in '\n') that does not parse is
		// damage, not a write torn by a crash.
		{"garbage final line", func(t *testing.T, p string) { appendFile(t, p, "{\"seq\":4,\"ti\x00\x00me\n") }, 6, ""},
		{"empty final line", func(t *testing.T, p string) { appendFile(t, p, "\n") }, 6, ""},
		{"bad final line then NULs", func(t *testing.T, p string) { appendFile(t, p, "{]\n\x00\x00") }, 6, ""},
		{"missing field on the final line", func(t *testing.T, p string) {
			appendFile(t, p, `{"seq":4,"time":"2026-11-29T19:47:10Z","type":"note/add"}`+"\n")
		}, 6, "no data"},
		{"bad final line followed by a partial one", func(t *testing.T, p string) {
			replaceLine(t, p, 6, `{garbage`, false)
			appendFile(t, p, `{"seq":4`)
		}, 6, ""},
		{"bad header", func(t *testing.T, p string) { replaceLine(t, p, 1, `{"type":"session"`, false) }, 1, "bad header"},
		{"header of another type", func(t *testing.T, p string) { replaceLine(t, p, 1, `{"type":"log","version":1}`, false) }, 1, `type "log"`},
		{"header without id", func(t *testing.T, p string) {
			replaceLine(t, p, 1, `{"type":"session","version":1,"createdAt":"2026-11-29T19:47:10Z","cwd":"/"}`, false)
		}, 1, "no id"},
		{"empty file", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o600) }, 1, "empty"},
		{"header without newline", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"type":"session"`), 0o600) }, 1, "no newline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, _ := newLog(t, 4)
			tc.damage(t, path)
			before, _ := os.ReadFile(path)

			for _, op := range []string{"Open", "Read"} {
				var err error
				if op == "Open" {
					var l *Log
					l, err = Open(path, nil)
					if err == nil {
						l.Close()
					}
				} else {
					_, _, err = Read(path, nil)
				}
				var ce *CorruptError
				if !errors.As(err, &ce) {
					t.Fatalf("%s: err = %v, want *CorruptError", op, err)
				}
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s: errors.Is(err, ErrCorrupt) = false", op)
				}
				if ce.Line != tc.line || ce.Path != path {
					t.Errorf("%s: error at %s:%d, want %s:%d (%v)", op, ce.Path, ce.Line, path, tc.line, err)
				}
				if want := fmt.Sprintf("%s:%d: ", path, tc.line); !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("%s: error %q, want prefix %q containing %q", op, err, want, tc.msg)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Error("a failed Open changed the file")
			}
			// The lock is not left behind.
			if err := tryLock(path); err != nil {
				t.Errorf("lock after a failed Open: %v", err)
			}
		})
	}
}

func tryLock(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return lock(f)
}

func TestVersion(t *testing.T) {
	t.Parallel()
	path, _ := newLog(t, 1)
	replaceLine(t, path, 1, `{"type":"session","version":2,"id":"abc","createdAt":"2026-11-29T19:47:10Z","cwd":"/","title":"new field"}`, false)
	_, err := Open(path, nil)
	if !errors.Is(err, ErrVersion) {
		t.Fatalf("err = %v, want ErrVersion", err)
	}
	if want := path + ": unsupported log format version 2 (this harness reads version 1)"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if _, err := Create(filepath.Join(t.TempDir(), "x.jsonl"), Header{Version: 2, ID: "x", CreatedAt: t0}); !errors.Is(err, ErrVersion) {
		t.Errorf("Create version 2: err = %v, want ErrVersion", err)
	}
}

func TestLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "abc.jsonl")
	l, err := Create(path, testHeader("abc"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(err error) {
		t.Helper()
		var le *LockedError
		if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
			t.Fatalf("err = %v, want *LockedError", err)
		}
		if !strings.HasPrefix(err.Error(), "session abc is open in another harness process; close it there first") || strings.Contains(err.Error(), "\n") {
			t.Errorf("message %q", err)
		}
	}
	_, err = Open(path, nil)
	check(err)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l1, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, nil)
	check(err)
	// Reading needs no lock.
	if _, _, err := Read(path, nil); err != nil {
		t.Errorf("Read while locked: %v", err)
	}
	l1.Close()
	l2, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	l2.Close()
}

func TestAppendRefuses(t *testing.T) {
	t.Parallel()
	path, _ := newLog(t, 2)
	l, _ := collect(t, path)
	for _, tc := range []struct {
		name string
		r    Record
		msg  string
	}{
		{"seq ahead", rec(3, "a/b", `{}`), "seq 3, want 2"},
		{"seq behind", rec(1, "a/b", `{}`), "seq 1, want 2"},
		{"empty type", rec(2, "", `{}`), "empty type"},
		{"type with space", rec(2, "a b", `{}`), "type"},
		{"type with quote", rec(2, `a"b`, `{}`), "type"},
		{"non-ASCII type", rec(2, "a/é", `{}`), "type"},
		{"long type", rec(2, strings.Repeat("a", 129), `{}`), "longer than 128"},
		{"no data", rec(2, "a/b", ``), "no data"},
		{"invalid data", rec(2, "a/b", `{"a":`), "not valid JSON"},
		{"two values", rec(2, "a/b", `{} {}`), "not valid JSON"},
		{"year 10000", Record{Seq: 2, Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Type: "a/b", Data: json.RawMessage(`{}`)}, "year"},
		{"negative seq", rec(-1, "a/b", `{}`), "seq -1, want 2"},
	} {
		err := l.Append(tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
	if l.Next() != 2 {
		t.Errorf("Next = %d after refused appends, want 2", l.Next())
	}
	if err := l.Append(rec(2, "a/b", `{}`)); err != nil {
		t.Fatalf("a good append after refused ones: %v", err)
	}
	l.Close()
	_, got := collect(t, path)
	if len(got) != 3 {
		t.Errorf("%d records, want 3", len(got))
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	path, _ := newLog(t, 0)
	if _, err := Create(path, testHeader("abc")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing file: err = %v, want fs.ErrExist", err)
	}
	if _, err := Create(filepath.Join(t.TempDir(), "x.jsonl"), Header{CreatedAt: t0}); err == nil || !strings.Contains(err.Error(), "no id") {
		t.Errorf("Create without id: err = %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.jsonl"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open missing: err = %v, want fs.ErrNotExist", err)
	}
	if _, _, err := Read(filepath.Join(t.TempDir(), "missing.jsonl"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read missing: err = %v, want fs.ErrNotExist", err)
	}
}

func TestVisitError(t *testing.T) {
	t.Parallel()
	path, _ := newLog(t, 5)
	appendFile(t, path, `{"seq":5,"ti`)
	before, _ := os.ReadFile(path)
	stop := errors.New("stop here")
	var seen []int64
	_, err := Open(path, func(r Record) error {
		seen = append(seen, r.Seq)
		if r.Seq == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("err = %v, want the visitor's error as is", err)
	}
	if d := cmp.Diff([]int64{0, 1, 2}, seen); d != "" {
		t.Errorf("visited (-want +got):\n%s", d)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("Open cut the tail although the visitor failed")
	}
	if err := tryLock(path); err != nil {
		t.Errorf("lock after a failed Open: %v", err)
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	path, _ := newLog(t, 1)
	l, _ := collect(t, path)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := l.Append(rec(1, "a/b", `{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: err = %v, want ErrClosed", err)
	}
	if err := l.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close: err = %v, want ErrClosed", err)
	}
}

// TestConcurrent exercises the mutex under -race: appenders serialised on
// the seq, and Sync, Next running alongside.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	path, _ := newLog(t, 0)
	l, _ := collect(t, path)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int64
	)
	for range 4 {
		wg.Go(func() {
			for range 100 {
				mu.Lock()
				err := l.Append(rec(next, "a/b", `{}`))
				next++
				mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
				_ = l.Next()
			}
		})
		wg.Go(func() {
			for range 10 {
				if err := l.Sync(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	l.Close()
	_, got := collect(t, path)
	if len(got) != 400 {
		t.Errorf("%d records, want 400", len(got))
	}
}
