package interp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// bashPrintf implements Bash's printf (the interpreter's own lacks precision, %q, %e/%g, -v and
// more): the format is reused until the arguments are consumed. It returns the output and
// the error messages Bash would print; status is 1 when an argument was not a valid number.
func bashPrintf(format string, args []string, now func() time.Time) (out string, errs []string) {
	var b strings.Builder
	consumed := 0
	next := func() (string, bool) {
		if consumed < len(args) {
			consumed++
			return args[consumed-1], true
		}
		return "", false
	}
	for first := true; first || consumed < len(args); first = false {
		before := consumed
		stop := false
		for i := 0; i < len(format) && !stop; i++ {
			c := format[i]
			if c == '\\' {
				s, n, end := escape(format[i+1:], false)
				b.WriteString(s)
				i += n
				if end {
					return b.String(), errs
				}
				continue
			}
			if c != '%' {
				b.WriteByte(c)
				continue
			}
			if i+1 < len(format) && format[i+1] == '%' {
				b.WriteByte('%')
				i++
				continue
			}
			// %[flags][width][.precision]verb, with * for width/precision from the arguments.
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
				j++
			}
			spec := format[i:j]
			for _, part := range []bool{false, true} {
				if part {
					if j >= len(format) || format[j] != '.' {
						break
					}
					spec += "."
					j++
				}
				if j < len(format) && format[j] == '*' {
					a, _ := next()
					n, _ := strconv.Atoi(strings.TrimSpace(a))
					spec += strconv.Itoa(n)
					j++
					continue
				}
				k := j
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				spec += format[k:j]
			}
			if j < len(format) && format[j] == '(' { // %(fmt)T
				end := strings.Index(format[j:], ")T")
				if end > 0 {
					tf := format[j+1 : j+end]
					a, _ := next()
					t := now()
					if a != "" && a != "-1" {
						if sec, err := strconv.ParseInt(a, 10, 64); err == nil {
							t = time.Unix(sec, 0)
						}
					}
					b.WriteString(fmt.Sprintf(strings.TrimSuffix(spec, ".")+"s", strftimeBash(t.UTC(), tf)))
					i = j + end + 1
					continue
				}
			}
			if j >= len(format) {
				b.WriteString(format[i:])
				break
			}
			verb := format[j]
			i = j
			a, _ := next()
			switch verb {
			case 's':
				b.WriteString(fmt.Sprintf(spec+"s", a))
			case 'b':
				s, _, end := escape(a, true)
				b.WriteString(fmt.Sprintf(spec+"s", s))
				if end {
					return b.String(), errs
				}
			case 'q':
				b.WriteString(fmt.Sprintf(strings.Split(spec, ".")[0]+"s", shellQuote(a)))
			case 'c':
				r, _ := utf8.DecodeRuneInString(a)
				if a == "" {
					break
				}
				b.WriteString(fmt.Sprintf(strings.Split(spec, ".")[0]+"s", string(r)))
			case 'd', 'i':
				n, err := parseNum(a)
				if err != nil {
					errs = append(errs, "printf: "+a+": invalid number")
				}
				b.WriteString(fmt.Sprintf(spec+"d", n))
			case 'u', 'o', 'x', 'X':
				n, err := parseNum(a)
				if err != nil {
					errs = append(errs, "printf: "+a+": invalid number")
				}
				v := verb
				if v == 'u' {
					v = 'd'
				}
				b.WriteString(fmt.Sprintf(spec+string(v), uint64(n)))
			case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
				f, err := parseFloat(a)
				if err != nil {
					errs = append(errs, "printf: "+a+": invalid number")
				}
				v := verb
				if v == 'F' {
					v = 'f'
				}
				if v == 'a' || v == 'A' {
					v = map[byte]byte{'a': 'x', 'A': 'X'}[v]
				}
				b.WriteString(fmt.Sprintf(spec+string(v), f))
			default:
				errs = append(errs, fmt.Sprintf("printf: `%c': invalid format character", verb))
				return b.String(), errs
			}
		}
		if stop || consumed == before {
			break
		}
	}
	return b.String(), errs
}

// parseNum reads a printf integer argument: decimal, 0x hex, 0 octal, or 'c / "c for a
// character code.
func parseNum(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if s[0] == '\'' || s[0] == '"' {
		r, _ := utf8.DecodeRuneInString(s[1:])
		return int64(r), nil
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		// Bash prints the leading digits it could read.
		k := 0
		if k < len(s) && (s[k] == '-' || s[k] == '+') {
			k++
		}
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		n, _ = strconv.ParseInt(s[:k], 10, 64)
		return n, err
	}
	return n, nil
}

func parseFloat(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if s[0] == '\'' || s[0] == '"' {
		r, _ := utf8.DecodeRuneInString(s[1:])
		return float64(r), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if n, ierr := strconv.ParseInt(s, 0, 64); ierr == nil {
			return float64(n), nil
		}
		return 0, err
	}
	if math.IsInf(f, 0) && !strings.Contains(strings.ToLower(s), "inf") {
		return f, fmt.Errorf("out of range")
	}
	return f, nil
}

// escape decodes one backslash escape at the start of s (s starts after the backslash when
// inFormat is false... for %b, s is the whole argument). It returns the decoded text, how many
// bytes of s it used, and whether \c asked to stop all output.
func escape(s string, wholeArg bool) (string, int, bool) {
	if wholeArg {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' {
				b.WriteByte(s[i])
				continue
			}
			t, n, end := escapeOne(s[i+1:], true)
			b.WriteString(t)
			i += n
			if end {
				return b.String(), len(s), true
			}
		}
		return b.String(), len(s), false
	}
	return escapeOne(s, false)
}

func escapeOne(s string, b bool) (string, int, bool) {
	if s == "" {
		return "\\", 0, false
	}
	switch c := s[0]; c {
	case 'n':
		return "\n", 1, false
	case 't':
		return "\t", 1, false
	case 'r':
		return "\r", 1, false
	case 'a':
		return "\a", 1, false
	case 'b':
		return "\b", 1, false
	case 'f':
		return "\f", 1, false
	case 'v':
		return "\v", 1, false
	case 'e', 'E':
		return "\x1b", 1, false
	case '\\':
		return "\\", 1, false
	case '"':
		return "\"", 1, false
	case '\'':
		return "'", 1, false
	case 'c':
		return "", 1, true
	case 'x':
		k := 1
		for k < len(s) && k < 3 && isHex(s[k]) {
			k++
		}
		if k == 1 {
			return "\\x", 1, false
		}
		n, _ := strconv.ParseUint(s[1:k], 16, 8)
		return string([]byte{byte(n)}), k, false
	case 'u', 'U':
		max := 5
		if c == 'U' {
			max = 9
		}
		k := 1
		for k < len(s) && k < max && isHex(s[k]) {
			k++
		}
		if k == 1 {
			return "\\" + string(c), 1, false
		}
		n, _ := strconv.ParseUint(s[1:k], 16, 32)
		return string(rune(n)), k, false
	case '0', '1', '2', '3', '4', '5', '6', '7':
		// In formats \NNN is octal; in %b arguments it is \0NNN.
		start := 0
		if b && c == '0' {
			start = 1
		}
		k := start
		for k < len(s) && k < start+3 && s[k] >= '0' && s[k] <= '7' {
			k++
		}
		if k == start {
			return "\x00", 1, false
		}
		n, _ := strconv.ParseUint(s[start:k], 8, 16)
		return string([]byte{byte(n)}), k, false
	}
	return "\\" + s[:1], 1, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// shellQuote quotes s so the shell reads it back as one word (printf %q).
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	if !strings.ContainsAny(s, "\n\t\r\a\b\f\v\x1b") {
		var b strings.Builder
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return "$'" + strings.NewReplacer("\\", "\\\\", "'", "\\'", "\n", "\\n", "\t", "\\t").Replace(s) + "'"
}

// strftimeBash covers the codes %(fmt)T scripts use.
func strftimeBash(t time.Time, f string) string {
	r := strings.NewReplacer("%Y", t.Format("2006"), "%m", t.Format("01"), "%d", t.Format("02"), "%H", t.Format("15"),
		"%M", t.Format("04"), "%S", t.Format("05"), "%F", t.Format("2006-01-02"), "%T", t.Format("15:04:05"),
		"%s", strconv.FormatInt(t.Unix(), 10), "%z", t.Format("-0700"), "%Z", t.Format("MST"), "%%", "%")
	return r.Replace(f)
}

// echoArgs implements Bash's echo: -n, -e, -E (combinable), processing escapes with -e.
func echoArgs(args []string) (string, bool) {
	newline, esc := true, false
	for len(args) > 0 {
		a := args[0]
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
		args = args[1:]
	}
	s := strings.Join(args, " ")
	stop := false
	if esc {
		s, _, stop = escape(s, true)
	}
	if newline && !stop {
		s += "\n"
	}
	return s, stop
}
