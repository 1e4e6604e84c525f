package eventlog

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchData is a typical mid-sized payload: an assistant message of a step.
var benchData = json.RawMessage(`{"turn":12,"step":3,"text":"I'll read the file first, then update the failing test so it covers the torn tail.","toolCalls":[{"id":"call_7f3a","name":"read_file","arguments":"{\"path\":\"host/eventlog/log.go\"}"}],"usage":{"inputTokens":5210,"outputTokens":88}}`)

func BenchmarkAppend(b *testing.B) {
	l, err := Create(filepath.Join(b.TempDir(), "bench.jsonl"), testHeader("bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	r := Record{Time: t0, Type: "assistant/message", Data: benchData}
	b.SetBytes(int64(len(appendRecord(nil, r))))
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(r); err != nil {
			b.Fatal(err)
		}
		r.Seq++
		r.Time = r.Time.Add(time.Microsecond)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkOpen100k replays a log of 100,000 records, envelope only.
func BenchmarkOpen100k(b *testing.B) {
	const n = 100_000
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	l, err := Create(path, testHeader("bench"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range int64(n) {
		data := benchData
		if i%2 == 0 {
			data = json.RawMessage(fmt.Sprintf(`{"turn":%d,"step":%d}`, i/10+1, i%10))
		}
		if err := l.Append(Record{Seq: i, Time: t0.Add(time.Duration(i) * time.Millisecond), Type: "x/y", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		l, err := Open(path, func(Record) error { count++; return nil })
		if err != nil {
			b.Fatal(err)
		}
		l.Close()
		if count != n {
			b.Fatalf("%d records", count)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
}

func BenchmarkDecodeLine(b *testing.B) {
	r := Record{Seq: 123456, Time: t0, Type: "assistant/message", Data: benchData}
	line := appendRecord(nil, r)
	line = line[:len(line)-1]
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, ok := decodeFast(line); !ok {
				b.Fatal("slow")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeSlow(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
