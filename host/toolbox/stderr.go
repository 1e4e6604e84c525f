package toolbox

import (
	"encoding/json"
	"strings"

	"github.com/harness-dev/harness/host/shorten"
)

// maxTail bounds the stderr excerpt put into a crash result.
const maxTail = 500

// tailText turns a plugin's last stderr lines into one line for the model:
// hclog JSON lines are reduced to their message (those at trace and debug
// level are dropped), empty lines dropped, the rest joined with " | ". When a Go panic or fatal error is among them the
// excerpt starts at it (the stack frames after it matter less); otherwise it
// keeps the last maxTail bytes.
func tailText(lines []string) string {
	msgs := make([]string, 0, len(lines))
	from := -1
	for _, l := range lines {
		l = strings.TrimSpace(logMessage(l))
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			from = len(msgs)
		}
		msgs = append(msgs, l)
	}
	if from >= 0 {
		return shorten.Bytes(strings.Join(msgs[from:], " | "), maxTail)
	}
	return shorten.TailBytes(strings.Join(msgs, " | "), maxTail)
}

// logMessage returns the message of an hclog JSON line ("" for one at trace
// or debug level), and any other line as it is.
func logMessage(line string) string {
	if !strings.HasPrefix(line, "{") {
		return line
	}
	var m struct {
		Level   string `json:"@level"`
		Message string `json:"@message"`
		Error   string `json:"error"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.Message == "" {
		return line
	}
	if m.Level == "trace" || m.Level == "debug" {
		return ""
	}
	if m.Error != "" {
		return m.Message + ": " + m.Error
	}
	return m.Message
}
