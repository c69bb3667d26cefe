package sdk

// compactAsIs reports whether s is JSON that `jq -c` prints exactly as it is written, so that
// mcp_emit_json can print it without decoding it into maps and printing them again (most tools
// emit what mcp_json_obj built, already compact). It accepts a conservative subset and
// answers false for anything else, which takes the decoding path: no whitespace outside
// strings, no numbers (jq rewrites some), strings of printable ASCII without escapes, objects
// without a repeated key and at most 8 members, nesting at most 32 deep.
// TestCompactAsIsMatchesDecoding holds it to the decoding path's output.
func compactAsIs(s string) bool {
	i, ok := asIsValue(s, 0, 0)
	return ok && i == len(s)
}

// asIsValue scans one value at s[i:]; it returns where the value ends.
func asIsValue(s string, i, depth int) (int, bool) {
	if i >= len(s) || depth > 32 {
		return i, false
	}
	switch s[i] {
	case '"':
		return asIsString(s, i)
	case 't':
		return i + 4, len(s) >= i+4 && s[i:i+4] == "true"
	case 'f':
		return i + 5, len(s) >= i+5 && s[i:i+5] == "false"
	case 'n':
		return i + 4, len(s) >= i+4 && s[i:i+4] == "null"
	case '[':
		i++
		if i < len(s) && s[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = asIsValue(s, i, depth+1); !ok || i >= len(s) {
				return i, false
			}
			switch s[i] {
			case ']':
				return i + 1, true
			case ',':
				i++
			default:
				return i, false
			}
		}
	case '{':
		i++
		if i < len(s) && s[i] == '}' {
			return i + 1, true
		}
		var keys [8]string
		n := 0
		for {
			start := i
			var ok bool
			if i, ok = asIsString(s, i); !ok || n == len(keys) {
				return i, false
			}
			k := s[start:i]
			for _, seen := range keys[:n] {
				if seen == k {
					return i, false // jq keeps the first place and the last value
				}
			}
			keys[n] = k
			n++
			if i >= len(s) || s[i] != ':' {
				return i, false
			}
			if i, ok = asIsValue(s, i+1, depth+1); !ok || i >= len(s) {
				return i, false
			}
			switch s[i] {
			case '}':
				return i + 1, true
			case ',':
				i++
			default:
				return i, false
			}
		}
	}
	return i, false
}

// asIsString scans a string at s[i:] (s[i] is the quote) of printable ASCII without escapes.
func asIsString(s string, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return i, false
		}
	}
	return i, false
}
