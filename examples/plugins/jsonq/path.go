package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// segKind is what one step of a path does.
type segKind int

const (
	segKey   segKind = iota // .name or ["name"]: an object's member
	segIndex                // [n]: an array's item; negative counts from the end
	segAll                  // [*]: every item of an array, or every value of an object
)

// seg is one step of a path.
type seg struct {
	kind  segKind
	key   string
	index int
}

func (s seg) String() string {
	switch s.kind {
	case segIndex:
		return "[" + strconv.Itoa(s.index) + "]"
	case segAll:
		return "[*]"
	}
	if plainKey(s.key) {
		return "." + s.key
	}
	q, _ := json.Marshal(s.key)
	return "[" + string(q) + "]"
}

// plainKey reports whether a key can be written after a dot.
func plainKey(k string) bool {
	return k != "" && !strings.ContainsAny(k, ".[]\" ")
}

// parsePath parses a path: steps .name, [n], [*] and ["any key"], the
// first dot optional; "" and "." select the whole document.
func parsePath(p string) ([]seg, error) {
	p = strings.TrimSpace(p)
	if p == "" || p == "." {
		return nil, nil
	}
	var segs []seg
	i := 0
	for i < len(p) {
		switch {
		case p[i] == '[':
			s, n, err := parseBracket(p[i:])
			if err != nil {
				return nil, fmt.Errorf("at offset %d: %w", i, err)
			}
			segs = append(segs, s)
			i += n
		case p[i] == '.' && i+1 < len(p) && p[i+1] == '[':
			i++ // .["key"], as jq writes it
		case p[i] == '.' || i == 0:
			if p[i] == '.' {
				i++
			}
			end := i
			for end < len(p) && p[end] != '.' && p[end] != '[' {
				end++
			}
			if end == i {
				return nil, fmt.Errorf("at offset %d: empty key (write [\"\"] for the empty key)", i)
			}
			segs = append(segs, seg{kind: segKey, key: p[i:end]})
			i = end
		default:
			return nil, fmt.Errorf("at offset %d: unexpected %q", i, p[i])
		}
	}
	return segs, nil
}

// parseBracket parses a [...] step at the start of p and returns its
// length.
func parseBracket(p string) (seg, int, error) {
	if strings.HasPrefix(p, `["`) {
		// A JSON string, escapes included, then ].
		end := 2
		for end < len(p) && p[end] != '"' {
			if p[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(p) || end+1 >= len(p) || p[end+1] != ']' {
			return seg{}, 0, errors.New(`unterminated ["key"]`)
		}
		var key string
		if err := json.Unmarshal([]byte(p[1:end+1]), &key); err != nil {
			return seg{}, 0, fmt.Errorf("bad quoted key: %v", err)
		}
		return seg{kind: segKey, key: key}, end + 2, nil
	}
	end := strings.IndexByte(p, ']')
	if end < 0 {
		return seg{}, 0, errors.New("unterminated [")
	}
	inner := strings.TrimSpace(p[1:end])
	if inner == "*" {
		return seg{kind: segAll}, end + 1, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return seg{}, 0, fmt.Errorf("[%s]: want an index, * or a quoted key", inner)
	}
	return seg{kind: segIndex, index: n}, end + 1, nil
}

// eval applies segs to v, which sits at path at in the document.
func eval(v any, segs []seg, at string) (any, error) {
	if len(segs) == 0 {
		return v, nil
	}
	s, rest := segs[0], segs[1:]
	switch s.kind {
	case segKey:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is %s, not an object: it has no key %q", where(at), kindOf(v), s.key)
		}
		x, ok := m[s.key]
		if !ok {
			return nil, fmt.Errorf("%s has no key %q; its keys: %s", where(at), s.key, strings.Join(keys(m), ", "))
		}
		return eval(x, rest, at+s.String())
	case segIndex:
		a, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s is %s, not an array: it has no item %d", where(at), kindOf(v), s.index)
		}
		i := s.index
		if i < 0 {
			i += len(a)
		}
		if i < 0 || i >= len(a) {
			return nil, fmt.Errorf("index %d is out of range: %s has %d items", s.index, where(at), len(a))
		}
		return eval(a[i], rest, at+"["+strconv.Itoa(i)+"]")
	}
	// segAll: the rest of the path on every item; items it does not fit
	// are left out, unless none fits.
	type item struct {
		v  any
		at string
	}
	var items []item
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			items = append(items, item{e, at + "[" + strconv.Itoa(i) + "]"})
		}
	case map[string]any:
		ks := make([]string, 0, len(x))
		for k := range x {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		for _, k := range ks {
			items = append(items, item{x[k], at + seg{kind: segKey, key: k}.String()})
		}
	default:
		return nil, fmt.Errorf("%s is %s: [*] needs an array or an object", where(at), kindOf(v))
	}
	out := []any{}
	var firstErr error
	for _, it := range items {
		r, err := eval(it.v, rest, it.at)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func where(at string) string {
	if at == "" {
		return "the document"
	}
	return at
}

// kindOf names a decoded JSON value's type with its article.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}
