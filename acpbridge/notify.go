package acpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// session/update notifications are encoded with the SDK's types but written
// by the bridge itself, whole lines to the same writer as the SDK's
// messages: the SDK encodes each update by a JSON round trip and writes it
// with its own syscall, which made a 10,000-event replay three times
// slower. Written before the handler returns, they precede its response
// (the SDK writes that after), as when sent through the SDK.

// updatePrefix starts every session/update line, as the SDK would write it.
const updatePrefix = `{"jsonrpc":"2.0","method":"session/update","params":`

// replayWindow is how many updates a replay encodes at once (in parallel)
// before writing them in one go.
const replayWindow = 512

// updateLine encodes one session/update notification, newline included:
// the params are what json.Marshal makes of an acp.SessionNotification,
// without the pass that re-checks the update's own (compact) encoding.
func updateLine(id string, u acp.SessionUpdate) ([]byte, error) {
	upd, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode a session update: %w", err)
	}
	sid, err := json.Marshal(id)
	if err != nil {
		return nil, fmt.Errorf("encode a session update: %w", err)
	}
	line := make([]byte, 0, len(updatePrefix)+len(sid)+len(upd)+30)
	line = append(line, updatePrefix...)
	line = append(line, `{"sessionId":`...)
	line = append(line, sid...)
	line = append(line, `,"update":`...)
	line = append(line, upd...)
	return append(line, '}', '}', '\n'), nil
}

// send writes one session update. A failed write means the client is gone;
// it is logged, and the turn goes on to its end in the log.
func (b *bridge) send(id string, u acp.SessionUpdate) {
	line, err := updateLine(id, u)
	if err == nil {
		_, err = b.out.Write(line)
	}
	if err != nil {
		b.log.Debug("session update not sent", "session", id, "error", err)
	}
}

// sendAll writes many updates of one session in order: encoded in
// parallel a window at a time, each window written at once. It stops when
// ctx is done or a write fails.
func (b *bridge) sendAll(ctx context.Context, id string, ups []acp.SessionUpdate) error {
	workers := runtime.GOMAXPROCS(0)
	lines := make([][]byte, replayWindow)
	errs := make([]error, workers)
	var buf []byte
	for lo := 0; lo < len(ups); lo += replayWindow {
		if err := ctx.Err(); err != nil {
			return err
		}
		window := ups[lo:min(lo+replayWindow, len(ups))]
		var wg sync.WaitGroup
		per := (len(window) + workers - 1) / workers
		for w := 0; w < workers && w*per < len(window); w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w * per; i < min((w+1)*per, len(window)); i++ {
					if lines[i], errs[w] = updateLine(id, window[i]); errs[w] != nil {
						return
					}
				}
			}(w)
		}
		wg.Wait()
		buf = buf[:0]
		for w := range errs {
			if errs[w] != nil {
				return errs[w]
			}
		}
		for _, l := range lines[:len(window)] {
			buf = append(buf, l...)
		}
		if _, err := b.out.Write(buf); err != nil {
			return fmt.Errorf("write session updates: %w", err)
		}
	}
	return nil
}
