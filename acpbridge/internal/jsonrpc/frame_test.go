package jsonrpc

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 200<<10)
	input := "short\n" + long + "\n\nlast"
	r := bufio.NewReaderSize(strings.NewReader(input), 16)
	type line struct {
		kept string
		size int
		over bool
	}
	var got []line
	for {
		var buf []byte
		size, over, err := readLine(r, &buf, 100<<10)
		got = append(got, line{string(buf), size, over})
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []line{{"short", 5, false}, {long[:idPrefixBytes], len(long), true}, {"", 0, false}, {"last", 4, false}}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: kept %d bytes, size %d, over %v; want %d, %d, %v", i,
				len(got[i].kept), got[i].size, got[i].over, len(want[i].kept), want[i].size, want[i].over)
		}
	}
}

func TestIDOf(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`{"jsonrpc":"2.0","id":12,"method":"x","params":{"a":`:  `12`,
		`{"jsonrpc":"2.0","id":"abc","params":{"a":"b"}`:        `"abc"`,
		`{"params":{"nested":{"id":3}},"id":-4}`:                `-4`,
		`{"jsonrpc":"2.0","method":"x","params":{"text":"xxxxx`: ``,
		`{"id":{"no":1}}`: ``,
		`{"id":null}`:     ``,
		`[1,2`:            ``,
		``:                ``,
	}
	for in, want := range tests {
		if got := string(idOf([]byte(in))); got != want {
			t.Errorf("idOf(%s) = %q, want %q", in, got, want)
		}
	}
}
