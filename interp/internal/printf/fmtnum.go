package printf

import (
	"math/big"
	"strconv"
	"strings"
)

// spec is one parsed conversion.
type spec struct {
	minus, plus, space, alt, zero bool
	width                         int // -1: none
	prec                          int // -1: none
	conv                          byte
}

// pad justifies body (after sign/prefix) to the width; zeros go between the
// prefix and the body when zero padding applies.
func (sp spec) pad(prefix, body string, zeroOK bool) string {
	n := len(prefix) + len(body)
	if sp.width <= n {
		return prefix + body
	}
	fill := sp.width - n
	switch {
	case sp.minus:
		return prefix + body + strings.Repeat(" ", fill)
	case sp.zero && zeroOK:
		return prefix + strings.Repeat("0", fill) + body
	}
	return strings.Repeat(" ", fill) + prefix + body
}

// fmtInt formats an integer conversion (d i o u x X) as C's printf.
func fmtInt(sp spec, neg bool, mag uint64) string {
	base := 10
	switch sp.conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(mag, base)
	if sp.conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if sp.prec == 0 && mag == 0 {
		digits = ""
	}
	if sp.prec > len(digits) {
		digits = strings.Repeat("0", sp.prec-len(digits)) + digits
	}
	prefix := ""
	switch sp.conv {
	case 'd', 'i':
		switch {
		case neg:
			prefix = "-"
		case sp.plus:
			prefix = "+"
		case sp.space:
			prefix = " "
		}
	case 'o':
		if sp.alt && !strings.HasPrefix(digits, "0") {
			digits = "0" + digits
		}
	case 'x', 'X':
		if sp.alt && mag != 0 {
			prefix = "0" + string(sp.conv)
		}
	}
	return sp.pad(prefix, digits, sp.prec < 0)
}

// fmtFloat formats a floating conversion (e E f F g G a A) of a long double.
func fmtFloat(sp spec, f float) string {
	upper := sp.conv >= 'A' && sp.conv <= 'Z'
	sign := ""
	switch {
	case f.neg:
		sign = "-"
	case sp.plus:
		sign = "+"
	case sp.space:
		sign = " "
	}
	if f.inf || f.nan {
		s := "inf"
		if f.nan {
			s = "nan"
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return sp.pad(sign, s, false)
	}
	x := f.x
	prec := sp.prec
	var body, prefix string
	switch sp.conv | 0x20 {
	case 'f':
		if prec < 0 {
			prec = 6
		}
		body = x.Text('f', prec)
		if sp.alt && prec == 0 {
			body += "."
		}
	case 'e':
		if prec < 0 {
			prec = 6
		}
		body = x.Text('e', prec)
		if sp.alt && prec == 0 {
			body = strings.Replace(body, "e", ".e", 1)
		}
	case 'g':
		body = fmtG(sp, x)
	case 'a':
		prefix, body = fmtA(sp, x)
	}
	if upper {
		body = strings.ToUpper(body)
		prefix = strings.ToUpper(prefix)
	}
	return sp.pad(sign+prefix, body, true)
}

func fmtG(sp spec, x *big.Float) string {
	p := sp.prec
	if p < 0 {
		p = 6
	}
	if p == 0 {
		p = 1
	}
	exp := 0
	if x.Sign() != 0 {
		e := x.Text('e', p-1)
		exp, _ = strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	}
	var s string
	if p > exp && exp >= -4 {
		s = x.Text('f', p-1-exp)
	} else {
		s = x.Text('e', p-1)
	}
	if sp.alt {
		if !strings.Contains(s, ".") {
			if i := strings.IndexByte(s, 'e'); i >= 0 {
				s = s[:i] + "." + s[i:]
			} else {
				s += "."
			}
		}
		return s
	}
	mant, exps := s, ""
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exps = s[:i], s[i:]
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(mant, "0")
		mant = strings.TrimSuffix(mant, ".")
	}
	return mant + exps
}

// fmtA is glibc's %a for x86 long double: the leading hex digit holds the top
// four bits of the 64-bit mantissa.
func fmtA(sp spec, x *big.Float) (prefix, body string) {
	prefix = "0x"
	if x.Sign() == 0 {
		body = "0"
		if sp.prec > 0 {
			body += "." + strings.Repeat("0", sp.prec)
		} else if sp.alt {
			body += "."
		}
		return prefix, body + "p+0"
	}
	mant := new(big.Float)
	e := x.MantExp(mant)
	m, _ := new(big.Float).SetMantExp(mant, 64).Uint64() // exact: 64-bit precision
	exp := e - 4
	lead := m >> 60
	frac := m & (1<<60 - 1)
	digits := 15
	if sp.prec >= 0 && sp.prec < 15 {
		drop := uint(4 * (15 - sp.prec))
		half := uint64(1) << (drop - 1)
		rem := frac & (1<<drop - 1)
		frac >>= drop
		if rem > half || rem == half && (frac&1 == 1 || sp.prec == 0 && lead&1 == 1) {
			frac++
			if frac>>(4*uint(sp.prec)) != 0 {
				frac = 0
				lead++
				if lead == 16 { // 0xf.f rounds to 0x1p+4 more
					lead = 1
					exp += 4
				}
			}
		}
		digits = sp.prec
	}
	fs := ""
	if digits > 0 {
		fs = strconv.FormatUint(frac, 16)
		fs = strings.Repeat("0", digits-len(fs)) + fs
	}
	if sp.prec < 0 {
		fs = strings.TrimRight(fs, "0")
	}
	if sp.prec > 15 {
		fs += strings.Repeat("0", sp.prec-15)
	}
	body = strconv.FormatUint(lead, 16)
	if fs != "" || sp.alt {
		body += "." + fs
	}
	es := "+"
	if exp < 0 {
		es = "-"
		exp = -exp
	}
	return prefix, body + "p" + es + strconv.Itoa(exp)
}
