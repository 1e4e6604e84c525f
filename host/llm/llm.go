package llm

import (
	"encoding/json"
	"fmt"
)

// Role is the author of a message.
type Role string

// Message roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of the model's history.
type Message struct {
	Role Role
	// Text is the message text (user, assistant) or the tool result (tool).
	Text string
	// Reasoning is the assistant's reasoning, sent back to providers that
	// need it (DeepSeek requires it on messages that carry tool calls).
	Reasoning string
	// ToolCalls are the assistant's tool calls.
	ToolCalls []ToolCall
	// ToolCallID names the call a tool message answers.
	ToolCallID string
	// IsError marks a tool message that reports a failure.
	IsError bool
	// Images are the images of a user message, after its Text, or of a
	// tool result (its Text names each one where it came, ImageNote); only
	// for a model whose ModelInfo.Images is true. A provider sends a tool
	// result's images in the result where its API allows it, else right
	// after the results.
	Images []Image
	// Blocks are the assistant's opaque reasoning blocks, kept verbatim so
	// that the provider that made them gets them back unchanged (Anthropic
	// thinking signatures, OpenAI encrypted reasoning). A provider sends
	// back only the blocks whose Provider is its own API and ignores the
	// rest; Reasoning stays the readable text for everyone else.
	Blocks []Block
}

// Image is one image of a user message: its bytes and their MIME type
// (image/png, image/jpeg, …). A provider sends it in its own format.
type Image struct {
	MimeType string
	Data     []byte
}

// ImageNote is how a tool result's text names an image it carries beside
// the text: "[image: image/png, 4033 bytes]".
func ImageNote(mimeType string, size int) string {
	return fmt.Sprintf("[image: %s, %d bytes]", mimeType, size)
}

// ImageType reports whether an image of MIME type mimeType may be sent to
// a model that takes images: PNG, JPEG, GIF or WebP, the types every
// provider here accepts.
func ImageType(mimeType string) bool {
	switch mimeType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// ImageNoteNoInput is ImageNote for a model that does not take images,
// which is sent the note alone: "[image: image/png, 4033 bytes — the model
// does not take images]".
func ImageNoteNoInput(mimeType string, size int) string {
	return fmt.Sprintf("[image: %s, %d bytes — the model does not take images]", mimeType, size)
}

// Block is one opaque provider block of an assistant answer, e.g. an
// Anthropic thinking block with its signature, a redacted-thinking block,
// or an OpenAI Responses reasoning item with its encrypted content. Hosts
// store and return it unchanged; only the provider that made it reads it.
type Block struct {
	// Provider names the API that made it: "anthropic", "openai-responses".
	Provider string
	// Type is the provider's block type: "thinking", "redacted_thinking",
	// "reasoning".
	Type string
	// Model is the model that made the block; providers send a block back
	// only to the same model (Anthropic binds thinking to the model).
	Model string
	// ID is the provider's id of the block, where it has one.
	ID string
	// Text is the block's readable text (thinking text, reasoning summary).
	Text string
	// Signature authenticates Text (Anthropic thinking).
	Signature string
	// Data is the block's opaque payload (Anthropic redacted thinking,
	// OpenAI encrypted_content).
	Data string
}

// ToolCall is one call the model made. Arguments is its raw JSON text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the tool's arguments object.
	Parameters json.RawMessage
}

// Request is one model request.
type Request struct {
	Model    string
	System   string
	Messages []Message
	Tools    []ToolSpec
	// MaxTokens caps the answer; 0 leaves it to the provider.
	MaxTokens int
	// ReasoningEffort is the reasoning effort asked for (one of the
	// model's ModelInfo.ReasoningEfforts); "" leaves it to the provider.
	ReasoningEffort string
}

// Usage counts tokens of one response. InputTokens excludes cached input,
// both read from the cache and written to it.
type Usage struct {
	InputTokens     int
	OutputTokens    int
	CacheReadTokens int
	ReasoningTokens int
	// CacheWriteTokens is input written to the prompt cache (Anthropic's
	// cache_creation_input_tokens), billed above the input price.
	CacheWriteTokens int
}

// Finish says why the model stopped.
type Finish string

// Finish reasons.
const (
	FinishStop      Finish = "stop"
	FinishToolCalls Finish = "tool_calls"
	FinishMaxTokens Finish = "max_tokens"
	FinishRefusal   Finish = "refusal"
)

// ChunkKind tells which field of a [Chunk] is set.
type ChunkKind int

// Chunk kinds.
const (
	ChunkText      ChunkKind = iota + 1 // Text holds a text delta
	ChunkReasoning                      // Text holds a reasoning delta
	ChunkToolCall                       // ToolCall holds a tool-call delta
	ChunkUsage                          // Usage is set
	ChunkFinish                         // Finish is set; the last chunk
	ChunkBlock                          // Block is set: a whole opaque block
)

// Chunk is one item of a model stream.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall ToolCallDelta
	Usage    Usage
	Finish   Finish
	Block    Block
}

// ToolCallDelta is a piece of a tool call. The first delta of an Index carries
// ID and Name; Arguments pieces are appended in order.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// Response is a whole assembled answer.
type Response struct {
	Text      string
	Reasoning string
	Blocks    []Block
	ToolCalls []ToolCall
	Usage     *Usage
	Finish    Finish
}
