// Package termsafe makes text safe to show on a terminal: whatever a
// model, a tool, a plugin, an MCP server or a foreign log file put in a
// string, what this package returns cannot be interpreted by the terminal.
// Every string harness shows a person goes through it; harness's own
// colours, added after, are then the only escapes it writes.
//
// # The contract
//
// Nothing is removed, everything that is not plain text is shown escaped,
// in Go's notation, so that the terminal draws it as text:
//
//   - C0 controls, DEL and C1 controls (U+0080–U+009F): ESC is \x1b, BEL
//     \x07, U+009B \u009b. An escape sequence — CSI, OSC (OSC 52's
//     clipboard write, OSC 8's hyperlink), DCS, APC, PM, SOS — starts
//     with one of them, so none reaches the terminal: what follows its
//     introducer is printable text and shows as such ("\x1b[2J").
//   - format characters (Unicode Cf): bidi overrides, embeddings and
//     isolates (U+202A–U+202E, U+2066–U+2069), zero-width characters
//     (U+200B–U+200D, U+2060, U+FEFF), soft hyphens, tag characters;
//     and the line and paragraph separators U+2028, U+2029. They show as
//     \u202e, \u200b …: a command cannot reorder or hide what it shows.
//   - invalid UTF-8: [Line] shows each bad byte as \xNN, [Text] as
//     U+FFFD.
//
// Backslashes are not doubled: a string that holds the text \x1b and one
// that holds ESC look the same, both harmless.
//
// # Two forms, chosen by the caller
//
// [Line] is for one line: the permission question's command, table cells,
// titles, error lines. Newline, tab and carriage return are escaped too
// (\n, \t, \r), so the result is exactly one line of text, and so are
// the characters that draw nothing ([Invisible]: variation selectors,
// Hangul fillers …), so that a command holds no character it does not
// show.
//
// [Text] is for text shown as lines: the model's answer and thinking, a
// tool's output, diff lines. Newline and tab are kept; CR LF becomes LF;
// any other CR is escaped, so that no line is drawn over another.
//
// # Streams
//
// Text that arrives in pieces (model deltas, a tool's live output) goes
// through a [Stream]: it holds back the bytes that cannot be judged yet (a
// UTF-8 character or a CR LF cut between pieces) and yields the rest, so
// the pieces come out exactly as [Text] of the whole would. [Writer] is an
// io.Writer doing the same for a stream of bytes, such as a log.
//
// The package depends on the standard library only.
package termsafe
