package eventlog

// maxDepth is encoding/json's nesting limit; validJSON agrees with it.
const maxDepth = 10000

// plain marks the bytes a JSON string may hold without further thought:
// everything but '"', '\\' and control characters.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validJSON reports whether b is exactly one JSON value with optional
// surrounding whitespace. It accepts what json.Valid accepts (FuzzValid
// checks this) at several times its speed: one pass, no state function per
// byte, no recursion.
func validJSON(b []byte) bool {
	var stackBuf [32]byte
	stack := stackBuf[:0] // '{' or '[' per open container
	i := skipSpace(b, 0)
value:
	if i >= len(b) {
		return false
	}
	switch c := b[i]; {
	case c == '{':
		if len(stack) == maxDepth { // an empty container counts too
			return false
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			i++
			break
		}
		stack = append(stack, '{')
		if i = member(b, i); i < 0 {
			return false
		}
		goto value
	case c == '[':
		if len(stack) == maxDepth { // an empty container counts too
			return false
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			i++
			break
		}
		stack = append(stack, '[')
		goto value
	case c == '"':
		if i = scanString(b, i); i < 0 {
			return false
		}
	case c == '-' || '0' <= c && c <= '9':
		if i = scanNumber(b, i); i < 0 {
			return false
		}
	case c == 't':
		if !hasAt(b, i, "true") {
			return false
		}
		i += 4
	case c == 'f':
		if !hasAt(b, i, "false") {
			return false
		}
		i += 5
	case c == 'n':
		if !hasAt(b, i, "null") {
			return false
		}
		i += 4
	default:
		return false
	}

	// After a value: close containers, or go on to the next element.
	for {
		i = skipSpace(b, i)
		if len(stack) == 0 {
			return i == len(b)
		}
		if i >= len(b) {
			return false
		}
		top := stack[len(stack)-1]
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
			if top == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			goto value
		case '}', ']':
			if (top == '{') != (b[i] == '}') {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		default:
			return false
		}
	}
}

// member scans `"key" :` and the space after it, returning the offset of
// the member's value or -1.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = scanString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func hasAt(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// scanString scans the string starting at b[i] == '"' and returns the
// offset after its closing quote, or -1. Like encoding/json it does not
// check UTF-8.
func scanString(b []byte, i int) int {
	i++
	for i < len(b) {
		if plain[b[i]] {
			i++
			continue
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at b[i] and
// returns the offset after it, or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
