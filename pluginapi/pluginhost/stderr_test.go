package pluginhost

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestLineTail(t *testing.T) {
	t.Parallel()
	var tl LineTail
	if got := tl.Lines(); len(got) != 0 {
		t.Errorf("empty tail: %q", got)
	}
	// go-plugin writes the line, then the newline, separately.
	for i := range 25 {
		fmt.Fprintf(&tl, "line %d", i)
		tl.Write([]byte("\n"))
	}
	tl.Write([]byte("a\r\nb\nunterminated"))
	got := tl.Lines()
	var want []string
	for i := 7; i < 25; i++ {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	want = append(want, "a", "b", "unterminated")
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	long := strings.Repeat("x", 2*maxLineBytes)
	tl.Write([]byte(long + "\n"))
	if got := tl.Lines(); len(got[len(got)-1]) != maxLineBytes {
		t.Errorf("a long line kept %d bytes, want %d", len(got[len(got)-1]), maxLineBytes)
	}
}

func TestLastUsefulLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lines []string
		want  string
	}{
		{nil, ""},
		{[]string{"first", "last", "  "}, "last"},
		{[]string{"x", "panic: boom", "", "goroutine 1 [running]:", "main.main()"}, "panic: boom"},
		{[]string{"fatal error: all goroutines are asleep - deadlock!", "goroutine 1"}, "fatal error: all goroutines are asleep - deadlock!"},
		{[]string{`{"@level":"error","@message":"disk on fire","@module":"p","@timestamp":"t","call_id":"c1","n":2}`}, `disk on fire call_id="c1" n=2`},
		{[]string{`{"not":"hclog"}`}, `{"not":"hclog"}`},
	}
	for _, tt := range tests {
		if got := lastUsefulLine(tt.lines); got != tt.want {
			t.Errorf("lastUsefulLine(%q) = %q, want %q", tt.lines, got, tt.want)
		}
	}
}
