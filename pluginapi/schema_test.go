package pluginapi

import (
	"encoding/json"
	"testing"
)

func TestCheckSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want string // want "" = valid
	}{
		{"minimal", `{"type":"object"}`, ""},
		{"full", `{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x",null]},"b":{"type":"array","items":{"type":"object","properties":{"c":{"type":"integer"}},"additionalProperties":false}}},"required":["a"],"additionalProperties":{"type":"number"},"description":"unknown keywords are fine"}`, ""},
		{"boolean subschemas", `{"type":"object","properties":{"a":true,"b":false}}`, ""},
		{"not JSON", `{`, `the schema must be a JSON object with "type": "object"`},
		{"array", `[]`, `the schema must be a JSON object with "type": "object"`},
		{"no type", `{"properties":{}}`, `the schema must be a JSON object with "type": "object"`},
		{"type string", `{"type":"string"}`, `the schema must be a JSON object with "type": "object"`},
		{"properties not an object", `{"type":"object","properties":[]}`, `"properties" must be an object`},
		{"property not a schema", `{"type":"object","properties":{"a":"string"}}`, `a: a schema must be a JSON object`},
		{"required not listed", `{"type":"object","properties":{"a":{}},"required":["a","b"]}`, `required property "b" is not in "properties"`},
		{"required without properties", `{"type":"object","required":["a"]}`, `required property "a" is not in "properties"`},
		{"required not a list", `{"type":"object","required":"a"}`, `"required" must be a list of property names`},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"int"}}}`, `a: unknown type "int"`},
		{"empty enum", `{"type":"object","properties":{"a":{"enum":[]}}}`, `a: "enum" must be a non-empty list`},
		{"bad nested items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","required":["x"]}}}}`, `a[]: required property "x" is not in "properties"`},
		{"bad additionalProperties", `{"type":"object","additionalProperties":"no"}`, `additionalProperties: a schema must be a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckSchema(json.RawMessage(tt.schema))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateArgs(t *testing.T) {
	t.Parallel()
	const schema = `{"type":"object","properties":{
		"s":{"type":"string"},
		"n":{"type":"number"},
		"i":{"type":"integer"},
		"b":{"type":"boolean"},
		"o":{"type":["object","null"],"properties":{"x":{"enum":[1,"two",null]}},"additionalProperties":{"type":"string"}},
		"a":{"type":"array","items":{"type":"string"}}},
		"required":["s"],"additionalProperties":false}`
	s, err := compileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"s":""}`, ""},
		{`{"s":"x","n":1.5,"i":-3,"b":false,"o":null,"a":[]}`, ""},
		{`{"s":"x","i":2.0,"o":{"x":"two","y":"z"}}`, ""},
		{`{"s":"x","o":{"x":null}}`, ""},
		{`{}`, `missing required property "s"`},
		{`{"s":1}`, `s: expected string, got number`},
		{`{"s":"x","n":"1"}`, `n: expected number, got string`},
		{`{"s":"x","i":1.5}`, `i: expected integer, got number`},
		{`{"s":"x","b":"true"}`, `b: expected boolean, got string`},
		{`{"s":"x","o":[]}`, `o: expected object or null, got array`},
		{`{"s":"x","o":{"x":2}}`, `o.x: 2 is not one of 1, "two", null`},
		{`{"s":"x","o":{"y":1}}`, `o.y: expected string, got number`},
		{`{"s":"x","a":["a",1]}`, `a[1]: expected string, got number`},
		{`{"s":"x","z":1,"y":2}`, `unknown property "y"`},
		{`null`, `the arguments must be a JSON object, got null`},
		{`"x"`, `the arguments must be a JSON object, got string`},
		{`{"s":`, `malformed JSON: unexpected EOF`},
		{`{"s":"x"}x`, `malformed JSON: data after the arguments object`},
	}
	for _, tt := range tests {
		err := s.validateJSON([]byte(tt.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.args, got, tt.want)
		}
	}
}
