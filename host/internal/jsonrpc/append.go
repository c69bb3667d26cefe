package jsonrpc

import (
	"unicode/utf8"
)

// Appender is a result that writes its own JSON: Response appends it to the envelope as it is,
// without the reflection and the validating copy json.Marshal spends on a Marshaler. Its
// output must be one compact, valid JSON object.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Escapes are encoding/json's, except that <, > and &
// are written as they are (they need no escape in JSON; json.Marshal escapes them for HTML):
// control characters, quote and backslash escaped, invalid UTF-8 replaced by U+FFFD, and
// U+2028 and U+2029 escaped so that the text stays valid JavaScript too.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
