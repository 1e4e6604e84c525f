package eventlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeLine(t *testing.T) {
	t.Parallel()
	ts := time.Date(2026, 11, 29, 19, 47, 10, 0, time.UTC)
	for _, tc := range []struct {
		name string
		line string
		want Record
		fast bool   // the fast path must take it
		err  string // non-empty: decoding must fail with this
	}{
		{name: "canonical", fast: true,
			line: `{"seq":12,"time":"2026-11-29T19:47:10Z","type":"turn/start","data":{"turn":1}}`,
			want: Record{Seq: 12, Time: ts, Type: "turn/start", Data: json.RawMessage(`{"turn":1}`)}},
		{name: "zero seq, nanoseconds, scalar data", fast: true,
			line: `{"seq":0,"time":"2026-11-29T19:47:10.000000001Z","type":"a/b","data":null}`,
			want: Record{Seq: 0, Time: ts.Add(1), Type: "a/b", Data: json.RawMessage(`null`)}},
		{name: "offset time",
			line: `{"seq":1,"time":"2026-11-29T20:47:10+01:00","type":"a/b","data":[]}`, fast: true,
			want: Record{Seq: 1, Time: ts, Type: "a/b", Data: json.RawMessage(`[]`)}},
		{name: "whitespace",
			line: ` { "seq" : 1 , "time" : "2026-11-29T19:47:10Z" , "type" : "a/b" , "data" : { "x" : 1 } } `,
			want: Record{Seq: 1, Time: ts, Type: "a/b", Data: json.RawMessage(`{ "x" : 1 }`)}},
		{name: "other field order",
			line: `{"data":{},"type":"a/b","seq":3,"time":"2026-11-29T19:47:10Z"}`,
			want: Record{Seq: 3, Time: ts, Type: "a/b", Data: json.RawMessage(`{}`)}},
		{name: "escaped type",
			line: `{"seq":3,"time":"2026-11-29T19:47:10Z","type":"\u0061/b","data":{}}`,
			want: Record{Seq: 3, Time: ts, Type: "a/b", Data: json.RawMessage(`{}`)}},
		{name: "19-digit seq",
			line: `{"seq":1000000000000000000,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`,
			want: Record{Seq: 1e18, Time: ts, Type: "a/b", Data: json.RawMessage(`{}`)}},
		{name: "not an object", line: `[1,2]`, err: "cannot unmarshal"},
		{name: "empty", line: ``, err: "EOF"},
		{name: "missing time", line: `{"seq":1,"type":"a/b","data":{}}`, err: "no time"},
		{name: "missing type", line: `{"seq":1,"time":"2026-11-29T19:47:10Z","data":{}}`, err: "no type"},
		{name: "null seq", line: `{"seq":null,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`, err: "no seq"},
		{name: "negative seq", line: `{"seq":-1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`, err: "negative"},
		{name: "fractional seq", line: `{"seq":1.5,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`, err: "cannot unmarshal"},
		{name: "leading zero", line: `{"seq":01,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`, err: "invalid character"},
		{name: "bad time", line: `{"seq":1,"time":"yesterday","type":"a/b","data":{}}`, err: "cannot parse"},
		{name: "bad type", line: `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a\tb","data":{}}`, err: "type"},
		{name: "bad data", line: `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{x}}`, err: "invalid character"},
		{name: "trailing data", line: `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}{}`, err: "after"},
		{name: "extra field", line: `{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{},"more":1}`, err: "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeLine([]byte(tc.line))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := diffRecords([]Record{tc.want}, []Record{got}); d != "" {
				t.Errorf("record (-want +got):\n%s", d)
			}
			if _, ok := decodeFast([]byte(tc.line)); ok != tc.fast {
				t.Errorf("fast path took it: %v, want %v", ok, tc.fast)
			}
		})
	}
}

// FuzzDecodeLine checks the line decoder on arbitrary bytes: it never
// panics; the fast path agrees with encoding/json wherever it answers; and
// whatever decodes can be written back and decodes to the same record.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"seq":0,"time":"2026-11-29T19:47:10.123456789Z","type":"turn/start","data":{"turn":1}}`,
		`{"seq":17,"time":"2026-11-29T19:47:10Z","type":"user/message","data":{"content":[{"type":"text","text":"hi\n\u00e9"}]}}`,
		`{"seq":1,"time":"2026-11-29T20:47:10+01:00","type":"a/b","data":"x"}`,
		`{"data":[1,2,{}],"type":"a/b","seq":3,"time":"2026-11-29T19:47:10Z"}`,
		` { "seq" : 1 , "time" : "0000-01-01T00:30:00+01:00" , "type" : "\u0061/b" , "data" : 1e9 } `,
		`{"seq":99999999999999999999,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}`,
		`{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}} `,
		"{\"seq\":1,\"time\":\"2026-11-29T19:47:10Z\",\"type\":\"a/b\",\"data\":{\r}}",
		"\x00\x00\x00",
		`{"seq":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := decodeLine(line)
		fr, fok := decodeFast(line)
		if fok {
			sr, serr := decodeSlow(line)
			if serr != nil {
				t.Fatalf("fast path accepted %q, encoding/json refused it: %v", line, serr)
			}
			if !sameRecord(fr, sr) {
				t.Fatalf("fast and slow paths differ on %q:\n%+v\n%+v", line, fr, sr)
			}
		}
		if err != nil {
			return
		}
		if err := checkRecord(r); err != nil {
			t.Fatalf("decoded %q to a record Append would refuse: %v", line, err)
		}
		if bytes.IndexByte(line, '\n') >= 0 {
			return // never a line; the writer would compact such data
		}
		out := appendRecord(nil, r)
		if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("encoded %+v to %q: not one line", r, out)
		}
		if !json.Valid(out) {
			t.Fatalf("encoded %+v to invalid JSON %q", r, out)
		}
		r2, err := decodeLine(out[:len(out)-1])
		if err != nil {
			t.Fatalf("re-decode %q: %v", out, err)
		}
		if !sameRecord(r, r2) {
			t.Fatalf("round trip of %q:\n%+v\n%+v", line, r, r2)
		}
		if _, ok := decodeFast(out[:len(out)-1]); !ok {
			t.Fatalf("the fast path refused the writer's own line %q", out)
		}
	})
}

func sameRecord(a, b Record) bool {
	return a.Seq == b.Seq && a.Time.Equal(b.Time) && a.Type == b.Type && bytes.Equal(a.Data, b.Data)
}

func TestHeaderRoundTrip(t *testing.T) {
	t.Parallel()
	h := Header{Version: 1, ID: "x", CreatedAt: t0, Cwd: `/a "b"`, Parent: "p"}
	line, err := encodeHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeHeader(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(h, got); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
}

// FuzzScan feeds arbitrary tails after a good header and two records to the
// replay scanner: it never panics, and when it accepts a file, what it keeps
// (everything before the cut) scans again to the same records with nothing
// left to cut.
func FuzzScan(f *testing.F) {
	head := `{"type":"session","version":1,"id":"f","createdAt":"2026-11-29T19:47:10Z","cwd":"/"}` + "\n" +
		`{"seq":0,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}` + "\n" +
		`{"seq":1,"time":"2026-11-29T19:47:10Z","type":"a/b","data":[1]}` + "\n"
	for _, s := range []string{
		"", "\x00\x00", `{"seq":2`, `{"seq":2,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}` + "\n",
		"garbage\n", "garbage\n{\"seq\":2", "\n\n", `{"seq":3,"time":"2026-11-29T19:47:10Z","type":"a/b","data":{}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tail []byte) {
		data := append([]byte(head), tail...)
		var recs []Record
		s, err := scan("f.jsonl", data, func(r Record) error {
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			return
		}
		if s.end+s.repair.Bytes != int64(len(data)) || s.next != int64(len(recs)) || len(recs) < 2 {
			t.Fatalf("end %d + cut %d != %d, or %d records, next %d", s.end, s.repair.Bytes, len(data), len(recs), s.next)
		}
		// Only a torn write is cut: a last line without '\n', NULs after it.
		if cut := bytes.TrimRight(data[s.end:], "\x00"); bytes.IndexByte(cut, '\n') >= 0 {
			t.Fatalf("cut a complete line: %q", cut)
		}
		kept := data[:s.end]
		if kept[len(kept)-1] != '\n' {
			t.Fatalf("kept part does not end a line: %q", kept)
		}
		var again []Record
		s2, err := scan("f.jsonl", kept, func(r Record) error {
			again = append(again, r)
			return nil
		})
		if err != nil || !s2.repair.IsZero() || len(again) != len(recs) {
			t.Fatalf("rescan of the kept part: %v, %v, %d records, want %d", err, s2.repair, len(again), len(recs))
		}
		for i := range recs {
			if !sameRecord(recs[i], again[i]) {
				t.Fatalf("record %d differs on rescan", i)
			}
		}
	})
}

// FuzzDecodeHeader: decodeHeader never panics, and a header it accepts
// (a fork's forkSeq included) encodes and decodes back to itself.
func FuzzDecodeHeader(f *testing.F) {
	for _, s := range []string{
		`{"type":"session","version":1,"id":"a","createdAt":"2026-11-29T19:47:10Z","cwd":"/"}`,
		`{"type":"session","version":1,"id":"a","createdAt":"2026-11-29T19:47:10Z","cwd":"/","parentSession":"p","forkSeq":12}`,
		`{"type":"session","version":1,"id":"a","createdAt":"2026-11-29T19:47:10Z","cwd":"/","forkSeq":3}`,
		`{"type":"session","version":1,"id":"a","createdAt":"2026-11-29T19:47:10Z","cwd":"/","parentSession":"p","forkSeq":-1}`,
		`{"type":"session","version":2}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		h, err := decodeHeader(line)
		if err != nil {
			return
		}
		if h.ForkSeq < 0 || (h.ForkSeq > 0 && h.Parent == "") {
			t.Fatalf("accepted forkSeq %d with parent %q", h.ForkSeq, h.Parent)
		}
		b, err := encodeHeader(h)
		if err != nil {
			t.Fatalf("an accepted header does not encode: %v", err)
		}
		h2, err := decodeHeader(bytes.TrimSuffix(b, []byte("\n")))
		if err != nil || h2.ID != h.ID || h2.Parent != h.Parent || h2.ForkSeq != h.ForkSeq || h2.Cwd != h.Cwd || !h2.CreatedAt.Equal(h.CreatedAt) {
			t.Fatalf("round trip: %+v, %v; want %+v", h2, err, h)
		}
	})
}
