package eval

import (
	"fmt"
	"strconv"
	"strings"
)

// umask: the shell's virtual file-creation mask.

// umask is virtual: it only shapes the permissions of files the shell creates.
func (r *Runner) umask() uint32 {
	if r.umaskSet {
		return r.umaskVal
	}
	return 0o022
}

func biUmask(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("umask", args[1:], "pS", false)
	if !ok {
		return 2
	}
	p, sym := false, false
	for _, o := range opts {
		if o.c == 'p' {
			p = true
		} else {
			sym = true
		}
	}
	if len(rest) == 0 {
		m := r.umask()
		var s string
		if sym {
			s = umaskSymbolic(m)
		} else {
			s = fmt.Sprintf("%04o", m)
		}
		if p {
			if sym {
				s = "umask -S " + s
			} else {
				s = "umask " + s
			}
		}
		return r.out("umask", s+"\n")
	}
	a := rest[0]
	if a != "" && a[0] >= '0' && a[0] <= '9' {
		n, err := strconv.ParseUint(a, 8, 32)
		if err != nil || n > 0o777 {
			r.errorf("umask: %s: octal number out of range", a)
			return 1
		}
		r.umaskVal, r.umaskSet = uint32(n), true
		return 0
	}
	m, bad, what := parseSymbolicUmask(r.umask(), a)
	if bad >= 0 {
		// Bash names the character where the mode went wrong: the end of the text is its
		// terminating NUL (umask '' and umask u say `\0').
		c := byte(0)
		if bad < len(a) {
			c = a[bad]
		}
		r.errorf("umask: `%c': invalid symbolic mode %s", c, what)
		return 1
	}
	r.umaskVal, r.umaskSet = m, true
	return 0
}

func umaskSymbolic(m uint32) string {
	perm := ^m & 0o777
	part := func(shift uint) string {
		var s string
		p := (perm >> shift) & 7
		if p&4 != 0 {
			s += "r"
		}
		if p&2 != 0 {
			s += "w"
		}
		if p&1 != 0 {
			s += "x"
		}
		return s
	}
	return "u=" + part(6) + ",g=" + part(3) + ",o=" + part(0)
}

// parseSymbolicUmask applies a symbolic mode (u=rwx,g=rx,o=) to a umask; bad is the offset
// in s where the mode is not one (-1 when it is), what bash calls the text there ("operator"
// or "character").
func parseSymbolicUmask(cur uint32, s string) (mask uint32, bad int, what string) {
	perm := ^cur & 0o777
	start := 0
	for _, clause := range strings.Split(s, ",") {
		base := start
		start += len(clause) + 1
		i := 0
		var who uint32
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			switch clause[i] {
			case 'u':
				who |= 0o700
			case 'g':
				who |= 0o070
			case 'o':
				who |= 0o007
			case 'a':
				who |= 0o777
			}
			i++
		}
		if who == 0 {
			who = 0o777
		}
		if i >= len(clause) {
			return 0, base + i, "operator"
		}
		op := clause[i]
		if op != '=' && op != '+' && op != '-' {
			return 0, base + i, "operator"
		}
		var bits uint32
		for k, c := range clause[i+1:] {
			switch c {
			case 'r':
				bits |= 0o444
			case 'w':
				bits |= 0o222
			case 'x':
				bits |= 0o111
			default:
				return 0, base + i + 1 + k, "character"
			}
		}
		bits &= who
		switch op {
		case '=':
			perm = perm&^who | bits
		case '+':
			perm |= bits
		case '-':
			perm &^= bits
		}
	}
	return ^perm & 0o777, -1, ""
}
