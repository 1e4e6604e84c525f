package natsstore_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
)

// The store benchmarks run each figure on both backends, side by side:
// jsonl (the default, files in a folder) and nats (JetStream, through an
// embedded server in this process on 127.0.0.1, file storage, every write
// synced before it is acknowledged). A team's server on another machine
// adds a network round trip to each acknowledged append.

// backends returns a fresh backend of each kind.
func backends(b *testing.B) map[string]func() session.Backend {
	return map[string]func() session.Backend{
		"jsonl": func() session.Backend { return session.JSONL{Dir: b.TempDir()} },
		"nats": func() session.Backend {
			srv := natstest.Start(b, natstest.Config{NoSync: true})
			return connect(b, srv, natsstore.Options{})
		},
	}
}

// benchRecord is a tool result of a few hundred bytes, a typical event.
func benchRecord(seq int64) eventlog.Record {
	data, _ := json.Marshal(event.ToolResult{Turn: 1, Step: int(seq), CallID: fmt.Sprint("c", seq),
		Content: strings.Repeat("Reading the file to see where the lock is taken. ", 6)})
	return eventlog.Record{Seq: seq, Time: time.Now().UTC(), Type: string(event.TypeToolResult), Data: data}
}

// BenchmarkStoreAppend1000: 1,000 sessions, each held by its own writer,
// appending at once; events/s is over all of them.
func BenchmarkStoreAppend1000(b *testing.B) {
	for _, name := range []string{"jsonl", "nats"} {
		b.Run(name, func(b *testing.B) {
			back := backends(b)[name]()
			const sessions = 1000
			logs := make([]session.Log, sessions)
			for i := range logs {
				l, err := back.Create(eventlog.Header{ID: fmt.Sprintf("s%04d", i), CreatedAt: time.Now().UTC(), Cwd: "/w"})
				if err != nil {
					b.Fatal(err)
				}
				logs[i] = l
			}
			defer func() {
				for _, l := range logs {
					l.Close()
				}
			}()
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ResetTimer()
			var wg sync.WaitGroup
			for _, l := range logs {
				wg.Go(func() {
					for seq := int64(0); left.Add(-1) >= 0; seq++ {
						if err := l.Append(benchRecord(seq)); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkStoreReplay100k: open (taking the hold) and read a
// 100,000-event session.
func BenchmarkStoreReplay100k(b *testing.B) {
	for _, name := range []string{"jsonl", "nats"} {
		b.Run(name, func(b *testing.B) {
			back := backends(b)[name]()
			l, err := back.Create(eventlog.Header{ID: "big", CreatedAt: time.Now().UTC(), Cwd: "/w"})
			if err != nil {
				b.Fatal(err)
			}
			const n = 100_000
			var wg sync.WaitGroup
			for seq := range int64(n) {
				if err := l.Append(benchRecord(seq)); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
			l.Close()
			b.ResetTimer()
			for b.Loop() {
				count := 0
				l, err := back.Open("big", func(eventlog.Record) error { count++; return nil })
				if err != nil || count != n {
					b.Fatalf("open: %d records, %v", count, err)
				}
				l.Close()
			}
		})
	}
}

// BenchmarkStoreList1000: `harness sessions` over 1,000 sessions of 12
// events each (a short turn): Store.List, the ids and each one's summary.
func BenchmarkStoreList1000(b *testing.B) {
	for _, name := range []string{"jsonl", "nats"} {
		b.Run(name, func(b *testing.B) {
			st := &session.Store{Backend: backends(b)[name]()}
			for range 1000 {
				s, err := st.Create(session.CreateOptions{Cwd: "/w"})
				if err != nil {
					b.Fatal(err)
				}
				for _, p := range []event.Payload{event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("list the files")},
					event.StepStart{Turn: 1, Step: 1}, event.AssistantMessage{Turn: 1, Step: 1, Text: "Here they are."},
					event.StepEnd{Turn: 1, Step: 1}, event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted}} {
					if _, err := s.Append(p); err != nil {
						b.Fatal(err)
					}
				}
				s.Close()
			}
			b.ResetTimer()
			for b.Loop() {
				list, err := st.List()
				if err != nil || len(list) != 1000 {
					b.Fatalf("list: %d, %v", len(list), err)
				}
			}
		})
	}
}
