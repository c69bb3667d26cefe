package printf

import (
	"strconv"
	"strings"
	"time"
)

// Strftime formats t as glibc's strftime in the C locale (what Bash's
// %(fmt)T prints in C.UTF-8), with the flags _ - 0 ^ # and field widths.
// Unknown conversions are copied literally, as glibc does. The width and
// flags of %z are not modelled (a plain %z is). Bash prints nothing for a result of
// strftimeBuf bytes or more, so the rendering stops there and widths are taken at most as that:
// a width or a format from the script never sizes more than that.
func Strftime(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f) && b.Len() < strftimeBuf; i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		start := i
		i++
		var pad byte
		upper, swap := false, false
	flags:
		for ; i < len(f); i++ {
			switch f[i] {
			case '_', '-', '0':
				pad = f[i]
			case '^':
				upper = true
			case '#':
				swap = true
			default:
				break flags
			}
		}
		width := -1
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			if width < 0 {
				width = 0
			}
			width = min(width*10+int(f[i]-'0'), strftimeBuf)
			i++
		}
		if i < len(f) && (f[i] == 'E' || f[i] == 'O') {
			i++
		}
		if i >= len(f) {
			b.WriteString(addPad(f[start:], pad, width))
			break
		}
		b.WriteString(tmField(t, f[i], f[start:i+1], pad, width, upper, swap))
	}
	return b.String()
}

var (
	weekdays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = [...]string{"January", "February", "March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December"}
)

// addPad pads s to width as glibc's add(): zeros with the 0 flag, else spaces.
func addPad(s string, pad byte, width int) string {
	if width <= len(s) {
		return s
	}
	c := " "
	if pad == '0' {
		c = "0"
	}
	return strings.Repeat(c, width-len(s)) + s
}

func tmNumber(v int64, digits int, spacePad bool, pad byte, width int) string {
	if pad == 0 && spacePad {
		pad = '_'
	}
	if width > digits {
		digits = width
	}
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	if pad != '-' {
		n := digits - len(s)
		if neg {
			n--
		}
		if n > 0 {
			if pad == '_' {
				if neg {
					s = "-" + s
					neg = false
				}
				s = strings.Repeat(" ", n) + s
			} else {
				s = strings.Repeat("0", n) + s
			}
		}
	}
	if neg {
		s = "-" + s
	}
	return addPad(s, pad, width)
}

func tmString(s string, pad byte, width int, upper bool) string {
	if upper {
		s = strings.ToUpper(s)
	}
	return addPad(s, pad, width)
}

func tmField(t time.Time, c byte, literal string, pad byte, width int, upper, swap bool) string {
	num := func(v int, digits int) string { return tmNumber(int64(v), digits, false, pad, width) }
	spnum := func(v int, digits int) string { return tmNumber(int64(v), digits, true, pad, width) }
	sub := func(f string) string { return tmString(Strftime(t, f), pad, width, upper) }
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	wday := int(t.Weekday())
	yday := t.YearDay() - 1
	switch c {
	case 'a':
		return tmString(weekdays[wday][:3], pad, width, upper || swap)
	case 'A':
		return tmString(weekdays[wday], pad, width, upper || swap)
	case 'b', 'h':
		return tmString(months[t.Month()-1][:3], pad, width, upper || swap)
	case 'B':
		return tmString(months[t.Month()-1], pad, width, upper || swap)
	case 'c':
		return sub("%a %b %e %H:%M:%S %Y")
	case 'C':
		return num(t.Year()/100, 2)
	case 'd':
		return num(t.Day(), 2)
	case 'D', 'x':
		return sub("%m/%d/%y")
	case 'e':
		return spnum(t.Day(), 2)
	case 'F':
		return sub("%Y-%m-%d")
	case 'g':
		y, _ := t.ISOWeek()
		return num((y%100+100)%100, 2)
	case 'G':
		y, _ := t.ISOWeek()
		return num(y, 1)
	case 'H':
		return num(t.Hour(), 2)
	case 'I':
		return num(hour12, 2)
	case 'j':
		return num(yday+1, 3)
	case 'k':
		return spnum(t.Hour(), 2)
	case 'l':
		return spnum(hour12, 2)
	case 'm':
		return num(int(t.Month()), 2)
	case 'M':
		return num(t.Minute(), 2)
	case 'n':
		return tmString("\n", pad, width, false)
	case 't':
		return tmString("\t", pad, width, false)
	case 'p', 'P':
		s := "AM"
		if t.Hour() >= 12 {
			s = "PM"
		}
		if c == 'P' || swap {
			s = strings.ToLower(s)
		}
		return tmString(s, pad, width, upper && c == 'p' && !swap)
	case 'r':
		return sub("%I:%M:%S %p")
	case 'R':
		return sub("%H:%M")
	case 's':
		return tmNumber(t.Unix(), 1, true, pad, width)
	case 'S':
		return num(t.Second(), 2)
	case 'T', 'X':
		return sub("%H:%M:%S")
	case 'u':
		if wday == 0 {
			return num(7, 1)
		}
		return num(wday, 1)
	case 'U':
		return num((yday+7-wday)/7, 2)
	case 'V':
		_, w := t.ISOWeek()
		return num(w, 2)
	case 'w':
		return num(wday, 1)
	case 'W':
		return num((yday+7-(wday+6)%7)/7, 2)
	case 'y':
		return num((t.Year()%100+100)%100, 2)
	case 'Y':
		return num(t.Year(), 1)
	case 'z':
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		return sign + tmNumber(int64(off/3600*100+off/60%60), 4, false, 0, -1)
	case 'Z':
		name, _ := t.Zone()
		if swap {
			name = strings.ToLower(name)
		}
		return tmString(name, pad, width, upper && !swap)
	case '%':
		return tmString("%", pad, width, false)
	}
	return addPad(literal, pad, width)
}
