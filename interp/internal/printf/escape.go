package printf

import "strings"

// escMode selects one of Bash's three backslash-escape dialects.
type escMode int

const (
	escFormat escMode = iota // printf's format string (tescape)
	escB                     // printf %b arguments (bexpand)
	escEcho                  // echo -e (ansicstr)
)

// putUTF8 appends r encoded as Bash does for \u and \U: plain UTF-8 bit
// packing, also for surrogates and values above U+10FFFF (up to six bytes).
func putUTF8(b []byte, r uint32) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, 0xc0|byte(r>>6), 0x80|byte(r&0x3f))
	case r < 0x10000:
		return append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
	case r < 0x200000:
		return append(b, 0xf0|byte(r>>18), 0x80|byte(r>>12&0x3f), 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
	case r < 0x4000000:
		return append(b, 0xf8|byte(r>>24), 0x80|byte(r>>18&0x3f), 0x80|byte(r>>12&0x3f), 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
	}
	return append(b, 0xfc|byte(r>>30&1), 0x80|byte(r>>24&0x3f), 0x80|byte(r>>18&0x3f), 0x80|byte(r>>12&0x3f), 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
}

// AppendUTF8 is putUTF8 for other escape readers ($'...' strings).
func AppendUTF8(b []byte, r uint32) []byte { return putUTF8(b, r) }

func simpleEscape(c byte) (byte, bool) {
	switch c {
	case 'a':
		return 7, true
	case 'b':
		return 8, true
	case 'e', 'E':
		return 27, true
	case 'f':
		return 12, true
	case 'n':
		return 10, true
	case 'r':
		return 13, true
	case 't':
		return 9, true
	case 'v':
		return 11, true
	case '\\':
		return '\\', true
	}
	return 0, false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// escape decodes the escape sequence at s[0] == '\\'. It returns the bytes to
// output appended to b, the number of bytes of s consumed, whether \c was
// seen (escB and escEcho), and a diagnostic (missing digits).
func escape(b []byte, s string, mode escMode) (out []byte, n int, stop bool, diag string) {
	if len(s) < 2 {
		return append(b, '\\'), 1, false, ""
	}
	c := s[1]
	if v, ok := simpleEscape(c); ok {
		return append(b, v), 2, false, ""
	}
	switch c {
	case '"', '\'':
		if mode == escFormat {
			return append(b, c), 2, false, ""
		}
	case '?':
		if mode == escFormat {
			return append(b, '?'), 2, false, ""
		}
	case 'c':
		if mode != escFormat {
			return b, 2, true, ""
		}
	case 'x':
		v, k := 0, 2
		for k < len(s) && k < 4 && hexVal(s[k]) >= 0 {
			v = v*16 + hexVal(s[k])
			k++
		}
		if k == 2 {
			if mode == escEcho {
				return append(b, '\\', 'x'), 2, false, ""
			}
			return append(b, '\\', 'x'), 2, false, "missing hex digit for \\x"
		}
		return append(b, byte(v)), k, false, ""
	case 'u', 'U':
		max := 4
		if c == 'U' {
			max = 8
		}
		var v uint32
		k := 2
		for k < len(s) && k < 2+max && hexVal(s[k]) >= 0 {
			v = v*16 + uint32(hexVal(s[k]))
			k++
		}
		if k == 2 {
			if mode == escEcho {
				return append(b, '\\', c), 2, false, ""
			}
			return append(b, '\\', c), 2, false, "missing unicode digit for \\" + string(c)
		}
		return putUTF8(b, v), k, false, ""
	}
	if isOctal(c) {
		// format: \NNN (1-3 digits, a leading 0 counts); %b: \0NNN or \NNN;
		// echo -e: \0NNN only.
		k := 1
		limit := 4
		if c == '0' && mode != escFormat {
			k, limit = 2, 5
		} else if mode == escEcho {
			return append(b, '\\', c), 2, false, ""
		}
		v := 0
		for k < len(s) && k < limit && isOctal(s[k]) {
			v = v*8 + int(s[k]-'0')
			k++
		}
		return append(b, byte(v)), k, false, ""
	}
	return append(b, '\\'), 1, false, "" // not an escape: the next character is read normally
}

// expand decodes all escapes of s in mode; stop reports \c.
func expand(s string, mode escMode, diags *[]Diag) (out []byte, stop bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			j := strings.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			b = append(b, s[i:i+j]...)
			i += j
			continue
		}
		var n int
		var d string
		b, n, stop, d = escape(b, s[i:], mode)
		if d != "" && diags != nil {
			*diags = append(*diags, Diag{Kind: DiagEscape, Text: d})
		}
		if stop {
			return b, true
		}
		i += n
	}
	return b, false
}

// Echo returns what Bash's echo prints for args (xpg_echo off): leading
// arguments made only of -n, -e, -E letters are options; "--" is not one.
func Echo(args []string) []byte {
	newline, esc := true, false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
	}
	var b []byte
	for k, a := range args[i:] {
		if k > 0 {
			b = append(b, ' ')
		}
		if !esc {
			b = append(b, a...)
			continue
		}
		e, stop := expand(a, escEcho, nil)
		b = append(b, e...)
		if stop {
			return b
		}
	}
	if newline {
		b = append(b, '\n')
	}
	return b
}
