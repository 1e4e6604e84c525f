package acpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/slogtest"
	"time"

	"github.com/hashicorp/go-hclog"
)

// TestSlogHandlerConforms runs testing/slogtest against the handler over a
// real hclog JSON logger, one subtest per case. The logger is built with
// DisableTime and the handler with recordTime, the one configuration in
// which a line's time is the record's (see slogHandler); everything else is
// the code path production runs.
func TestSlogHandlerConforms(t *testing.T) {
	var mu sync.Mutex
	bufs := map[*testing.T]*bytes.Buffer{}
	newHandler := func(t *testing.T) slog.Handler {
		buf := &bytes.Buffer{}
		mu.Lock()
		bufs[t] = buf
		mu.Unlock()
		log := hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: buf, JSONFormat: true, DisableTime: true})
		return newSlogHandler(log, true)
	}
	result := func(t *testing.T) map[string]any {
		mu.Lock()
		buf := bufs[t]
		mu.Unlock()
		m, err := parseHclogLine(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	slogtest.Run(t, newHandler, result)
}

// parseHclogLine reads one hclog JSON line back into the shape slogtest
// expects: @message, @level and @timestamp become msg, level and time,
// @module is dropped, and dotted keys become nested maps.
func parseHclogLine(line []byte) (map[string]any, error) {
	var flat map[string]any
	if err := json.Unmarshal(line, &flat); err != nil {
		return nil, fmt.Errorf("parse log line %q: %w", line, err)
	}
	out := map[string]any{}
	for k, v := range flat {
		switch k {
		case "@message":
			k = slog.MessageKey
		case "@level":
			k = slog.LevelKey
		case "@timestamp":
			k = slog.TimeKey
		case "@module":
			continue
		}
		m := out
		path := strings.Split(k, ".")
		for _, g := range path[:len(path)-1] {
			sub, ok := m[g].(map[string]any)
			if !ok {
				if _, taken := m[g]; taken {
					return nil, fmt.Errorf("key %q: %q is both a value and a group", k, g)
				}
				sub = map[string]any{}
				m[g] = sub
			}
			m = sub
		}
		last := path[len(path)-1]
		if _, taken := m[last]; taken {
			return nil, fmt.Errorf("key %q: %q is both a value and a group", k, last)
		}
		m[last] = v
	}
	return out, nil
}

// TestSlogHandlerProductionTime: the logger the bridge gets stamps its own
// lines, and the handler adds no second time — a line looks as it did
// before slogtest: one @timestamp, no "time".
func TestSlogHandlerProductionTime(t *testing.T) {
	var buf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: &buf, JSONFormat: true})
	sl, stop := newSlogger(log)
	sl.Info("hello", slog.Group("req", slog.Int("id", 7)), slog.String("k", "v"))
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("parse %q: %v", buf.Bytes(), err)
	}
	if _, ok := m["@timestamp"]; !ok {
		t.Errorf("line %s has no @timestamp", buf.Bytes())
	}
	if _, ok := m["time"]; ok {
		t.Errorf("line %s has a second time", buf.Bytes())
	}
	if m["req.id"] != float64(7) || m["k"] != "v" || m["@message"] != "hello" {
		t.Errorf("line %s: want @message hello, req.id 7, k v", buf.Bytes())
	}
	// The gate: nothing reaches the logger once stopped.
	stop()
	buf.Reset()
	sl.Error("after")
	if buf.Len() != 0 {
		t.Errorf("logged after stop: %s", buf.Bytes())
	}
}

// TestSlogHandlerZeroTimeWithStampingLogger documents the limit: a logger
// that stamps its lines stamps a zero-time record's line too.
func TestSlogHandlerZeroTimeWithStampingLogger(t *testing.T) {
	var buf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: &buf, JSONFormat: true})
	h := newSlogHandler(log, false)
	if err := h.Handle(context.Background(), slog.NewRecord(time.Time{}, slog.LevelInfo, "m", 0)); err != nil {
		t.Fatal(err)
	}
	m, err := parseHclogLine(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m[slog.TimeKey]; !ok {
		t.Errorf("line %s: a stamping logger stamped no time", buf.Bytes())
	}
}
