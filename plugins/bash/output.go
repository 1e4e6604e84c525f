//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// What the model sees of a command's output, and what the plugin keeps.
const (
	// maxChars bounds a result's text, markers included, in characters
	// (Unicode code points).
	maxChars = 30_000
	// headChars and tailChars are the characters kept from the start and
	// from the end of an output: the first third and the last two thirds.
	headChars = maxChars / 3
	tailChars = maxChars - headChars
	// keepRaw is how many raw bytes are kept in memory before the spill
	// file opens. An output needs cutting only past maxChars characters,
	// hence past maxChars bytes, so a cut output always has its bytes in
	// memory or in the spill file.
	keepRaw = 64 << 10
	// maxOutputBytes stops a command whose output passes it (the spill
	// file keeps its first maxOutputBytes bytes).
	maxOutputBytes = 1 << 30
	// liveChars bounds one progress chunk's text.
	liveChars = 8 << 10
	// liveEvery spaces progress chunks: at most 10 a second.
	liveEvery = 100 * time.Millisecond
)

// output collects a command's merged stdout and stderr as they arrive: the
// raw bytes go to a spill file (opened once they pass keepRaw bytes); the
// text, made safe by a sanitizer, is kept bounded — its first headChars and
// last tailChars characters — with a count of what was cut between them.
// Memory stays under half a megabyte whatever the command prints. For background
// tasks, take returns and forgets what arrived since the last take.
type output struct {
	spillDir, spillName string // where the spill file goes, if needed

	mu      sync.Mutex
	san     sanitizer
	scratch []rune
	head    []rune // the first headChars characters (since the last take)
	ring    []rune // the last tailChars characters after head, circular
	ringAt  int    // index of the oldest character in ring
	ringLen int
	cut     int64  // characters dropped between head and ring
	raw     int64  // bytes received in total
	mem     []byte // the raw bytes, while no spill file is open
	spill   *os.File
	spillW  *bufio.Writer
	spillN  int64 // bytes written to the spill file
	spillE  error // why the spill file is unavailable
	quota   *spillQuota
	capped  bool // the session's quota cut the spill file short
	closed  bool
	over    chan struct{} // closed once raw passes maxOutputBytes

	live        bool // collect text for progress
	liveText    []rune
	liveSkipped int64
}

// newOutput collects an output whose spill file, if it needs one, is
// spillDir/spillName-<random>.log; dirErr says why there is no spill
// folder. live collects text for takeLive.
func newOutput(spillDir, spillName string, dirErr error, live bool, quota *spillQuota) *output {
	o := &output{
		quota:     quota,
		spillDir:  spillDir,
		spillName: spillName,
		head:      make([]rune, 0, headChars),
		over:      make(chan struct{}),
		live:      live,
	}
	if dirErr != nil {
		o.spillE = fmt.Errorf("no folder for it: %w", dirErr)
	}
	return o
}

// overflowed is closed once the output passed maxOutputBytes.
func (o *output) overflowed() <-chan struct{} { return o.over }

// Write takes a chunk of the command's output. It never fails: a spill
// file that cannot be written is reported in the text instead.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	before := o.raw
	o.raw += int64(len(p))
	if before <= maxOutputBytes && o.raw > maxOutputBytes {
		close(o.over)
	}
	o.saveRaw(p)
	o.scratch = o.san.appendRunes(o.scratch[:0], p)
	o.push(o.scratch)
	return len(p), nil
}

// close ends the output: a UTF-8 sequence cut short becomes U+FFFD and
// the spill file is flushed and closed.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.closed = true
	o.push(o.san.flush(o.scratch[:0]))
	o.closeSpill()
}

// closeSpill flushes and closes the spill file, if there is one.
func (o *output) closeSpill() {
	if o.spill == nil {
		return
	}
	if err := o.spillW.Flush(); err != nil && o.spillE == nil {
		o.spillE = fmt.Errorf("write %s: %w", o.spill.Name(), err)
	}
	if err := o.spill.Close(); err != nil && o.spillE == nil {
		o.spillE = fmt.Errorf("close %s: %w", o.spill.Name(), err)
	}
}

// saveRaw keeps p in memory or appends it to the spill file, which it
// opens when the output grows past keepRaw.
func (o *output) saveRaw(p []byte) {
	if o.spill == nil && o.spillE == nil {
		if len(o.mem)+len(p) <= keepRaw {
			o.mem = append(o.mem, p...)
			return
		}
		o.openSpill()
	}
	if o.spill == nil || o.spillE != nil {
		return
	}
	if room := maxOutputBytes - o.spillN; int64(len(p)) > room {
		p = p[:max(room, 0)]
	}
	p = o.granted(p)
	n, err := o.spillW.Write(p)
	o.spillN += int64(n)
	if err != nil {
		o.spillE = fmt.Errorf("write %s: %w", o.spill.Name(), err)
	}
}

// openSpill creates the spill file (0600, in a 0700 folder) and writes the
// bytes kept in memory to it.
func (o *output) openSpill() {
	mem := o.mem
	o.mem = nil
	if o.quota != nil && o.quota.full() {
		o.capped = true
		o.spillE = fmt.Errorf("this session's spill files reached their cap of %s", sizeName(o.quota.cap))
		return
	}
	if err := mkdirPrivate(o.spillDir); err != nil {
		o.spillE = fmt.Errorf("create spill folder: %w", err)
		return
	}
	f, err := os.CreateTemp(o.spillDir, o.spillName+"-*.log") // 0600, O_EXCL
	if err != nil {
		o.spillE = fmt.Errorf("create spill file: %w", err)
		return
	}
	o.spill, o.spillW = f, bufio.NewWriterSize(f, 64<<10)
	if o.quota != nil {
		o.quota.add(f.Name())
	}
	n, err := o.spillW.Write(o.granted(mem))
	o.spillN = int64(n)
	if err != nil {
		o.spillE = fmt.Errorf("write %s: %w", f.Name(), err)
	}
}

// granted is what of p the session's spill quota lets the spill file
// take.
func (o *output) granted(p []byte) []byte {
	if o.quota == nil || len(p) == 0 {
		return p
	}
	n := o.quota.grant(int64(len(p)))
	if n < int64(len(p)) {
		o.capped = true
	}
	return p[:n]
}

// push appends sanitized characters to the kept text and the live text.
func (o *output) push(rs []rune) {
	if len(rs) == 0 {
		return
	}
	if o.live {
		if room := liveChars - len(o.liveText); room >= len(rs) {
			o.liveText = append(o.liveText, rs...)
		} else {
			room = max(room, 0)
			o.liveText = append(o.liveText, rs[:room]...)
			o.liveSkipped += int64(len(rs) - room)
		}
	}
	if n := min(headChars-len(o.head), len(rs)); n > 0 {
		o.head = append(o.head, rs[:n]...)
		rs = rs[n:]
	}
	if len(rs) == 0 {
		return
	}
	if o.ring == nil {
		o.ring = make([]rune, tailChars)
	}
	if len(rs) >= tailChars {
		o.cut += int64(o.ringLen) + int64(len(rs)-tailChars)
		copy(o.ring, rs[len(rs)-tailChars:])
		o.ringAt, o.ringLen = 0, tailChars
		return
	}
	if over := o.ringLen + len(rs) - tailChars; over > 0 {
		o.cut += int64(over)
		o.ringAt = (o.ringAt + over) % tailChars
		o.ringLen -= over
	}
	end := (o.ringAt + o.ringLen) % tailChars
	n := copy(o.ring[end:], rs)
	copy(o.ring, rs[n:])
	o.ringLen += len(rs)
}

// takeLive returns and forgets the text that arrived since the last
// takeLive, at most liveChars characters and a note of what was skipped.
func (o *output) takeLive() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.liveText) == 0 && o.liveSkipped == 0 {
		return ""
	}
	s := string(o.liveText)
	if o.liveSkipped > 0 {
		s += fmt.Sprintf("\n[… %s characters not shown live]\n", commas(o.liveSkipped))
	}
	o.liveText, o.liveSkipped = o.liveText[:0], 0
	return s
}

// text renders the whole output for the model: lead, the output (empty
// when there was none), a line break and trailer (the status markers), at
// most maxChars characters in all. A cut output names the spill file,
// which it then keeps; an uncut one has its spill file removed. Call it
// after close.
func (o *output) text(lead, empty, trailer string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, cut := o.render(lead, empty, trailer)
	if !cut && o.spill != nil && o.spillE == nil {
		_ = os.Remove(o.spill.Name())
		if o.quota != nil {
			o.quota.release(o.spill.Name(), o.spillN)
		}
	}
	return s
}

// tail is the last of the output kept in memory (at most its last
// two thirds), to look for what a refusal prints.
func (o *output) tail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	tail := make([]rune, 0, o.ringLen)
	tail = append(tail, o.ring[o.ringAt:min(o.ringAt+o.ringLen, len(o.ring))]...)
	if wrap := o.ringAt + o.ringLen - len(o.ring); wrap > 0 {
		tail = append(tail, o.ring[:wrap]...)
	}
	return string(o.head) + string(tail)
}

// take renders what arrived since the last take, as text does, and
// forgets it. The spill file, if any, is kept: it holds the whole output.
func (o *output) take(empty, trailer string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.spill != nil && !o.closed && o.spillE == nil {
		// The model may read the file next: give it all there is.
		if err := o.spillW.Flush(); err != nil {
			o.spillE = fmt.Errorf("write %s: %w", o.spill.Name(), err)
		}
	}
	s, _ := o.render("", empty, trailer)
	o.head, o.ringAt, o.ringLen, o.cut = o.head[:0], 0, 0, 0
	if o.closed { // nothing more will come: free the buffers
		o.head, o.ring, o.scratch, o.mem = nil, nil, nil, nil
	}
	return s
}

// render lays out lead, head, a cut marker, tail and trailer so that the
// whole fits in maxChars characters: the output keeps its first third and
// its last two thirds of the room left. It reports whether it cut.
func (o *output) render(lead, empty, trailer string) (string, bool) {
	total := int64(len(o.head)) + o.cut + int64(o.ringLen)
	fixed := int64(utf8.RuneCountInString(lead) + 1 + utf8.RuneCountInString(trailer))
	join := func(body string) string {
		if trailer != "" && body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		return lead + body + trailer
	}
	if total == 0 {
		return join(empty), false
	}
	tail := make([]rune, 0, o.ringLen)
	tail = append(tail, o.ring[o.ringAt:min(o.ringAt+o.ringLen, len(o.ring))]...)
	if wrap := o.ringAt + o.ringLen - len(o.ring); wrap > 0 {
		tail = append(tail, o.ring[:wrap]...)
	}
	if o.cut == 0 && total+fixed <= maxChars {
		return join(string(o.head) + string(tail)), false
	}
	where := o.spillPath()
	// The marker's count is at most total, so a marker built with total
	// is at least as long as the final one.
	room := max(maxChars-fixed-int64(utf8.RuneCountInString(cutMarker(total, where))), 0)
	keepHead := min(int64(len(o.head)), room/3)
	keepTail := min(int64(len(tail)), room-keepHead)
	cut := total - keepHead - keepTail
	return join(string(o.head[:keepHead]) + cutMarker(cut, where) + string(tail[int64(len(tail))-keepTail:])), true
}

// spillPath makes sure the spill file exists (the output may still be in
// memory) and describes where the full output is.
func (o *output) spillPath() string {
	if o.spill == nil && o.spillE == nil {
		o.openSpill()
		if o.closed {
			o.closeSpill()
		}
	}
	if o.spillE != nil {
		return "unavailable (" + o.spillE.Error() + ")"
	}
	abs, err := filepath.Abs(o.spill.Name())
	if err != nil {
		abs = o.spill.Name()
	}
	if o.raw > o.spillN {
		note := ""
		if o.capped {
			note = fmt.Sprintf(" (this session's spill files reached their cap of %s)", sizeName(o.quota.cap))
		}
		return fmt.Sprintf("the first %s of %s bytes in %s%s", commas(o.spillN), commas(o.raw), abs, note)
	}
	return fmt.Sprintf("%s (%s bytes)", abs, commas(o.raw))
}

// spillQuota caps the total size of a session's spill files and keeps
// their names, so that they can be removed when the session ends.
type spillQuota struct {
	cap int64

	mu    sync.Mutex
	used  int64
	files map[string]struct{}
}

func newSpillQuota(limit int64) *spillQuota {
	return &spillQuota{cap: limit, files: map[string]struct{}{}}
}

// grant takes up to n bytes of the quota and says how many it took.
func (q *spillQuota) grant(n int64) int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	n = min(n, max(q.cap-q.used, 0))
	q.used += n
	return n
}

// full reports whether the quota is used up.
func (q *spillQuota) full() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.used >= q.cap
}

// add records a spill file.
func (q *spillQuota) add(path string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.files[path] = struct{}{}
}

// release gives back the n bytes of a spill file that was removed.
func (q *spillQuota) release(path string, n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.files[path]; ok {
		delete(q.files, path)
		q.used = max(q.used-n, 0)
	}
}

// removeAll removes every spill file of the session.
func (q *spillQuota) removeAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for path := range q.files {
		_ = os.Remove(path)
	}
	clear(q.files)
}

// sizeName writes a size in MiB (or bytes below one).
func sizeName(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return commas(n) + " bytes"
}

// cutMarker is the line standing for cut characters.
func cutMarker(cut int64, where string) string {
	return fmt.Sprintf("\n[… %s characters cut; full output: %s]\n", commas(cut), where)
}

// commas writes n with thousands separators: 1234567 → 1,234,567.
func commas(n int64) string {
	if n < 0 {
		return "-" + commas(-n)
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// sanitizer turns a byte stream into text that is safe to show and to
// send (valid UTF-8, no terminal control), across chunk boundaries:
//
//   - invalid UTF-8 becomes U+FFFD, one per bad byte or cut sequence; the
//     C1 controls U+0080–U+009F too;
//   - ANSI escape sequences (CSI such as colours, OSC such as titles and
//     links, and two-byte ones) are dropped;
//   - "\r\n" becomes "\n", a lone "\r" (progress bars) becomes "\n";
//   - other control bytes but "\t" and "\n" become their Unicode control
//     pictures (NUL → ␀, BEL → ␇, DEL → ␡).
type sanitizer struct {
	seq  [utf8.UTFMax]byte // a UTF-8 sequence in progress
	seqN int
	need int
	esc  escState
	escN int  // bytes of the escape sequence so far
	cr   bool // the last byte was "\r"
}

type escState uint8

const (
	escNone         escState = iota
	escStart                 // after ESC
	escIntermediate          // ESC, then 0x20–0x2F
	escCSI                   // ESC [
	escString                // ESC ] (OSC), P (DCS), X, ^ or _: up to BEL or ESC \
	escStringEsc             // ESC inside a string
)

// maxEscape bounds an escape sequence; a longer one is cut off and its
// rest shown.
const maxEscape = 4096

// appendRunes appends the text of p to dst.
func (s *sanitizer) appendRunes(dst []rune, p []byte) []rune {
	for i := 0; i < len(p); {
		b := p[i]
		switch {
		case s.esc != escNone:
			if s.escape(b) {
				i++
			}
			continue
		case s.seqN > 0:
			if b&0xC0 == 0x80 {
				s.seq[s.seqN] = b
				s.seqN++
				i++
				if s.seqN == s.need {
					dst = append(dst, decode(s.seq[:s.seqN]))
					s.seqN = 0
				}
				continue
			}
			dst = append(dst, utf8.RuneError) // cut short; b starts afresh
			s.seqN = 0
			continue
		}
		i++
		if b >= 0x20 && b < 0x7F {
			dst = append(dst, rune(b))
			s.cr = false
			continue
		}
		cr := s.cr
		s.cr = false
		switch {
		case b == '\n':
			if !cr {
				dst = append(dst, '\n')
			}
		case b == '\r':
			dst = append(dst, '\n')
			s.cr = true
		case b == '\t':
			dst = append(dst, '\t')
		case b == 0x1B:
			s.esc, s.escN = escStart, 0
		case b < 0x20:
			dst = append(dst, 0x2400+rune(b))
		case b == 0x7F:
			dst = append(dst, '\u2421')
		default:
			if n := seqLen(b); n > 0 {
				s.seq[0], s.seqN, s.need = b, 1, n
			} else {
				dst = append(dst, utf8.RuneError)
			}
		}
	}
	return dst
}

// flush ends the stream: a sequence cut short becomes U+FFFD.
func (s *sanitizer) flush(dst []rune) []rune {
	if s.seqN > 0 {
		dst = append(dst, utf8.RuneError)
		s.seqN = 0
	}
	s.esc = escNone
	return dst
}

// escape consumes b as part of an escape sequence. It returns false when
// b ends the sequence without belonging to it; b is then read afresh.
func (s *sanitizer) escape(b byte) bool {
	s.escN++
	if s.escN > maxEscape {
		s.esc = escNone
		return false
	}
	switch s.esc {
	case escStart:
		switch {
		case b == '[':
			s.esc = escCSI
		case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
			s.esc = escString
		case b >= 0x20 && b <= 0x2F:
			s.esc = escIntermediate
		case b >= 0x30 && b <= 0x7E:
			s.esc = escNone
		default:
			s.esc = escNone
			return false
		}
	case escIntermediate:
		switch {
		case b >= 0x20 && b <= 0x2F:
		case b >= 0x30 && b <= 0x7E:
			s.esc = escNone
		default:
			s.esc = escNone
			return false
		}
	case escCSI:
		switch {
		case b >= 0x20 && b <= 0x3F:
		case b >= 0x40 && b <= 0x7E:
			s.esc = escNone
		default:
			s.esc = escNone
			return false
		}
	case escString:
		switch b {
		case 0x07:
			s.esc = escNone
		case 0x1B:
			s.esc = escStringEsc
		}
	case escStringEsc:
		s.esc = escNone
		return b == '\\'
	}
	return true
}

// seqLen is the length of the UTF-8 sequence lead byte b starts, 0 if b
// cannot start one.
func seqLen(b byte) int {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 2
	case b >= 0xE0 && b <= 0xEF:
		return 3
	case b >= 0xF0 && b <= 0xF4:
		return 4
	}
	return 0
}

// decode decodes one complete sequence: U+FFFD if it is not valid UTF-8
// (overlong, a surrogate, past U+10FFFF) or a C1 control.
func decode(seq []byte) rune {
	r, n := utf8.DecodeRune(seq)
	if n != len(seq) || r >= 0x80 && r <= 0x9F {
		return utf8.RuneError
	}
	return r
}

// streamLive sends the output's new text to progress while the command
// runs, at most once every liveEvery, until the returned stop is called
// (stop returns once nothing more will be sent). What is left at the end
// is not sent: the result carries it.
func streamLive(out *output, progress func(string)) (stop func()) {
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(liveEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if s := out.takeLive(); s != "" {
					progress(s)
				}
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-stopped
	}
}
