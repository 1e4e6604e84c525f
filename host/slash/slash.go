package slash

import (
	"strings"
	"unicode"

	"github.com/harness-dev/harness/host/event"
)

// The slash commands the host implements. A prompt whose first block is
// text starting with "/<name>" (then white space or nothing) runs the
// command instead of reaching the model as it is; any other "/word" is
// ordinary text.
const (
	// CommandCompact compacts the session's history now
	// (engine.Runtime.Compact): a turn of its own with a context/compact of
	// reason "command". The text after it is ignored.
	CommandCompact = "compact"
	// CommandInit runs a normal turn on [InitPrompt] (the text after it
	// appended as the user's extra instructions).
	CommandInit = "init"
)

// InitPrompt is the user message /init sends: the model surveys the
// project and writes AGENTS.md at its root.
const InitPrompt = `Write an AGENTS.md file at the root of this project, for coding agents that will work on it after you. First look around: the layout, the build and test commands, the language and its conventions, any existing README, CONTRIBUTING or AGENTS.md (improve an existing one rather than replacing what is still true). Then write a short, concrete file: what the project is; how to build, test and lint it (exact commands); the layout (which directory holds what); the code style and conventions the code actually follows; anything surprising a newcomer would get wrong. Do not invent commands you have not seen in the project.`

// Command describes one slash command for an editor's command menu.
type Command struct {
	// Name is what follows the slash.
	Name string
	// Description says what it does.
	Description string
	// Hint, when set, describes the text the command takes after its name.
	Hint string
}

// Commands lists the slash commands the host implements, in menu order.
func Commands() []Command {
	return []Command{
		{Name: CommandCompact, Description: "Compact the conversation: a summary replaces the older history the model sees (the log keeps everything)"},
		{Name: CommandInit, Description: "Ask the model to write an AGENTS.md for this project", Hint: "extra instructions (optional)"},
	}
}

// ParseWord returns the "/word" prompt starts with: its first block is
// text that starts with "/" then a word (up to white space); args is the
// rest of that block, trimmed. It says nothing of whether the word names
// a command: the engine looks it up among the session's MCP prompts
// ("/server:prompt").
func ParseWord(prompt []event.Content) (word, args string, ok bool) {
	if len(prompt) == 0 || prompt[0].Type != event.ContentText {
		return "", "", false
	}
	text := strings.TrimLeftFunc(prompt[0].Text, unicode.IsSpace)
	rest, found := strings.CutPrefix(text, "/")
	if !found {
		return "", "", false
	}
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return "", "", false
	}
	return rest[:end], strings.TrimSpace(rest[end:]), true
}

// ParseCommand reports the slash command prompt invokes: its first block
// is text that starts with "/" and the name of a command of [Commands],
// followed by white space or nothing. args is the rest of that block,
// trimmed. A "/word" that names no command is not one (ok false).
func ParseCommand(prompt []event.Content) (name, args string, ok bool) {
	word, args, ok := ParseWord(prompt)
	if !ok {
		return "", "", false
	}
	for _, c := range Commands() {
		if c.Name == word {
			return word, args, true
		}
	}
	return "", "", false
}
