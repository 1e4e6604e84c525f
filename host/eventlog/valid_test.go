package eventlog

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		``, ` `, `{}`, ` {} `, `[]`, `[ ]`, `{ }`, `{"a":1}`, `{"a" : [1, 2 ,{"b":null}] }`, `"x"`, `"\u00e9\n\"\\\/\b\f\r\t"`,
		`"\u00g0"`, `"\x"`, "\"a\tb\"", "\"\x7f\xff\"", `"unterminated`, `"\`, `"\u12"`,
		`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-1.5e10`, `--1`, `+1`,
		`true`, `false`, `null`, `tru`, `nul`, `nulll`, `True`,
		`{"a"}`, `{"a":}`, `{,}`, `{"a":1,}`, `[1,]`, `[,1]`, `{"a":1 "b":2}`, `[1 2]`, `{1:2}`, `{"a":1]`, `[1}`,
		`{}{}`, `{} x`, `[[[]]]`, `[[[]]`, `]`, `}`, `{"a":{"b":{"c":[{"d":[]}]}}}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.40q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

// FuzzValid checks that validJSON agrees with json.Valid on arbitrary bytes.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,true,false,null,"x\u00e9\n"]}`, `[{}]`, `"\ud800"`, `01`, `{"a":1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	b.Run("validJSON", func(b *testing.B) {
		b.SetBytes(int64(len(benchData)))
		for b.Loop() {
			validJSON(benchData)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(benchData)))
		for b.Loop() {
			json.Valid(benchData)
		}
	})
}
