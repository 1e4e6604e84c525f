package toolbox

import "time"

// breaker counts a plugin's crashes in a sliding window. It says when the
// next start may happen (a backoff that doubles with each crash in the
// window) and when the plugin must be disabled (max crashes in the window).
// It is a plain value; its owner locks it.
type breaker struct {
	max     int           // crashes within window that trip it
	window  time.Duration // how far back crashes count
	base    time.Duration // wait after the first crash in the window
	ceiling time.Duration // the wait never exceeds it

	crashes []time.Time // within window, oldest first
}

// record notes a crash at now and reports whether the breaker tripped.
func (b *breaker) record(now time.Time) (tripped bool) {
	b.prune(now)
	b.crashes = append(b.crashes, now)
	return len(b.crashes) >= b.max
}

// readyAt returns when the next start may happen; the zero time if there
// were no crashes in the window.
func (b *breaker) readyAt(now time.Time) time.Time {
	b.prune(now)
	n := len(b.crashes)
	if n == 0 {
		return time.Time{}
	}
	d := b.base
	for i := 1; i < n && d < b.ceiling; i++ {
		d *= 2
	}
	return b.crashes[n-1].Add(min(d, b.ceiling))
}

// count returns the number of crashes in the window ending at now.
func (b *breaker) count(now time.Time) int {
	b.prune(now)
	return len(b.crashes)
}

func (b *breaker) prune(now time.Time) {
	cut := now.Add(-b.window)
	i := 0
	for i < len(b.crashes) && !b.crashes[i].After(cut) {
		i++
	}
	b.crashes = b.crashes[i:]
}
