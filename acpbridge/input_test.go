package acpbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// TestGuardPasses checks that well-formed messages reach the SDK intact,
// one per line, and blank lines are dropped.
func TestGuardPasses(t *testing.T) {
	t.Parallel()
	in := " {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"} \r\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"
	pr, pw := io.Pipe()
	var out bytes.Buffer
	g := &guard{in: strings.NewReader(in), sdk: pw, out: &out, max: 1 << 20, warn: func(string, ...any) {}}
	go func() { pw.CloseWithError(g.copy()) }()
	got, err := io.ReadAll(pr)
	if err != io.EOF && err != nil {
		t.Fatal(err)
	}
	want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"
	if string(got) != want || out.Len() != 0 {
		t.Errorf("passed %q, answered %q", got, out.String())
	}
}

// FuzzGuard feeds arbitrary input to the guard: it must never panic, pass
// only JSON objects with a method or an id, one per line, and answer only
// valid JSON-RPC error responses.
func FuzzGuard(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n"))
	f.Add([]byte("not json\n[1]\n42\n{}\n"))
	f.Add([]byte(`{"id":"x","method":"m","params":{"t":"` + strings.Repeat("z", 300) + "\"}}\n"))
	f.Add([]byte("{\"id\":1}\r\n\n\n{\"method\":\"m\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr, pw := io.Pipe()
		var out bytes.Buffer
		g := &guard{in: bytes.NewReader(data), sdk: pw, out: &out, max: 256, warn: func(string, ...any) {}}
		go func() { pw.CloseWithError(g.copy()) }()
		passed, _ := io.ReadAll(pr)
		for _, line := range bytes.Split(bytes.TrimSuffix(passed, []byte("\n")), []byte("\n")) {
			if len(passed) == 0 {
				break
			}
			var env envelope
			if err := json.Unmarshal(line, &env); err != nil || line[0] != '{' || (env.Method == nil && len(env.ID) == 0) {
				t.Fatalf("passed %q", line)
			}
		}
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" || len(m.ID) == 0 {
				t.Fatalf("answered %q", sc.Text())
			}
		}
	})
}
