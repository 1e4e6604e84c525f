package termview

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/termsafe"
)

// elicitSchema is the part of an MCP elicitation's requested schema the
// terminal asks by: flat properties of primitive types.
type elicitSchema struct {
	Properties map[string]elicitField `json:"properties"`
	Required   []string               `json:"required"`
}

type elicitField struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	Items       *struct {
		Enum []string `json:"enum"`
	} `json:"items"`
}

// Elicit implements engine.Elicitor on the terminal: the server's
// message, then one line per field of its schema (required ones first,
// then by name), each typed as the schema says (a number, an integer,
// y/n, one of the choices, choices separated by commas). An empty line
// leaves an optional field out and declines when the field is required;
// stdin's end declines. The server's words are shown through
// termsafe.Line.
func (a *Asker) Elicit(ctx context.Context, _ string, req engine.MCPElicitRequest) (engine.MCPElicitResult, error) {
	decline := engine.MCPElicitResult{Action: mcpclient.ActionDecline}
	var schema elicitSchema
	if err := json.Unmarshal(req.Schema, &schema); err != nil {
		return decline, nil
	}
	a.start()
	select {
	case a.asking <- struct{}{}:
		defer func() { <-a.asking }()
	case <-ctx.Done():
		return engine.MCPElicitResult{}, ctx.Err()
	}
	defer a.view.answered()
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	slices.SortFunc(names, func(x, y string) int {
		rx, ry := slices.Contains(schema.Required, x), slices.Contains(schema.Required, y)
		if rx != ry {
			if rx {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	v := a.view
	head := v.style(bold, "MCP server "+termsafe.Line(req.Server)+" asks: ") + termsafe.Line(req.Message) + "\n" +
		"    (an empty line skips an optional field, and declines at a required one)\n"
	content := map[string]any{}
	for _, n := range names {
		f := schema.Properties[n]
		required := slices.Contains(schema.Required, n)
		for {
			v.prompt(head + v.style(bold, fieldQuestion(n, f, required)))
			head = ""
			var line string
			select {
			case <-ctx.Done():
				return engine.MCPElicitResult{}, ctx.Err()
			case l, ok := <-a.lines:
				if !ok {
					return decline, nil
				}
				line = strings.TrimSpace(l)
			}
			if line == "" {
				if required {
					return decline, nil
				}
				break
			}
			val, err := fieldValue(f, line)
			if err != nil {
				head = termsafe.Line(err.Error()) + "\n"
				continue
			}
			content[n] = val
			break
		}
	}
	return engine.MCPElicitResult{Action: mcpclient.ActionAccept, Content: content}, nil
}

// fieldQuestion is the line that asks for field n.
func fieldQuestion(n string, f elicitField, required bool) string {
	label := n
	if f.Title != "" {
		label = f.Title
	}
	what := f.Type
	switch {
	case len(f.Enum) > 0:
		what = "one of " + strings.Join(f.Enum, ", ")
	case f.Type == "array" && f.Items != nil:
		what = "some of " + strings.Join(f.Items.Enum, ", ") + ", comma-separated"
	case f.Type == "boolean":
		what = "y/n"
	}
	opt := ""
	if !required {
		opt = ", optional"
	}
	desc := ""
	if f.Description != "" {
		desc = " — " + f.Description
	}
	return termsafe.Line(fmt.Sprintf("  %s (%s%s)%s: ", label, what, opt, desc))
}

// fieldValue reads line as a value of f, or says why it is not one.
func fieldValue(f elicitField, line string) (any, error) {
	switch f.Type {
	case "number":
		x, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", line)
		}
		return x, nil
	case "integer":
		x, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", line)
		}
		return x, nil
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not y or n", line)
	case "array":
		var out []string
		for _, p := range strings.Split(line, ",") {
			p = strings.TrimSpace(p)
			if f.Items != nil && len(f.Items.Enum) > 0 && !slices.Contains(f.Items.Enum, p) {
				return nil, fmt.Errorf("%q is not one of %s", p, strings.Join(f.Items.Enum, ", "))
			}
			out = append(out, p)
		}
		return out, nil
	}
	if len(f.Enum) > 0 && !slices.Contains(f.Enum, line) {
		return nil, fmt.Errorf("%q is not one of %s", line, strings.Join(f.Enum, ", "))
	}
	return line, nil
}
