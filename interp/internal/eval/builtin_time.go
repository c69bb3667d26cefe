package eval

import (
	"fmt"
	"io"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// The time keyword and its TIMEFORMAT.

// timeClause runs `time cmd` and reports times on stderr.
func (r *Runner) timeClause(c *syntax.TimeClause) {
	start := r.c.now()
	if c.Stmt != nil {
		r.stmt(c.Stmt)
	}
	el := r.c.now().Sub(start)
	if c.PosixFormat {
		fmt.Fprintf(r.stderr(), "real %.2f\nuser 0.00\nsys 0.00\n", el.Seconds())
		return
	}
	if f, ok := r.scalar("TIMEFORMAT"); ok {
		if f != "" {
			io.WriteString(r.stderr(), timeFormat(f, el)+"\n")
		}
		return
	}
	fmt.Fprintf(r.stderr(), "\nreal\t%s\nuser\t0m0.000s\nsys\t0m0.000s\n", fmtDur(el))
}

// timeFormat renders TIMEFORMAT: %[p][l]R, U, S (user and system time are 0 here), %P, %%.
func timeFormat(f string, real time.Duration) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		prec, long := 3, false
		if f[i] >= '0' && f[i] <= '9' {
			prec = min(int(f[i]-'0'), 3)
			i++
		}
		if i < len(f) && f[i] == 'l' {
			long = true
			i++
		}
		if i == len(f) {
			break
		}
		var d time.Duration
		switch f[i] {
		case '%':
			b.WriteByte('%')
			continue
		case 'P':
			b.WriteString("0.00")
			continue
		case 'R':
			d = real
		case 'U', 'S':
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
			continue
		}
		sec := d.Seconds()
		if long {
			m := int(sec / 60)
			fmt.Fprintf(&b, "%dm%.*fs", m, prec, sec-float64(m*60))
		} else {
			fmt.Fprintf(&b, "%.*f", prec, sec)
		}
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	m := int(d.Minutes())
	s := d.Seconds() - float64(m*60)
	return fmt.Sprintf("%dm%.3fs", m, s)
}
