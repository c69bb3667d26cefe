package printf

import (
	"math"
	"math/big"
	"strings"
	"unicode/utf8"
)

func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// numResult is a parsed numeric argument.
type numResult struct {
	bad    bool // trailing garbage or no digits (Bash: invalid number)
	erange bool // out of range (Bash: warning, value clamped)
}

// charCode handles a 'c or "c argument: the code of the character after the
// quote (its byte when not valid UTF-8), 0 when there is none.
func charCode(s string) (int64, bool) {
	if s == "" || s[0] != '\'' && s[0] != '"' {
		return 0, false
	}
	if len(s) == 1 {
		return 0, true
	}
	r, size := utf8.DecodeRuneInString(s[1:])
	if r == utf8.RuneError && size <= 1 {
		if c, ok := longUTF8(s[1:]); ok {
			return c, true
		}
		return int64(s[1]), true
	}
	return int64(r), true
}

// longUTF8 decodes what glibc's mbrtowc takes as one character and Go does not: a four-byte
// sequence past U+10FFFF and the old five- and six-byte forms (up to 0x7FFFFFFF), so that
// printf '%x' "'$c" gives bash's number. Overlong forms stay invalid, as in glibc.
func longUTF8(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int
	var v, low int64
	switch c := s[0]; {
	case c >= 0xF0 && c <= 0xF7:
		n, v, low = 4, int64(c&0x07), 0x10000
	case c >= 0xF8 && c <= 0xFB:
		n, v, low = 5, int64(c&0x03), 0x200000
	case c >= 0xFC && c <= 0xFD:
		n, v, low = 6, int64(c&0x01), 0x4000000
	default:
		return 0, false
	}
	if len(s) < n {
		return 0, false
	}
	for i := 1; i < n; i++ {
		if s[i]&0xC0 != 0x80 {
			return 0, false
		}
		v = v<<6 | int64(s[i]&0x3F)
	}
	return v, v >= low
}

// scanInt is C's strtoimax/strtoumax with base 0: it returns the magnitude,
// sign, the end of the number and whether the magnitude overflowed uint64.
func scanInt(s string) (mag uint64, neg bool, end int, over bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	if i < len(s) && s[i] == '0' {
		if i+2 < len(s)+1 && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && hexVal(s[i+2]) >= 0 {
			base = 16
			i += 2
		} else {
			base = 8
		}
	}
	start := i
	for i < len(s) {
		d := hexVal(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		if mag > (math.MaxUint64-uint64(d))/base {
			over = true
		}
		mag = mag*base + uint64(d)
		i++
	}
	if i == start {
		return 0, false, 0, false // no digits: nothing consumed
	}
	return mag, neg, i, over
}

// parseInt is printf's getintmax.
func parseInt(s string) (int64, numResult) {
	if v, ok := charCode(s); ok {
		return v, numResult{}
	}
	mag, neg, end, over := scanInt(s)
	var v int64
	var r numResult
	switch {
	case !neg && (over || mag > math.MaxInt64):
		v, r.erange = math.MaxInt64, true
	case neg && (over || mag > 1<<63):
		v, r.erange = math.MinInt64, true
	case neg:
		v = -int64(mag)
	default:
		v = int64(mag)
	}
	r.bad = end < len(s)
	return v, r
}

// parseUint is printf's getuintmax (strtoumax: a minus sign negates modulo 2^64).
func parseUint(s string) (uint64, numResult) {
	if v, ok := charCode(s); ok {
		return uint64(v), numResult{}
	}
	mag, neg, end, over := scanInt(s)
	r := numResult{bad: end < len(s)}
	if over {
		return math.MaxUint64, numResult{bad: r.bad, erange: true}
	}
	if neg {
		mag = -mag
	}
	return mag, r
}

// float is a long double value: special (inf/nan) or a 64-bit-mantissa number.
type float struct {
	neg bool
	inf bool
	nan bool
	x   *big.Float // |value|, precision 64
}

const ldPrec = 64 // x86 long double mantissa bits

func newFloat() *big.Float { return new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven) }

// parseFloat is printf's getfloatmax (strtold).
func parseFloat(s string) (float, numResult) {
	if v, ok := charCode(s); ok {
		return float{x: newFloat().SetInt64(v)}, numResult{}
	}
	f, end, erange := scanFloat(s)
	return f, numResult{bad: end < len(s), erange: erange}
}

func hasPrefixFold(s, p string) bool { return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) }

func scanFloat(s string) (f float, end int, erange bool) {
	f.x = newFloat()
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		f.neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		f.inf = true
		return f, i + 8, false
	case hasPrefixFold(rest, "inf"):
		f.inf = true
		return f, i + 3, false
	case hasPrefixFold(rest, "nan"):
		f.nan = true
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isAlnumByte(s[k]) || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return f, j, false
	}
	hex := len(rest) > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') &&
		(hexVal(rest[2]) >= 0 || rest[2] == '.' && len(rest) > 3 && hexVal(rest[3]) >= 0)
	isDig := func(c byte) bool { return c >= '0' && c <= '9' }
	if hex {
		isDig = func(c byte) bool { return hexVal(c) >= 0 }
		i += 2
	}
	mstart := i
	digits := 0
	for i < len(s) && isDig(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDig(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return float{x: newFloat()}, 0, false
	}
	mant := s[mstart:i]
	exp := int64(0)
	expc := byte('e')
	if hex {
		expc = 'p'
	}
	if i < len(s) && (s[i] == expc || s[i] == expc-32) {
		j := i + 1
		eneg := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			eneg = s[j] == '-'
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				if exp < 1e9 {
					exp = exp*10 + int64(s[j]-'0')
				}
				j++
			}
			if eneg {
				exp = -exp
			}
			i = j
		}
	}
	end = i
	// Decide far-out exponents before big.Float sees them.
	zero := strings.Trim(strings.Replace(mant, ".", "", 1), "0") == ""
	if zero {
		return f, end, false
	}
	mant, exp = shortMantissa(mant, exp, hex)
	limit := int64(6000)
	if hex {
		limit = 20000
	}
	if exp > limit {
		f.inf = true
		return f, end, true
	}
	if exp < -limit {
		return f, end, true
	}
	text := mant
	if hex {
		text = "0x" + mant + "p" + itoa(exp)
	} else {
		text = mant + "e" + itoa(exp)
	}
	// Parsed with room for every digit, then rounded once to the long double's 64 bits, as
	// strtold rounds: big.Float.Parse scales the mantissa at the float's own precision, which
	// rounds twice (1 + 2^-64 written with 1,500 more zeros came out one ulp up).
	exact := new(big.Float).SetPrec(uint(4*len(text) + 128)).SetMode(big.ToNearestEven)
	if _, _, err := exact.Parse(text, 0); err != nil {
		return float{x: newFloat()}, 0, false
	}
	f.x.Set(exact)
	e := f.x.MantExp(nil)
	switch {
	case e > 16384:
		f.inf = true
		return f, end, true
	case e < -16445:
		f.x.SetInt64(0)
		return f, end, true
	case e < -16381:
		// denormal in long double: Bash warns (ERANGE); the reduced precision
		// of denormals is not modelled.
		return f, end, true
	}
	return f, end, false
}

func isAlnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func itoa(v int64) string {
	return big.NewInt(v).String()
}

// maxMantissaDigits is how many significant digits shortMantissa keeps: far more than a 64-bit
// mantissa's rounding can depend on, the rest standing as one sticky digit.
const maxMantissaDigits = 1000

// shortMantissa is mant (digits with an optional point, not all zeros) times base^exp as at
// most maxMantissaDigits significant digits and no point, with the exponent that keeps the
// value: digits past the kept ones become one 1 when any is not 0, which rounds a 64-bit
// mantissa as the whole would. big.Float.Parse reads every digit in quadratic time (a million
// digits: 2 s, never stopped). Exponents count decimal digits, or bits for hex (4 a digit).
func shortMantissa(mant string, exp int64, hex bool) (string, int64) {
	if len(mant) <= maxMantissaDigits {
		return mant, exp
	}
	step := int64(1)
	if hex {
		step = 4
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac)) * step
	if len(digits) <= maxMantissaDigits {
		return digits, exp
	}
	kept, rest := digits[:maxMantissaDigits], digits[maxMantissaDigits:]
	exp += int64(len(rest)) * step
	if strings.Trim(rest, "0") != "" {
		kept += "1"
		exp -= step
	}
	return kept, exp
}
