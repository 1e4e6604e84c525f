package pluginapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// CheckSchema checks that a tool's parameter schema is usable: a JSON
// object with "type": "object", whose "properties" is an object of schemas,
// whose "required" names only declared properties, and whose nested
// "properties", "items" and "additionalProperties" are schemas in turn;
// "type" names only JSON Schema's seven types and "enum" is a non-empty
// array. It is a structural check, not a full meta-schema validation:
// keywords it does not know are allowed and not checked.
//
// The same subset is what [Typed] enforces on arguments: type, properties,
// required, additionalProperties, items and enum. Other keywords
// (minLength, pattern, minimum, …) are for the model only; check them in
// the handler.
func CheckSchema(schema json.RawMessage) error {
	_, err := compileSchema(schema)
	return err
}

// schemaNode is a compiled schema of the subset Typed enforces.
type schemaNode struct {
	never        bool     // the schema false
	types        []string // empty: any type
	properties   map[string]*schemaNode
	required     []string
	noAdditional bool
	additional   *schemaNode
	items        *schemaNode
	enum         []string // canonical JSON of the allowed values
}

func compileSchema(raw json.RawMessage) (*schemaNode, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, errors.New(notObjectSchema)
	}
	var t string
	if json.Unmarshal(top["type"], &t) != nil || t != "object" {
		return nil, errors.New(notObjectSchema)
	}
	return parseSchema(raw, "")
}

const notObjectSchema = `the schema must be a JSON object with "type": "object"`

// isJSONType reports whether t is one of JSON Schema's seven type names.
func isJSONType(t string) bool {
	switch t {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

func parseSchema(raw json.RawMessage, path string) (*schemaNode, error) {
	fail := func(format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if path == "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s: %s", path, msg)
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return &schemaNode{}, nil
	case "false":
		return &schemaNode{never: true}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fail("a schema must be a JSON object")
	}
	n := &schemaNode{}
	if t, ok := m["type"]; ok {
		var one string
		var many []string
		switch {
		case json.Unmarshal(t, &one) == nil:
			many = []string{one}
		case json.Unmarshal(t, &many) == nil && len(many) > 0:
		default:
			return nil, fail(`"type" must be a type name or a list of them`)
		}
		for _, ty := range many {
			if !isJSONType(ty) {
				return nil, fail("unknown type %q", ty)
			}
		}
		n.types = many
	}
	if p, ok := m["properties"]; ok {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(p, &props); err != nil || props == nil {
			return nil, fail(`"properties" must be an object`)
		}
		n.properties = make(map[string]*schemaNode, len(props))
		for name, ps := range props {
			child, err := parseSchema(ps, joinPath(path, name))
			if err != nil {
				return nil, err
			}
			n.properties[name] = child
		}
	}
	if r, ok := m["required"]; ok {
		if err := json.Unmarshal(r, &n.required); err != nil {
			return nil, fail(`"required" must be a list of property names`)
		}
		for _, name := range n.required {
			if _, ok := n.properties[name]; !ok {
				return nil, fail("required property %q is not in \"properties\"", name)
			}
		}
	}
	if a, ok := m["additionalProperties"]; ok {
		child, err := parseSchema(a, joinPath(path, "additionalProperties"))
		if err != nil {
			return nil, err
		}
		if child.never {
			n.noAdditional = true
		} else {
			n.additional = child
		}
	}
	if it, ok := m["items"]; ok {
		child, err := parseSchema(it, path+"[]")
		if err != nil {
			return nil, err
		}
		n.items = child
	}
	if e, ok := m["enum"]; ok {
		var vals []json.RawMessage
		if err := json.Unmarshal(e, &vals); err != nil || len(vals) == 0 {
			return nil, fail(`"enum" must be a non-empty list`)
		}
		for _, v := range vals {
			c, err := canonicalJSON(v)
			if err != nil {
				return nil, fail(`"enum": %v`, err)
			}
			n.enum = append(n.enum, c)
		}
	}
	return n, nil
}

// validateJSON checks an arguments document against the schema and
// returns the first violation found. Object members are visited in sorted
// order, so the message for a given document is stable.
func (n *schemaNode) validateJSON(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("malformed JSON: data after the arguments object")
	}
	return n.validate(v, "")
}

func (n *schemaNode) validate(v any, path string) error {
	fail := func(format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if path == "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s: %s", path, msg)
	}
	if n.never {
		return fail("no value is allowed here")
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return isType(v, t) }) {
		want := strings.Join(n.types, " or ")
		if path == "" && want == "object" {
			return fmt.Errorf("the arguments must be a JSON object, got %s", kindOf(v))
		}
		return fail("expected %s, got %s", want, kindOf(v))
	}
	if len(n.enum) > 0 {
		c, err := canonicalValue(v)
		if err != nil || !slices.Contains(n.enum, c) {
			return fail("%s is not one of %s", c, strings.Join(n.enum, ", "))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range n.required {
			if _, ok := v[name]; !ok {
				return fail("missing required property %q", name)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			child := n.properties[k]
			if child == nil {
				if n.noAdditional {
					return fail("unknown property %q", k)
				}
				child = n.additional
			}
			if child != nil {
				if err := child.validate(v[k], joinPath(path, k)); err != nil {
					return err
				}
			}
		}
	case []any:
		if n.items != nil {
			for i, item := range v {
				if err := n.items.validate(item, path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func isType(v any, t string) bool {
	switch t {
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(string(n))
		return ok && r.IsInt()
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return kindOf(v) == t
}

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func canonicalJSON(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	return canonicalValue(v)
}

// canonicalValue encodes a decoded value as compact JSON without HTML
// escaping; maps come out with sorted keys.
func canonicalValue(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
