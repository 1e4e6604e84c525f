package eventlog_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/harness-dev/harness/host/eventlog"
)

func Example() {
	dir, err := os.MkdirTemp("", "eventlog-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "demo.jsonl")
	now := time.Date(2026, 11, 29, 19, 47, 10, 0, time.UTC)

	l, err := eventlog.Create(path, eventlog.Header{ID: "demo", CreatedAt: now, Cwd: "/src"})
	if err != nil {
		log.Fatal(err)
	}
	for i, text := range []string{"hello", "world"} {
		data, _ := json.Marshal(map[string]string{"text": text})
		rec := eventlog.Record{Seq: int64(i), Time: now, Type: "note/add", Data: data}
		if err := l.Append(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := l.Close(); err != nil { // Close syncs
		log.Fatal(err)
	}

	l, err = eventlog.Open(path, func(r eventlog.Record) error {
		fmt.Println(r.Seq, r.Type, string(r.Data))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	fmt.Println("session", l.Header().ID, "next seq", l.Next())
	// Output:
	// 0 note/add {"text":"hello"}
	// 1 note/add {"text":"world"}
	// session demo next seq 2
}
