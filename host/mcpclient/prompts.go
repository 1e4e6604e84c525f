package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-dev/harness/host/event"
)

// Prompt is one MCP prompt of a server (prompts/list), offered as the
// slash command /<server>:<name>.
type Prompt struct {
	Server, Name string
	// Title and Description are the server's, for a command menu.
	Title, Description string
	Args               []PromptArg
}

// PromptArg is one argument of a Prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// Command is the slash command that runs p, without the slash:
// "<server>:<name>".
func (p Prompt) Command() string { return p.Server + ":" + p.Name }

// Hint describes the text the command takes, for a command menu: its
// arguments, or "" when it takes none.
func (p Prompt) Hint() string {
	var names []string
	for _, a := range p.Args {
		n := a.Name
		if !a.Required {
			n = "[" + n + "]"
		}
		names = append(names, n)
	}
	return strings.Join(names, " ")
}

// ParseArgs maps the text typed after the command to p's arguments: when
// every word of it is name=value with name one of p's arguments, those
// pairs (a value runs to the next white space; "name=" is empty);
// otherwise the whole text is the first argument's value. A required
// argument left without a value is an error saying how to give it.
func (p Prompt) ParseArgs(line string) (map[string]string, error) {
	line = strings.TrimSpace(line)
	out := map[string]string{}
	if line != "" {
		if pairs, ok := p.pairs(line); ok {
			out = pairs
		} else if len(p.Args) > 0 {
			out[p.Args[0].Name] = line
		} else {
			return nil, fmt.Errorf("/%s takes no arguments", p.Command())
		}
	}
	for _, a := range p.Args {
		if a.Required && out[a.Name] == "" {
			return nil, fmt.Errorf("/%s needs %s: type /%s %s=… (or the value alone for its first argument)", p.Command(), a.Name, p.Command(), a.Name)
		}
	}
	return out, nil
}

func (p Prompt) pairs(line string) (map[string]string, bool) {
	out := map[string]string{}
	for _, w := range strings.FieldsFunc(line, unicode.IsSpace) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || !slices.ContainsFunc(p.Args, func(a PromptArg) bool { return a.Name == k }) {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// Prompts lists the prompts of the servers up now, in the servers' order
// then by name; it does not wait for servers still starting (Watch says
// when one comes up).
func (s *Set) Prompts() []Prompt {
	if s == nil {
		return nil
	}
	var out []Prompt
	for _, sv := range s.servers {
		sv.caps.mu.Lock()
		out = append(out, sv.caps.prompts...)
		sv.caps.mu.Unlock()
	}
	return out
}

// ErrNoPrompt is returned, wrapped, by GetPrompt for a command that names
// no prompt of the set.
var ErrNoPrompt = errors.New("no such MCP prompt")

// LookupPrompt returns the prompt of command ("<server>:<name>").
func (s *Set) LookupPrompt(command string) (Prompt, bool) {
	for _, p := range s.Prompts() {
		if p.Command() == command {
			return p, true
		}
	}
	return Prompt{}, false
}

// GetPrompt runs the prompt of command ("<server>:<name>") with the text
// typed after it (Prompt.ParseArgs) and returns its messages as a user's
// prompt: text as it is (an assistant message's text marked as such),
// images with their bytes (Content.Data), embedded text resources as
// resources, anything else named in text. Errors are one line.
func (s *Set) GetPrompt(ctx context.Context, command, line string) ([]event.Content, error) {
	p, ok := s.LookupPrompt(command)
	if !ok {
		return nil, fmt.Errorf("/%s: %w", command, ErrNoPrompt)
	}
	args, err := p.ParseArgs(line)
	if err != nil {
		return nil, err
	}
	var sv *server
	for _, x := range s.servers {
		if x.cfg.Name == p.Server {
			sv = x
		}
	}
	cs, err := sv.session(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, sv.opts.CallTimeout)
	defer cancel()
	res, err := cs.GetPrompt(cctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: get prompt %s: %s", sv.cfg.Name, p.Name, sv.redact(err.Error()))
	}
	return promptContent(res), nil
}

// promptContent is the messages of a prompts/get result as a user's
// prompt.
func promptContent(res *mcp.GetPromptResult) []event.Content {
	var out []event.Content
	for _, m := range res.Messages {
		prefix := ""
		if m.Role == "assistant" {
			prefix = "(assistant) "
		}
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			out = append(out, event.Content{Type: event.ContentText, Text: prefix + c.Text})
		case *mcp.ImageContent:
			out = append(out, event.Content{Type: event.ContentImage, MimeType: c.MIMEType, Data: c.Data})
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				out = append(out, event.Content{Type: event.ContentResource, URI: c.Resource.URI, MimeType: c.Resource.MIMEType, Text: c.Resource.Text})
			} else if c.Resource != nil {
				out = append(out, event.Content{Type: event.ContentText, Text: fmt.Sprintf("[resource: %s, %s, %d bytes]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))})
			}
		case *mcp.ResourceLink:
			out = append(out, event.Content{Type: event.ContentResourceLink, URI: c.URI, Name: c.Name, MimeType: c.MIMEType})
		default:
			out = append(out, event.Content{Type: event.ContentText, Text: fmt.Sprintf("[%T content of the prompt left out]", m.Content)})
		}
	}
	return out
}

// connected notes what a new connection of sv offers besides tools: its
// instructions and its prompts (a failed prompts/list is a warning: none
// are offered). Then the set's watchers are told.
func (sv *server) connected(ctx context.Context, cs *mcp.ClientSession) {
	var instructions string
	var hasPrompts bool
	if r := cs.InitializeResult(); r != nil {
		instructions = r.Instructions
		hasPrompts = r.Capabilities != nil && r.Capabilities.Prompts != nil
	}
	var prompts []Prompt
	if hasPrompts {
		var err error
		if prompts, err = sv.fetchPrompts(ctx, cs); err != nil {
			sv.log.Warn(fmt.Sprintf("MCP server %s: its prompts are not offered: list prompts: %s", sv.cfg.Name, sv.redact(err.Error())))
		}
	}
	sv.caps.mu.Lock()
	sv.caps.instructions, sv.caps.prompts = instructions, prompts
	sv.caps.mu.Unlock()
	sv.caps.watch.notify()
}

// refreshPrompts lists the prompts of connection gen again, after
// notifications/prompts/list_changed, and tells the set's watchers.
func (sv *server) refreshPrompts(gen int64) {
	sv.mu.Lock()
	cs := sv.cs
	sv.mu.Unlock()
	if cs == nil || sv.gen.Load() != gen {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sv.opts.StartTimeout)
	defer cancel()
	prompts, err := sv.fetchPrompts(ctx, cs)
	if err != nil {
		sv.log.Warn(fmt.Sprintf("MCP server %s: prompts not refreshed after prompts/list_changed: %s; the old list stays", sv.cfg.Name, sv.redact(err.Error())))
		return
	}
	sv.caps.mu.Lock()
	sv.caps.prompts = prompts
	sv.caps.mu.Unlock()
	sv.caps.watch.notify()
}

// fetchPrompts lists the server's prompts, sorted by name; a prompt whose
// name holds white space (it could not be typed as a command) is left out.
func (sv *server) fetchPrompts(ctx context.Context, cs *mcp.ClientSession) ([]Prompt, error) {
	var out []Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if p.Name == "" || strings.IndexFunc(p.Name, unicode.IsSpace) >= 0 {
			sv.log.Warn(fmt.Sprintf("MCP server %s: prompt %q not offered: its name cannot be typed as a command", sv.cfg.Name, p.Name))
			continue
		}
		pr := Prompt{Server: sv.cfg.Name, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Args = append(pr.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// MaxInstructions caps the instructions of one server in the system
// prompt, in characters.
const MaxInstructions = 2000

// Instructions is the part of the system prompt the set's servers that
// are up give (their initialize result's instructions): each server's
// under a heading naming it, cut to MaxInstructions characters with a
// note saying so; "" when none gives any.
func (s *Set) Instructions() string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	for _, sv := range s.servers {
		sv.caps.mu.Lock()
		text := strings.TrimSpace(sv.caps.instructions)
		sv.caps.mu.Unlock()
		if text == "" {
			continue
		}
		fmt.Fprintf(&b, "\n# Instructions from MCP server %s:\n", sv.cfg.Name)
		if n := utf8.RuneCountInString(text); n > MaxInstructions {
			cut := []rune(text)[:MaxInstructions]
			text = string(cut) + fmt.Sprintf("\n[cut: the server's instructions are %d characters; the first %d are shown]", n, MaxInstructions)
		}
		b.WriteString(text)
		b.WriteString("\n")
	}
	return b.String()
}
