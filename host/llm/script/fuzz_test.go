package script

import (
	"bytes"
	"context"
	"testing"

	"github.com/harness-dev/harness/host/llm"
)

// FuzzLoad feeds arbitrary bytes to the script decoder: it must never panic,
// and every script it accepts must stream answers whose deltas concatenate
// to a well-formed response.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"text":"hello world"}`))
	f.Add([]byte("# c\n// c\n\n{\"reasoning\":\"r\",\"text\":\"t\",\"usage\":{\"input\":1}}\n"))
	f.Add([]byte(`{"toolCalls":[{"id":"c1","name":"todo_write","args":{"todos":[]}}],"expect":{"lastRole":"tool","toolsInclude":["x"]}}`))
	f.Add([]byte(`{"toolCalls":[{"name":"t","arguments":"{é"}],"finish":"max_tokens"}`))
	f.Add([]byte(`{"text":"x","error":"boom"}`))
	f.Add([]byte(`{"text":"x","hang":true}`))
	f.Add([]byte(`{"unknown":1}`))
	f.Add([]byte("{}\xff{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Fold each answer's chunks directly, then stream every answer with
		// a cancelled context (a live one would wait forever on hang lines).
		for _, a := range p.answers {
			var asm llm.Assembler
			for _, c := range a.chunks {
				asm.Add(c)
			}
			r := asm.Response()
			if r.Finish == "" {
				t.Fatalf("no finish in %+v", r)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for range p.Remaining() {
			for range p.Stream(ctx, llm.Request{}) {
			}
		}
	})
}
