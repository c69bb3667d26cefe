package jsonrpc

import "unicode/utf8"

// Members calls fn with each member of a JSON object, in order: the key (its text between the
// quotes) and the value's bytes. raw must be valid JSON (json.Valid); Members reports false,
// having called fn for nothing, when raw is not an object or a key holds an escape or text
// that is not UTF-8 (the caller then decodes it in full), so that a key it gives is exactly
// the key a decoder reads. It allocates nothing: a hand-written scan of the envelope costs a
// fraction of encoding/json's reflection into a map.
func Members(raw []byte, fn func(key, value []byte)) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	// A first pass checks the keys, so that fn sees all of them or none.
	for pass := 0; pass < 2; pass++ {
		j := skipSpace(raw, i+1)
		for j < len(raw) && raw[j] != '}' {
			if raw[j] == ',' {
				j = skipSpace(raw, j+1)
			}
			kEnd := stringEnd(raw, j)
			key := raw[j+1 : kEnd-1]
			if pass == 0 {
				for _, c := range key {
					if c == '\\' {
						return false
					}
				}
				if !utf8.Valid(key) {
					return false
				}
			}
			j = skipSpace(raw, kEnd)
			j = skipSpace(raw, j+1) // ':'
			vEnd := valueEnd(raw, j)
			if pass == 1 {
				fn(key, raw[j:vEnd])
			}
			j = skipSpace(raw, vEnd)
		}
	}
	return true
}

// PlainString is the text of a JSON string token that holds no escape and is UTF-8 (as a
// decoder reads it), or false.
func PlainString(tok []byte) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	s := tok[1 : len(tok)-1]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	return s, utf8.Valid(s)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the string token starting at b[i] (a quote).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the index just past the value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
