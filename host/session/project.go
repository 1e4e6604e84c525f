package session

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// message projects a surface event to the model message it derives, if any.
func message(p event.Payload) (llm.Message, bool) {
	switch p := p.(type) {
	case event.UserMessage:
		return llm.Message{Role: llm.RoleUser, Text: userText(p.Content)}, true
	case event.AssistantMessage:
		if p.Text == "" && p.Reasoning == "" && len(p.Blocks) == 0 && len(p.ToolCalls) == 0 {
			return llm.Message{}, false // hosts only usage, e.g. a max-tokens step
		}
		m := llm.Message{Role: llm.RoleAssistant, Text: p.Text, Reasoning: p.Reasoning}
		for _, b := range p.Blocks {
			m.Blocks = append(m.Blocks, llm.Block(b))
		}
		if len(p.ToolCalls) > 0 {
			m.ToolCalls = make([]llm.ToolCall, len(p.ToolCalls))
			for i, c := range p.ToolCalls {
				m.ToolCalls[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
			}
		}
		return m, true
	case event.ToolResult:
		return llm.Message{Role: llm.RoleTool, ToolCallID: p.CallID, Text: p.Content, IsError: p.IsError}, true
	}
	return llm.Message{}, false
}

// userText renders the blocks of a user message as one text. Runs of text
// blocks are concatenated as they are; a resource link becomes a line
//
//	[resource: name <uri>]
//
// and an embedded resource becomes
//
//	<resource uri="…">
//	…its text…
//	</resource>
//
// each separated from its neighbours by a newline.
func userText(content []event.Content) string {
	if len(content) == 1 && content[0].Type == event.ContentText {
		return content[0].Text
	}
	var b strings.Builder
	textRun := false // the builder ends in a text block
	sep := func() {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
	}
	for _, c := range content {
		switch c.Type {
		case event.ContentResourceLink:
			sep()
			b.WriteString("[resource: ")
			if c.Name != "" {
				b.WriteString(c.Name)
				b.WriteByte(' ')
			}
			b.WriteString("<" + c.URI + ">]")
			textRun = false
		case event.ContentImage:
			sep()
			b.WriteString("[image: " + c.MimeType + "]")
			textRun = false
		case event.ContentResource:
			sep()
			b.WriteString("<resource uri=" + strconv.Quote(c.URI) + ">\n")
			b.WriteString(c.Text)
			if c.Text != "" && !strings.HasSuffix(c.Text, "\n") {
				b.WriteByte('\n')
			}
			b.WriteString("</resource>")
			textRun = false
		default: // text, and any kind this host does not know that has text
			if c.Text == "" {
				continue
			}
			if !textRun {
				sep()
			}
			b.WriteString(c.Text)
			textRun = true
		}
	}
	return b.String()
}

// Title is the title of a session whose first user message is content:
// its text on one line, cut to 100 runes with an ellipsis (the
// Summary.FirstPrompt of a stored session).
func Title(content []event.Content) string { return summarize(userText(content)) }

// firstPromptRunes bounds Summary.FirstPrompt.
const firstPromptRunes = 100

// summarize squeezes a prompt into one line of at most firstPromptRunes
// runes, marking a cut with an ellipsis.
func summarize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= firstPromptRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == firstPromptRunes-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}
