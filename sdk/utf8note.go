package sdk

import (
	"fmt"
	"unicode/utf8"
)

// NotUTF8Notes are the lines a call's stderr gets when its stdout or stderr is not UTF-8 (none
// when both are). MCP text is UTF-8: the result carries each invalid byte as U+FFFD (as the
// original's jq does), so the call says so rather than the bytes changing unnoticed. stderr is
// a kept tail: a character its cut split is not the script's doing.
func NotUTF8Notes(stdout, stderr []byte) []string {
	var notes []string
	for _, s := range []struct {
		name string
		b    []byte
	}{{"stdout", stdout}, {"stderr", trimSplitRune(stderr)}} {
		if n := notUTF8Note(s.name, s.b); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// notUTF8Note says that output is not UTF-8, "" when it is.
func notUTF8Note(stream string, b []byte) string {
	if utf8.Valid(b) {
		return ""
	}
	first, n := -1, 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if first < 0 {
				first = i
			}
			n++
		}
		i += size
	}
	bytes := "bytes"
	if n == 1 {
		bytes = "byte"
	}
	return fmt.Sprintf("mcp-bash: %s is not UTF-8 (%d invalid %s, the first at offset %d): the result's text shows each as U+FFFD; "+
		"to return bytes exactly, encode them (base64) or write them to a file and return it as a resource", stream, n, bytes, first)
}

// trimSplitRune drops the continuation bytes a cut left at the start of b (at most 3).
func trimSplitRune(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}
