package builtins

import (
	"bufio"
	"context"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

func init() { register("column", column) }

// column -t [-s SEP] [-o OUTSEP] lays its input out as a table as util-linux column does:
// without -s, cells are split on runs of blanks (leading and trailing ones ignored); with -s,
// on every separator character, so adjacent separators make empty cells. Empty lines are
// dropped; every cell but a row's last column is padded to its column's width and followed
// by OUTSEP (two spaces). Other modes (filling columns to a terminal width, -J, -N, -R, ...)
// are refused.
func column(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "column", 1, optSpec{short: "ts:o:", permute: true,
		long: []string{"table:t", "separator:s", "output-separator:o"}}, argv[1:])
	if !ok {
		return st
	}
	if !fl.has("t") {
		return errorf(env, 1, "column", "only the table mode (column -t) is available in the sandbox; filling columns to a width needs a terminal's size (run the tool with \"exec\": \"native\")")
	}
	sep, splitSet := "", false
	if v, ok := fl.val("s"); ok {
		sep, splitSet = v, true
	}
	outSep := "  "
	if v, ok := fl.val("o"); ok {
		outSep = v
	}
	utf8Locale := isUTF8Locale(env)
	var rows [][]string
	var widths []int
	refused := ""
	st = eachInput(ctx, env, "column", fl.operands, func(name string, r io.Reader) error {
		if refused != "" {
			return nil
		}
		lr := newLineReader(r)
		for {
			line, _, ok := lr.next()
			if !ok {
				return lr.err
			}
			// The cells are counted, and they and their widths charged, before they are made:
			// a 30 MB line of separators is 30 million cells (1.2 GB split uncharged).
			isBlank := func(r rune) bool { return r == ' ' || r == '\t' }
			n := 0
			if splitSet {
				if len(line) > 0 {
					n = 1
					for _, r := range string(line) {
						if strings.ContainsRune(sep, r) {
							n++
						}
					}
				}
			} else {
				for i, r := range string(line) {
					if !isBlank(r) && (i == 0 || isBlank(rune(line[i-1]))) {
						n++
					}
				}
			}
			if n == 0 {
				continue
			}
			if err := lr.mem.grow(lineCost(len(line)) + int64(16*n) + int64(8*max(n-len(widths), 0))); err != nil {
				return err
			}
			var cells []string
			if splitSet {
				cells = splitAny(string(line), sep)
			} else {
				cells = strings.FieldsFunc(string(line), isBlank)
			}
			for i, c := range cells {
				wd, ok := cellWidth(c)
				if !ok || (!utf8Locale && wd != len(c)) {
					refused = c
					return nil
				}
				if i >= len(widths) {
					widths = append(widths, 0)
				}
				widths[i] = max(widths[i], wd)
			}
			rows = append(rows, cells)
		}
	})
	if refused != "" {
		return errorf(env, 1, "column", "%q: a cell with control, combining or invalid UTF-8 characters, or any non-ASCII character outside a UTF-8 locale, is not available in the sandbox's column (its display width is the terminal's or the locale's); set LC_ALL=C.UTF-8, or run the tool with \"exec\": \"native\"", refused)
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	for n, cells := range rows {
		// The call's end, or a reader that went away, ends the table (its rows are many).
		if n&1023 == 0 && (ctx.Err() != nil || w.Flush() != nil) {
			return 1
		}
		for i := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			if i == len(widths)-1 {
				w.WriteString(c)
				break
			}
			wd, _ := cellWidth(c)
			w.WriteString(c)
			w.WriteString(strings.Repeat(" ", widths[i]-wd))
			w.WriteString(outSep)
		}
		w.WriteByte('\n')
	}
	return st
}

// splitAny splits s at every character of seps: each one ends a cell.
func splitAny(s, seps string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if strings.ContainsRune(seps, r) {
			out = append(out, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(out, s[start:])
}

// isUTF8Locale reports whether the script's locale (LC_ALL, else LC_CTYPE, else LANG) is UTF-8.
func isUTF8Locale(env *Env) bool {
	if env.Getenv == nil {
		return false
	}
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := env.Getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.HasSuffix(v, ".utf-8") || strings.HasSuffix(v, ".utf8")
		}
	}
	return false
}

// cellWidth is the display width of a cell: one column per character, two for East Asian wide
// ones (ambiguous ones are narrow, as glibc's wcwidth has them); ok is false for what has no sure width.
func cellWidth(s string) (int, bool) {
	n := 0
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
			return 0, false
		case r < utf8.RuneSelf:
			n++
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n, true
}
