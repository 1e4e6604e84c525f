package acpbridge

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/harness-dev/harness/acpbridge/internal/jsonrpc"
)

// replayWindow is how many updates a replay encodes at once (in parallel)
// before writing them in one go.
const replayWindow = 512

// updateLine encodes one session/update notification of session id,
// newline included, with encoding/json and the SDK's types.
func updateLine(id string, u acp.SessionUpdate) (jsonrpc.Encoded, error) {
	line, err := jsonrpc.EncodeNotification(acp.ClientMethodSessionUpdate, acp.SessionNotification{SessionId: acp.SessionId(id), Update: u})
	if err != nil {
		return nil, fmt.Errorf("encode a session update: %w", err)
	}
	return line, nil
}

// send writes one session update. A failed write means the client is gone;
// it is logged, and the turn goes on to its end in the log.
func (b *bridge) send(id string, u acp.SessionUpdate) {
	line, err := updateLine(id, u)
	if err == nil {
		err = b.conn.Send(line)
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
	lines := make([]jsonrpc.Encoded, replayWindow)
	errs := make([]error, workers)
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
		for w := range errs {
			if errs[w] != nil {
				return errs[w]
			}
		}
		if err := b.conn.Send(lines[:len(window)]...); err != nil {
			return fmt.Errorf("write session updates: %w", err)
		}
	}
	return nil
}
