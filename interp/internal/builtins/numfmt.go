package builtins

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

func init() { register("numfmt", numfmt) }

// numfmt converts numbers to and from human units as GNU numfmt: --to/--from si, iec, iec-i
// (and --from=auto), --suffix, --round; numbers are the operands, or the first field of each
// input line. Other options (--format, --padding, --field, ...) are refused.
func numfmt(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "numfmt", 1, optSpec{permute: true,
		long: []string{"to=", "from=", "suffix=", "round="}}, argv[1:])
	if !ok {
		return st
	}
	n := numfmter{round: "from-zero"}
	if v, ok := fl.val("to"); ok {
		if v != "si" && v != "iec" && v != "iec-i" && v != "none" {
			return errorf(env, 1, "numfmt", "invalid argument %s for '--to'", localeQuote(env, v))
		}
		n.to = v
	}
	if v, ok := fl.val("from"); ok {
		if v != "si" && v != "iec" && v != "iec-i" && v != "auto" && v != "none" {
			return errorf(env, 1, "numfmt", "invalid argument %s for '--from'", localeQuote(env, v))
		}
		n.from = v
	}
	n.suffix, _ = fl.val("suffix")
	if v, ok := fl.val("round"); ok {
		switch v {
		case "up", "down", "from-zero", "towards-zero", "nearest":
			n.round = v
		default:
			return errorf(env, 1, "numfmt", "invalid argument %s for '--round'", localeQuote(env, v))
		}
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	status := 0
	convert := func(field string) (string, bool) {
		out, err := n.convert(field)
		if err != nil {
			w.Flush()
			errorf(env, 2, "numfmt", "%s: %s", err, localeQuote(env, field))
			status = 2
			return "", false
		}
		return out, true
	}
	if len(fl.operands) > 0 {
		for _, op := range fl.operands {
			if out, ok := convert(op); ok {
				w.WriteString(out + "\n")
			}
		}
		return status
	}
	lr := newLineReader(ctxRead(ctx, env.Stdin))
	for {
		line, _, ok := lr.next()
		if !ok {
			if lr.err != nil && lr.err != io.EOF {
				return errorf(env, 2, "numfmt", "%s", describe(lr.err))
			}
			return status
		}
		s := string(line)
		lead := len(s) - len(strings.TrimLeft(s, " \t"))
		end := strings.IndexAny(s[lead:], " \t")
		if end < 0 {
			end = len(s) - lead
		}
		out, ok := convert(s[lead : lead+end])
		if !ok {
			return status
		}
		// As GNU: a field with leading blanks is right-aligned to its width; the blank after
		// it becomes a space.
		if lead > 0 && len(out) < lead+end {
			out = strings.Repeat(" ", lead+end-len(out)) + out
		}
		rest := s[lead+end:]
		if rest != "" {
			rest = " " + rest[1:]
		}
		w.WriteString(out + rest + "\n")
	}
}

type numfmter struct {
	to, from, suffix, round string
}

const numfmtUnits = "KMGTPEZY"

func (n numfmter) convert(field string) (string, error) {
	s := strings.TrimSuffix(field, n.suffix)
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], s[i:]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return "", fmt.Errorf("invalid number")
	}
	scaled := false
	if unit != "" {
		p := strings.IndexByte(numfmtUnits, unit[0])
		if p < 0 || n.from == "" || n.from == "none" {
			return "", fmt.Errorf("invalid suffix in input")
		}
		rest := unit[1:]
		base := 1000.0
		switch {
		case n.from == "iec" && rest == "":
			base = 1024
		case n.from == "iec-i" && rest == "i":
			base = 1024
		case n.from == "auto" && rest == "i":
			base = 1024
		case n.from == "auto" && rest == "":
		case n.from == "si" && rest == "":
		default:
			return "", fmt.Errorf("invalid suffix in input")
		}
		v *= math.Pow(base, float64(p+1))
		scaled = true
	}
	if n.to == "" || n.to == "none" {
		if !scaled {
			return num + n.suffix, nil
		}
		return strconv.FormatFloat(n.apply(v), 'f', 0, 64) + n.suffix, nil
	}
	base := 1000.0
	if n.to != "si" {
		base = 1024
	}
	power := 0
	for math.Abs(v) >= base && power < len(numfmtUnits) {
		v /= base
		power++
	}
	adjust := 1.0
	if math.Abs(v) < 10 {
		adjust = 10
	}
	v = n.apply(v*adjust) / adjust
	if math.Abs(v) >= base && power < len(numfmtUnits) {
		v /= base
		power++
	}
	text := ""
	if v != 0 && math.Abs(v) < 10 && power > 0 {
		text = strconv.FormatFloat(v, 'f', 1, 64)
	} else {
		// %.0f rounds half to even, as C's printf does here.
		text = strconv.FormatFloat(math.RoundToEven(v), 'f', 0, 64)
	}
	if power > 0 {
		text += numfmtUnits[power-1 : power]
		if n.to == "iec-i" {
			text += "i"
		}
	}
	return text + n.suffix, nil
}

func (n numfmter) apply(v float64) float64 {
	switch n.round {
	case "up":
		return math.Ceil(v)
	case "down":
		return math.Floor(v)
	case "towards-zero":
		return math.Trunc(v)
	case "nearest":
		return math.Round(v)
	}
	if v < 0 {
		return math.Floor(v)
	}
	return math.Ceil(v)
}
