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
// events each (a short turn): Store.List. On JetStream "nats" lists from
// the index (the stream's per-subject counts and the index bucket's
// values), "nats-scan" the same sessions with the index hidden: each
// summary read from its log, 16 logs at a time, as the files are.
func BenchmarkStoreList1000(b *testing.B) {
	turn := []event.Payload{event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("list the files")},
		event.StepStart{Turn: 1, Step: 1}, event.AssistantMessage{Turn: 1, Step: 1, Text: "Here they are."},
		event.StepEnd{Turn: 1, Step: 1}, event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted}}
	listBench(b, 1000, 1, func(int) []event.Payload { return turn })
}

// BenchmarkStoreList10x10k: `harness sessions` over 10 long sessions,
// 10,000 events each (1,000 turns of a tool call and an answer), index
// against scan as in BenchmarkStoreList1000.
func BenchmarkStoreList10x10k(b *testing.B) {
	result := strings.Repeat("Reading the file to see where the lock is taken. ", 6)
	listBench(b, 10, 1000, func(n int) []event.Payload {
		return []event.Payload{event.TurnStart{Turn: n}, event.UserMessage{Content: event.Text("go on")},
			event.StepStart{Turn: n, Step: 1}, event.ToolCall{Turn: n, Step: 1, CallID: "c", Name: "read", Args: `{"path":"x.go"}`},
			event.ToolResult{Turn: n, Step: 1, CallID: "c", Content: result}, event.StepEnd{Turn: n, Step: 1},
			event.StepStart{Turn: n, Step: 2}, event.AssistantMessage{Turn: n, Step: 2, Text: "Done."},
			event.StepEnd{Turn: n, Step: 2}, event.TurnEnd{Turn: n, Reason: event.ReasonCompleted}}
	})
}

// listBench makes sessions sessions of turns turns each (turn(n) is the
// events of turn n), concurrently, on each backend, and times Store.List
// over them: jsonl, nats (the index) and nats-scan (the index hidden).
func listBench(b *testing.B, sessions, turns int, turn func(n int) []event.Payload) {
	fill := func(b *testing.B, st *session.Store) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 16)
		for range sessions {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				s, err := st.Create(session.CreateOptions{Cwd: "/w"})
				if err != nil {
					b.Error(err)
					return
				}
				defer s.Close()
				for n := 1; n <= turns; n++ {
					for _, p := range turn(n) {
						if _, err := s.Append(p); err != nil {
							b.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		if b.Failed() {
			b.FailNow()
		}
	}
	run := func(b *testing.B, st *session.Store) {
		for b.Loop() {
			list, err := st.List()
			if err != nil || len(list) != sessions {
				b.Fatalf("list: %d, %v", len(list), err)
			}
		}
	}
	b.Run("jsonl", func(b *testing.B) {
		st := &session.Store{Backend: backends(b)["jsonl"]()}
		fill(b, st)
		run(b, st)
	})
	back := backends(b)["nats"]()
	fill(b, &session.Store{Backend: back})
	b.Run("nats", func(b *testing.B) { run(b, &session.Store{Backend: back}) })
	b.Run("nats-scan", func(b *testing.B) { run(b, &session.Store{Backend: struct{ session.Backend }{back}}) })
}
