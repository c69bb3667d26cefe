// Package printf implements Bash 5.2's printf formatting and echo's escape
// processing byte for byte, including the long double (64-bit mantissa)
// floating conversions, %q/%Q quoting, %(fmt)T and the diagnostics and exit status.
//
// Format does the formatting only: option parsing (-v var), the "printf: "
// message prefix and writing to the variable or stdout are the caller's.
//
// Known limits:
//   - denormal long doubles (below 2^-16382) keep 64 bits of precision where
//     glibc has fewer, so %a/%.30e of such values can differ in the last digits;
//   - %(fmt)T formats with the C/POSIX locale names (what the sandbox's C.UTF-8
//     gives); %c/%x/%X of strftime are the C locale's;
//   - a precision followed by a flag character (printf '%.-3d') makes glibc
//     print the malformed directive; Format reports DiagUnsupported instead;
//   - output beyond Options.MaxOutput stops with DiagLimit (Bash has no limit).
package printf

import (
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/shquote"
)

// DiagKind classifies a diagnostic.
type DiagKind int

// Diagnostic kinds.
const (
	DiagInvalidNumber DiagKind = iota // "x: invalid number" (status 1, output continues)
	DiagRange                         // "warning: x: Numerical result out of range" (status unchanged)
	DiagEscape                        // "missing hex digit for \x" (status unchanged)
	DiagWarning                       // other "warning: ..." messages (status unchanged)
	DiagFormat                        // invalid or missing format character (status 1, output stops)
	DiagIdentifier                    // %n with a bad variable name (status 1, output stops)
	DiagVar                           // %n assignment failed: Text is the setter's error
	DiagUnsupported                   // a directive this package cannot reproduce: refuse loudly
	DiagLimit                         // output larger than Options.MaxOutput: refuse loudly
)

// Diag is one message Bash prints as "bash: line N: printf: " + Text.
type Diag struct {
	Kind DiagKind
	Text string
}

// Options are the hooks and limits of Format.
type Options struct {
	// Now gives the time for %(fmt)T with -1 or no argument; nil means time.Now.
	Now func() time.Time
	// Start is the shell's start time, for %(fmt)T with -2.
	Start time.Time
	// Loc is the time zone of %(fmt)T (the shell's TZ); nil means UTC.
	Loc *time.Location
	// SetVar assigns %n's count to a variable; nil ignores %n.
	SetVar func(name string, v int64) error
	// MaxOutput bounds the output in bytes; 0 means 64 MiB.
	MaxOutput int
	// Stop, when set, is asked while a long argument is quoted (%q): an error ends the
	// formatting with status 1 (the call has ended; its caller reports why).
	Stop func() error
}

const defaultMax = 64 << 20

type state struct {
	opts   Options
	args   []string
	next   int
	out    []byte
	diags  []Diag
	status int
	max    int
}

func (st *state) arg() (string, bool) {
	if st.next < len(st.args) {
		st.next++
		return st.args[st.next-1], true
	}
	return "", false
}

// invalidNum records Bash's sh_invalidnum message for s.
func (st *state) invalidNum(s string) {
	msg := "invalid number"
	if len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9' {
		msg = "invalid octal number"
	} else if len(s) > 1 && s[0] == '0' && s[1] == 'x' {
		msg = "invalid hex number"
	}
	st.diags = append(st.diags, Diag{Kind: DiagInvalidNumber, Text: s + ": " + msg})
	st.status = 1
}

func (st *state) check(s string, r numResult) {
	if r.bad {
		st.invalidNum(s)
	} else if r.erange {
		st.diags = append(st.diags, Diag{Kind: DiagRange, Text: "warning: " + s + ": Numerical result out of range"})
	}
}

func (st *state) intArg() int64 {
	a, ok := st.arg()
	if !ok {
		return 0
	}
	v, r := parseInt(a)
	st.check(a, r)
	return v
}

// errStop ends the formatting (after \c, a format error or the output limit).
type errStop struct{}

func (st *state) write(s string) {
	if len(st.out)+len(s) > st.max {
		st.limit()
	}
	st.out = append(st.out, s...)
}

// quote is %q of a: its size is held to the output's bound before it is made, and a long
// argument's quoting stops with the call (opts.Stop).
func (st *state) quote(a string) string {
	q, err := shquote.Limits{
		Room: func(n int64) error {
			if int64(len(st.out))+n > int64(st.max) {
				st.limit()
			}
			return nil
		},
		Stop: st.opts.Stop,
	}.Printf(a)
	if err != nil {
		st.status = 1
		panic(errStop{})
	}
	return q
}

func (st *state) limit() {
	st.diags = append(st.diags, Diag{Kind: DiagLimit, Text: "output exceeds the sandbox limit"})
	st.status = 1
	panic(errStop{})
}

// Format formats args by format as Bash's printf builtin; status is the exit
// status (1 after any diagnostic other than a warning).
func Format(format string, args []string, opts Options) (out []byte, diags []Diag, status int) {
	st := &state{opts: opts, args: args, max: opts.MaxOutput}
	if st.max <= 0 {
		st.max = defaultMax
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(errStop); !ok {
					panic(r)
				}
			}
		}()
		for {
			before := st.next
			st.pass(format)
			if st.next >= len(st.args) || st.next == before {
				return
			}
		}
	}()
	return st.out, st.diags, st.status
}

func (st *state) pass(f string) {
	for i := 0; i < len(f); {
		c := f[i]
		if c == '\\' {
			var n int
			var d string
			st.out, n, _, d = escape(st.out, f[i:], escFormat)
			if d != "" {
				st.diags = append(st.diags, Diag{Kind: DiagEscape, Text: d})
			}
			i += n
			continue
		}
		if c != '%' {
			j := i + 1
			for j < len(f) && f[j] != '%' && f[j] != '\\' {
				j++
			}
			st.write(f[i:j])
			i = j
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			st.write("%")
			i += 2
			continue
		}
		i = st.directive(f, i)
	}
}

// directive formats the conversion starting at f[i] == '%' and returns the
// index after it.
func (st *state) directive(f string, i int) int {
	start := i
	i++
	sp := spec{width: -1, prec: -1}
	explicitPrec, starPrec := false, false
flags:
	for i < len(f) {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.alt = true
		case '0':
			sp.zero = true
		case '\'':
		default:
			break flags
		}
		i++
	}
	if i < len(f) && f[i] == '*' {
		w := st.intArg()
		if w < 0 {
			sp.minus = true
			w = -w
		}
		sp.width = st.clampSize(w)
		i++
	} else if i < len(f) && f[i] >= '0' && f[i] <= '9' {
		w := int64(0)
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			w = min(w*10+int64(f[i]-'0'), 1<<40)
			i++
		}
		sp.width = st.clampSize(w)
	}
	if i < len(f) && f[i] == '.' {
		i++
		if i < len(f) && f[i] == '*' {
			p := st.intArg()
			if p >= 0 {
				sp.prec = st.clampSize(p)
			}
			starPrec = true
			i++
		} else {
			p := int64(0)
			explicitPrec = i < len(f) && f[i] >= '0' && f[i] <= '9'
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				p = min(p*10+int64(f[i]-'0'), 1<<40)
				i++
			}
			sp.prec = st.clampSize(p)
			if i < len(f) && f[i] == '-' {
				st.diags = append(st.diags, Diag{Kind: DiagUnsupported, Text: "`" + f[start:i+1] + "': flag after precision is not supported"})
				st.status = 1
				panic(errStop{})
			}
		}
	}
	var timeFmt string
	isTime := false
	if i < len(f) && f[i] == '(' {
		j := strings.IndexByte(f[i:], ')')
		switch {
		case j < 0:
			// Bash reads the terminating NUL as the character after ")".
			st.diags = append(st.diags, Diag{Kind: DiagWarning, Text: "warning: `': invalid time format specification"})
			st.write("%")
			return start + 1
		case i+j+1 < len(f) && f[i+j+1] == 'T':
			timeFmt = f[i+1 : i+j]
			isTime = true
			i += j + 1
		default:
			// Bash warns, prints the % and goes on after it.
			ch := ""
			if i+j+1 < len(f) {
				ch = f[i+j+1 : i+j+2]
			}
			st.diags = append(st.diags, Diag{Kind: DiagWarning, Text: "warning: `" + ch + "': invalid time format specification"})
			st.write("%")
			return start + 1
		}
	}
	for !isTime && i < len(f) && strings.IndexByte("hjlLtz", f[i]) >= 0 {
		i++
	}
	if i >= len(f) {
		st.formatError("`" + f[start:] + "': missing format character")
	}
	sp.conv = f[i]
	i++
	switch sp.conv {
	case 'T':
		if !isTime {
			st.formatError("`T': invalid format character")
		}
		st.timeConv(sp, timeFmt)
	case 'c':
		a, _ := st.arg()
		b := "\x00"
		if a != "" {
			b = a[:1]
		}
		st.write(sp.pad("", b, false))
	case 's':
		a, _ := st.arg()
		st.str(sp, a)
	case 'b':
		a, _ := st.arg()
		e, stop := expand(a, escB, &st.diags)
		st.str(sp, string(e))
		if stop {
			panic(errStop{})
		}
	case 'q':
		a, _ := st.arg()
		st.str(sp, st.quote(a))
	case 'Q':
		// An explicit precision cuts the argument before quoting; a bare "."
		// (precision 0) applies to the quoted text; "*" is ignored, as in Bash.
		a, _ := st.arg()
		if starPrec {
			sp.prec = -1 // Bash ignores a precision given by *
		}
		if explicitPrec {
			if sp.prec < len(a) {
				a = a[:sp.prec]
			}
			sp.prec = -1
		}
		st.str(sp, st.quote(a))
	case 'n':
		a, _ := st.arg()
		if a != "" {
			if !validName(a) {
				st.diags = append(st.diags, Diag{Kind: DiagIdentifier, Text: "`" + a + "': not a valid identifier"})
				st.status = 1
				panic(errStop{})
			}
			if st.opts.SetVar != nil {
				if err := st.opts.SetVar(a, int64(len(st.out))); err != nil {
					st.diags = append(st.diags, Diag{Kind: DiagVar, Text: err.Error()})
					st.status = 1
				}
			}
		}
	case 'd', 'i':
		a, ok := st.arg()
		var v int64
		if ok {
			var r numResult
			v, r = parseInt(a)
			st.check(a, r)
		}
		mag := uint64(v)
		if v < 0 {
			mag = -mag
		}
		st.write(fmtInt(sp, v < 0, mag))
	case 'o', 'u', 'x', 'X':
		a, ok := st.arg()
		var v uint64
		if ok {
			var r numResult
			v, r = parseUint(a)
			st.check(a, r)
		}
		st.write(fmtInt(sp, false, v))
	case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		a, ok := st.arg()
		fv := float{x: newFloat()}
		if ok {
			var r numResult
			fv, r = parseFloat(a)
			st.check(a, r)
		}
		st.write(fmtFloat(sp, fv))
	default:
		st.formatError("`" + string(sp.conv) + "': invalid format character")
	}
	return i
}

// clampSize keeps widths and precisions within the output limit.
func (st *state) clampSize(v int64) int {
	if v > int64(st.max) {
		st.limit()
	}
	return int(v)
}

func (st *state) formatError(text string) {
	st.diags = append(st.diags, Diag{Kind: DiagFormat, Text: text})
	st.status = 1
	panic(errStop{})
}

// str writes s as %s: precision cuts bytes, width pads with spaces.
func (st *state) str(sp spec, s string) {
	if sp.prec >= 0 && sp.prec < len(s) {
		s = s[:sp.prec]
	}
	st.write(sp.pad("", s, false))
}

func validName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// strftimeBuf is the size of Bash's buffer for a %(fmt)T result.
const strftimeBuf = 128

func (st *state) timeConv(sp spec, tf string) {
	a, ok := st.arg()
	secs := int64(-1)
	if ok {
		var r numResult
		secs, r = parseInt(a)
		st.check(a, r)
	}
	var t time.Time
	switch secs {
	case -1:
		if st.opts.Now != nil {
			t = st.opts.Now()
		} else {
			t = time.Now()
		}
	case -2:
		t = st.opts.Start
	default:
		t = time.Unix(secs, 0)
	}
	loc := st.opts.Loc
	if loc == nil {
		loc = time.UTC
	}
	if tf == "" {
		tf = "%X"
	}
	out := Strftime(t.In(loc), tf)
	if len(out) >= strftimeBuf {
		out = "" // Bash formats into a 128-byte buffer; strftime fails on more and prints nothing
	}
	st.str(sp, out)
}
