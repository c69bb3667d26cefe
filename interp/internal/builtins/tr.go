package builtins

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

func init() { register("tr", tr) }

// trClasses are the POSIX classes in the C locale, as byte predicates.
var trClasses = map[string]func(byte) bool{
	"alpha":  func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' },
	"digit":  func(c byte) bool { return c >= '0' && c <= '9' },
	"alnum":  isAlnum,
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"space":  func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"punct":  func(c byte) bool { return c > ' ' && c < 127 && !isAlnum(c) },
	"print":  func(c byte) bool { return c >= ' ' && c < 127 },
	"graph":  func(c byte) bool { return c > ' ' && c < 127 },
	"cntrl":  func(c byte) bool { return c < ' ' || c == 127 },
	"xdigit": func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' },
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// trEscape decodes one backslash escape at s[i] (just after the backslash).
func trEscape(s string, i int) (byte, int) {
	if i >= len(s) {
		return '\\', i
	}
	if s[i] >= '0' && s[i] <= '7' {
		j := i
		for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(s[i:j], 8, 8)
		return byte(v), j
	}
	if c, ok := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v'}[s[i]]; ok {
		return c, i + 1
	}
	return s[i], i + 1
}

// expandSet expands a tr SET into bytes: escapes, ranges, [:class:], [=c=] and, in SET2,
// [c*n] / [c*] repeats (n=0 means "fill to the length of SET1").
func expandSet(s string, fill int) ([]byte, error) {
	var out []byte
	fillAt, fillChar := -1, byte(0)
	for i := 0; i < len(s); {
		if s[i] == '[' && i+1 < len(s) {
			// The search for ":]" only after "[:": searching at every "[" is quadratic in a
			// set of brackets (200,000 of them took seconds).
			end := -1
			if s[i+1] == ':' {
				end = strings.Index(s[i:], ":]")
			}
			if end > 0 {
				name := s[i+2 : i+end]
				f, ok := trClasses[name]
				if !ok {
					return nil, fmt.Errorf("invalid character class '%s'", name)
				}
				for c := 0; c < 256; c++ {
					if f(byte(c)) {
						out = append(out, byte(c))
					}
				}
				i += end + 2
				continue
			}
			if s[i+1] == '=' && i+4 < len(s)+1 && strings.HasPrefix(s[i+3:], "=]") {
				out = append(out, s[i+2])
				i += 5
				continue
			}
			if c, n, count, ok := trRepeat(s[i:]); ok {
				if count > maxTrRepeat {
					// Only as many positions as SET1 has are ever used; a huge count would only
					// allocate (and GNU's limit is the same order of magnitude in practice).
					return nil, fmt.Errorf("repeat count in '%s' is too large (at most %d)", s[i:i+n], maxTrRepeat)
				}
				if count == 0 {
					fillAt, fillChar = len(out), c
				}
				for k := 0; k < count; k++ {
					out = append(out, c)
				}
				i += n
				continue
			}
		}
		c, next := s[i], i+1
		if c == '\\' {
			c, next = trEscape(s, i+1)
		}
		if next+1 < len(s) && s[next] == '-' {
			hi, after := s[next+1], next+2
			if hi == '\\' {
				hi, after = trEscape(s, next+2)
			}
			if hi < c {
				return nil, fmt.Errorf("range-endpoints of '%c-%c' are in reverse collating sequence order", c, hi)
			}
			for x := int(c); x <= int(hi); x++ {
				out = append(out, byte(x))
			}
			i = after
			continue
		}
		out = append(out, c)
		i = next
	}
	if fillAt >= 0 && fill > len(out) {
		pad := make([]byte, fill-len(out))
		for k := range pad {
			pad[k] = fillChar
		}
		out = append(out[:fillAt], append(pad, out[fillAt:]...)...)
	}
	return out, nil
}

// maxTrRepeat bounds n in [c*n].
const maxTrRepeat = 1 << 20

// trRepeat parses [c*n] at the start of s.
func trRepeat(s string) (c byte, n, count int, ok bool) {
	i := 1
	c = s[i]
	if c == '\\' {
		c, i = trEscape(s, 2)
	} else {
		i++
	}
	if i >= len(s) || s[i] != '*' {
		return 0, 0, 0, false
	}
	end := strings.IndexByte(s[i:], ']')
	if end < 0 {
		return 0, 0, 0, false
	}
	digits := s[i+1 : i+end]
	if digits != "" {
		base := 10
		if digits[0] == '0' {
			base = 8
		}
		v, err := strconv.ParseInt(digits, base, 32)
		if err != nil {
			return 0, 0, 0, false
		}
		count = int(v)
	}
	return c, i + end + 1, count, true
}

var trSpec = optSpec{short: "cCdst", long: []string{"complement:c", "delete:d", "squeeze-repeats:s", "truncate-set1:t"}}

// tr works on bytes, as GNU tr does.
func tr(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "tr", 1, trSpec, argv[1:])
	if !ok {
		return st
	}
	del, squeeze, comp := fl.has("d"), fl.has("s"), fl.has("c", "C")
	ops := fl.operands
	need := 2
	if del && !squeeze || !del && squeeze {
		need = 1
	}
	if len(ops) < need || len(ops) > 2 || (del && !squeeze && len(ops) == 2) {
		if len(ops) < need {
			return errorf(env, 1, "tr", "missing operand")
		}
		return errorf(env, 1, "tr", "extra operand '%s'", ops[len(ops)-1])
	}
	set1, err := expandSet(ops[0], 0)
	if err != nil {
		return errorf(env, 1, "tr", "%v", err)
	}
	var in1 [256]bool
	for _, c := range set1 {
		in1[c] = true
	}
	if comp {
		set1 = set1[:0]
		for c := 0; c < 256; c++ {
			in1[c] = !in1[c]
			if in1[c] {
				set1 = append(set1, byte(c))
			}
		}
	}
	var set2 []byte
	if len(ops) == 2 {
		if set2, err = expandSet(ops[1], len(set1)); err != nil {
			return errorf(env, 1, "tr", "%v", err)
		}
	}
	t := trTable{del: del, squeeze: squeeze}
	for c := 0; c < 256; c++ {
		t.mapping[c] = byte(c)
	}
	switch {
	case del:
		t.drop = in1
		for _, c := range set2 {
			t.squeezeSet[c] = true
		}
	case len(ops) == 2:
		if len(set2) == 0 {
			return errorf(env, 1, "tr", "when not truncating set1, string2 must be non-empty")
		}
		if fl.has("t") && len(set1) > len(set2) {
			set1 = set1[:len(set2)]
		}
		for i, c := range set1 {
			t.mapping[c] = set2[min(i, len(set2)-1)]
		}
		for _, c := range set2 {
			t.squeezeSet[c] = true
		}
	default:
		t.squeezeSet = in1
	}
	if err := t.run(ctxRead(ctx, env.Stdin), env.Stdout); err != nil {
		if ctx.Err() != nil {
			return 130
		}
		return errorf(env, 1, "tr", "%s", describe(err))
	}
	return 0
}

type trTable struct {
	mapping          [256]byte
	drop, squeezeSet [256]bool
	del, squeeze     bool
}

// run streams r to w in chunks, stopping at the first write error.
func (t *trTable) run(r io.Reader, w io.Writer) error {
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, 64<<10)
	last := -1
	for {
		n, err := r.Read(buf)
		out = out[:0]
		for _, c := range buf[:n] {
			if t.del && t.drop[c] {
				continue
			}
			c = t.mapping[c]
			if t.squeeze && t.squeezeSet[c] && last == int(c) {
				continue
			}
			last = int(c)
			out = append(out, c)
		}
		if _, werr := w.Write(out); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
