package keeper

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseRequest: any arguments are refused or read as a request naming
// a binary, whose path and argv are the arguments as they are (any
// bytes); its JSON reads back the same.
func FuzzParseRequest(f *testing.F) {
	f.Add(`{"hostPid":1}`, "/bin/x", "x")
	f.Add(`{"hostPid":1}`, "", "x")
	f.Add(`[]`, "/bin/x", "x")
	f.Add(`{"hostPid":"1"}`, "/bin/x", "x")
	f.Add(`{"hostPid":7}`, "/b\xffad/\xc3", "-\x00")
	f.Add(`{"hostPid":1,"confine":{"program":"/bin/x","read":["/a"],"write":["/b"],"hide":["/c"],"exec":true},"temp":true}`, "/bin/x", "x")
	f.Add(`{"hostPid":1,"confine":{"program":"x"}}`, "/bin/x", "x")
	f.Fuzz(func(t *testing.T, js, path, arg0 string) {
		req, err := parseRequest([]string{js, path, arg0})
		if err != nil {
			return
		}
		if req.Path != path || len(req.Args) != 1 || req.Args[0] != arg0 {
			t.Fatalf("read %+v from %q %q %q", req, js, path, arg0)
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseRequest([]string{string(b), path, arg0})
		if err != nil || !reflect.DeepEqual(again, req) {
			t.Fatalf("%+v encoded as %s reads back as %+v, %v", req, b, again, err)
		}
	})
}

func TestParseRequestRefuses(t *testing.T) {
	for _, args := range [][]string{nil, {"{}"}, {"{}", "/x"}, {"{", "/x", "x"}, {"{}", "", "x"},
		{`{"confine":{"program":"rel"}}`, "/x", "x"}, {`{"confine":{"program":"/x","write":["/a/../b"]}}`, "/x", "x"}} {
		if req, err := parseRequest(args); err == nil {
			t.Errorf("parseRequest(%q) = %+v, want an error", args, req)
		}
	}
}
