package termview

import (
	"fmt"
	"io"
	"strings"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/termsafe"
)

// CompactionStarted implements agent.CompactionLive: a compaction shows as
// one line, "Compacting context…", finished by its outcome.
func (v *View) CompactionStarted(_ string, _ int64, reason string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.catchUpLocked()
	v.endLineLocked()
	io.WriteString(v.w, v.style(dim, "Compacting context ("+reason+")…"))
	v.mode = 'c'
}

// CompactionDelta implements agent.CompactionLive; the summary is not shown
// in the terminal (the log holds it).
func (v *View) CompactionDelta(string, int64, string) {}

// CompactionEnded implements agent.CompactionLive: it ends the line with the
// token counts of the logged context/compact, or with the failure.
func (v *View) CompactionEnded(_ string, id int64, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.catchUpLocked()
	if v.mode != 'c' {
		v.endLineLocked()
	}
	v.mode = 0
	if err != nil {
		fmt.Fprintf(v.w, " %s\n", v.style(red, "failed: "+termsafe.Line(strings.Join(strings.Fields(err.Error()), " "))))
		return
	}
	evs := v.src.Events()
	if id >= 0 && id < int64(len(evs)) {
		if p, derr := evs[id].Decode(); derr == nil {
			if c, ok := p.(event.Compact); ok {
				fmt.Fprintf(v.w, " %s\n", v.style(dim, fmt.Sprintf("done: ~%d → ~%d tokens", c.TokensBefore, c.TokensAfter)))
				return
			}
		}
	}
	io.WriteString(v.w, "\n")
}
