package event

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestPropose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  Type
		data string
		want string // the data kept, or the error
		err  error
	}{
		{name: "foreign", typ: "plugin/note", data: `{"a":1}`, want: `{"a":1}`},
		{name: "compacted", typ: "plugin/note", data: "{\n  \"a\": 1\n}", want: `{"a":1}`},
		{name: "host type kept as given", typ: TypeTodoWrite, data: `{"todos": []}`, want: `{"todos": []}`},
		{name: "not JSON", typ: "plugin/note", data: `{"a":`, err: ErrNotJSON},
		{name: "empty", typ: "plugin/note", data: ``, err: ErrNotJSON},
		{name: "array", typ: "plugin/note", data: `[1]`, err: ErrNotObject},
		{name: "host type, not an object", typ: TypeStepEnd, data: `null`, err: ErrNotObject},
		{name: "no family", typ: "note", data: `{}`, want: "not a valid event type"},
		{name: "space", typ: "plugin/a note", data: `{}`, want: "not a valid event type"},
		{name: "too big", typ: "plugin/note", data: `{"a":"` + strings.Repeat("x", MaxProposedBytes) + `"}`, want: "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Propose(tt.typ, json.RawMessage(tt.data))
			switch {
			case tt.err != nil:
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
			case strings.HasPrefix(tt.want, "{"):
				if err != nil || string(p.Data()) != tt.want || p.Type() != tt.typ {
					t.Fatalf("Propose = %s %s, %v; want %s", p.Type(), p.Data(), err, tt.want)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want one containing %q", err, tt.want)
				}
			}
		})
	}
}

// FuzzPropose: whatever Propose accepts is one line of a JSON object that
// CheckForeign accepts for a foreign type.
func FuzzPropose(f *testing.F) {
	f.Add("plugin/note", []byte(`{"a":1}`))
	f.Add("plugin/note", []byte("{\n}"))
	f.Add("x", []byte(`[1]`))
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		p, err := Propose(Type(typ), data)
		if err != nil {
			return
		}
		d := p.Data()
		if !json.Valid(d) || strings.Contains(string(d), "\n") || !isObject(d) {
			t.Fatalf("Propose accepted %q as %q", data, d)
		}
		if !IsKnown(p.Type()) && CheckForeign(p.Type(), d) != nil {
			t.Fatalf("Propose accepted a foreign event CheckForeign refuses: %q %q", typ, d)
		}
	})
}
