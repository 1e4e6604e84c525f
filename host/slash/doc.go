// Package slash names the slash commands the host implements and reads
// them from a prompt: Commands lists them for an editor's menu,
// ParseCommand says whether a prompt invokes one (its first block is text
// starting with "/name", then white space or nothing; any other "/word" is
// text for the model); ParseWord reads any "/word" (the engine looks a
// "/server:prompt" up among the session's MCP prompts). Running them is
// the engine's (Runtime.Prompt).
package slash
