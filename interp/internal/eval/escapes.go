package eval

import (
	"strings"

	"github.com/mcp-bash/mcp-bash/interp/internal/printf"
)

// ansiC decodes the body of $'...'. A NUL ends the string, as in bash (C strings).
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	out := ansiCAll(s)
	if i := strings.IndexByte(out, 0); i >= 0 {
		return out[:i]
	}
	return out
}

func ansiCAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				ch := s[i]
				if ch == '\\' && i+1 < len(s) && s[i+1] == '\\' {
					i++
				}
				b.WriteByte(ch & 0x1f)
			} else {
				b.WriteString("\\c")
			}
		case 'x':
			n, k := hexVal(s[i+1:], 2)
			if k == 0 {
				b.WriteString("\\x")
				continue
			}
			b.WriteByte(byte(n))
			i += k
		case 'u', 'U':
			max := 4
			if c == 'U' {
				max = 8
			}
			n, k := hexVal(s[i+1:], max)
			if k == 0 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			writeRune(&b, n)
			i += k
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, k := octVal(s[i:], 3)
			b.WriteByte(byte(n))
			i += k - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// writeRune writes \u/\U's code point as bash does: plain UTF-8 bit packing, surrogates and
// values past U+10FFFF included.
func writeRune(b *strings.Builder, n int) {
	var buf [6]byte
	b.Write(printf.AppendUTF8(buf[:0], uint32(n)))
}

func hexVal(s string, max int) (int, int) {
	n, k := 0, 0
	for k < max && k < len(s) {
		c := s[k]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return n, k
		}
		n = n*16 + d
		k++
	}
	return n, k
}

func octVal(s string, max int) (int, int) {
	n, k := 0, 0
	for k < max && k < len(s) && s[k] >= '0' && s[k] <= '7' {
		n = n*8 + int(s[k]-'0')
		k++
	}
	return n, k
}
