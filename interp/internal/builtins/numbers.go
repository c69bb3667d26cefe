package builtins

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() {
	register("seq", seq)
	register("expr", expr)
}

// seq prints a sequence; integer arguments give integer output, otherwise the precision
// of the widest FIRST/INCREMENT decimal part, as GNU seq does.
func seq(ctx context.Context, env *Env, argv []string) int {
	sep, format, equal := "\n", "", false
	args := argv[1:]
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && !isNumberStart(args[0][1]) {
		a := args[0]
		switch {
		case a == "--":
			args = args[1:]
			goto operands
		case a == "-w" || a == "--equal-width":
			equal = true
		case a == "-s" || a == "-f" || a == "--separator" || a == "--format":
			if len(args) < 2 {
				return errorf(env, 1, "seq", "option requires an argument -- '%c'", a[len(a)-1])
			}
			if a[1] == 's' || a == "--separator" {
				sep = args[1]
			} else {
				format = args[1]
			}
			args = args[1:]
		case strings.HasPrefix(a, "-s"):
			sep = a[2:]
		case strings.HasPrefix(a, "-f"):
			format = a[2:]
		default:
			return errorf(env, 1, "seq", "unsupported option %s", a)
		}
		args = args[1:]
	}
operands:
	if format != "" {
		f, err := seqFormat(format)
		if err != "" {
			return errorf(env, 1, "seq", "format '%s' %s", format, err)
		}
		format = f
	}
	if len(args) == 0 || len(args) > 3 {
		if len(args) == 0 {
			return errorf(env, 1, "seq", "missing operand")
		}
		return errorf(env, 1, "seq", "extra operand '%s'", args[3])
	}
	nums := make([]float64, len(args))
	prec, integer := 0, true
	for i, a := range args {
		f, err := strconv.ParseFloat(a, 64)
		if err != nil {
			return errorf(env, 1, "seq", "invalid floating point argument: '%s'", a)
		}
		nums[i] = f
		if strings.ContainsAny(a, ".eEpPxXnN") {
			integer = false
		}
		if dot := strings.IndexByte(a, '.'); dot >= 0 && i < 2 && len(args) > 1 || dot >= 0 && len(args) == 1 {
			prec = max(prec, len(a)-dot-1)
		}
	}
	first, incr, last := 1.0, 1.0, nums[len(nums)-1]
	if len(nums) >= 2 {
		first = nums[0]
	}
	if len(nums) == 3 {
		incr = nums[1]
	}
	if incr == 0 {
		return errorf(env, 1, "seq", "invalid Zero increment value: '%s'", args[1])
	}
	render := func(v float64) string {
		switch {
		case format != "":
			return fmt.Sprintf(format, v)
		case integer:
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	width := 0
	if equal && format == "" {
		width = max(len(render(first)), len(render(last)))
	}
	w := bufio.NewWriter(env.Stdout)
	n := 0
	for ; ; n++ {
		v := first + float64(n)*incr
		if incr > 0 && v > last || incr < 0 && v < last {
			break
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return 130
		}
		if n > 0 {
			w.WriteString(sep)
		}
		s := render(v)
		for len(s) < width {
			if s[0] == '-' {
				s = "-0" + s[1:]
			} else {
				s = "0" + s
			}
		}
		if _, err := w.WriteString(s); err != nil {
			return 1
		}
	}
	if n > 0 {
		w.WriteString("\n")
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

func isNumberStart(c byte) bool { return c >= '0' && c <= '9' || c == '.' }

// errExprSyntax is an invalid expr expression (exit 2).
var errExprSyntax = errors.New("syntax error")

type exprParser struct {
	args []string
	i    int
}

// expr evaluates its arguments: | & < <= = == != >= > + - * / % : match substr index
// length + ( ). Exit 0 when the result is neither empty nor 0, 1 otherwise, 2 on errors.
func expr(ctx context.Context, env *Env, argv []string) int {
	args := argv[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errorf(env, 2, "expr", "missing operand")
	}
	p := &exprParser{args: args}
	v, err := p.or()
	if err == nil && p.i < len(args) {
		err = fmt.Errorf("syntax error: unexpected argument '%s'", args[p.i])
	}
	if errors.Is(err, errExprBigInteger) {
		return unsupported(env, "expr", fmt.Sprintf("arithmetic on an integer of more than %d digits", exprMaxDigits), nativeFix)
	}
	if err != nil {
		return errorf(env, 2, "expr", "%v", err)
	}
	fmt.Fprintln(env.Stdout, v)
	if v == "" || v == "0" || v == "-0" {
		return 1
	}
	if exprNull(v) {
		return 1
	}
	return 0
}

func (p *exprParser) peek() string {
	if p.i < len(p.args) {
		return p.args[p.i]
	}
	return ""
}

func (p *exprParser) more() bool { return p.i < len(p.args) }

// exprMaxDigits bounds the integers expr computes with (GNU's is GMP's, unbounded): reading,
// multiplying and printing integers is quadratic or nearly so in their digits, in one Go call
// without a check of the call's end (3 million digits took 17 s).
const exprMaxDigits = 100000

// errExprBigInteger: an arithmetic operand past exprMaxDigits (a refusal, not expr's error).
var errExprBigInteger = errors.New("integer too long")

func exprInt(s string) (*big.Int, bool) {
	if s == "" || strings.TrimLeft(s, "-") == "" {
		return nil, false
	}
	if len(s) > exprMaxDigits {
		// Comparisons and tests of such a number need no value: see exprLongInt.
		return nil, false
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok && !strings.HasPrefix(s, "+")
}

// exprLongInt reports whether s, longer than exprMaxDigits, is an integer as exprInt reads one
// (an optional minus, then digits), without reading its value.
func exprLongInt(s string) bool {
	if len(s) <= exprMaxDigits {
		return false
	}
	d := strings.TrimPrefix(s, "-")
	return d != "" && strings.Trim(d, "0123456789") == ""
}

// exprCompareInts compares two integers as text (an optional minus, digits): what big.Int's
// Cmp gives, for integers too long to read.
func exprCompareInts(a, b string) int {
	na, nb := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	a, b = strings.TrimLeft(strings.TrimPrefix(a, "-"), "0"), strings.TrimLeft(strings.TrimPrefix(b, "-"), "0")
	if a == "" && b == "" {
		return 0
	}
	mag := len(a) - len(b)
	if mag == 0 {
		mag = strings.Compare(a, b)
	}
	switch {
	case na && a != "" && (!nb || b == ""):
		return -1
	case nb && b != "" && (!na || a == ""):
		return 1
	case na:
		return -cmp.Compare(mag, 0)
	}
	return cmp.Compare(mag, 0)
}

func exprNull(s string) bool {
	if exprLongInt(s) {
		return strings.Trim(strings.TrimPrefix(s, "-"), "0") == ""
	}
	n, ok := exprInt(s)
	return s == "" || ok && n.Sign() == 0
}

func (p *exprParser) or() (string, error) {
	l, err := p.and()
	for err == nil && p.more() && p.peek() == "|" {
		p.i++
		var r string
		if r, err = p.and(); err == nil && exprNull(l) {
			l = r
			if exprNull(r) {
				l = "0"
			}
		}
	}
	return l, err
}

func (p *exprParser) and() (string, error) {
	l, err := p.compare()
	for err == nil && p.more() && p.peek() == "&" {
		p.i++
		var r string
		if r, err = p.compare(); err == nil && (exprNull(l) || exprNull(r)) {
			l = "0"
		}
	}
	return l, err
}

func (p *exprParser) compare() (string, error) {
	l, err := p.sum()
	for err == nil && p.more() {
		op := p.peek()
		if op != "<" && op != "<=" && op != "=" && op != "==" && op != "!=" && op != ">=" && op != ">" {
			break
		}
		p.i++
		var r string
		if r, err = p.sum(); err != nil {
			break
		}
		var c int
		a, aok := exprInt(l)
		b, bok := exprInt(r)
		switch la, lb := exprLongInt(l), exprLongInt(r); {
		case (la || lb) && (la || aok) && (lb || bok):
			c = exprCompareInts(l, r)
		case aok && bok:
			c = a.Cmp(b)
		default:
			c = strings.Compare(l, r)
		}
		res := map[string]bool{"<": c < 0, "<=": c <= 0, "=": c == 0, "==": c == 0, "!=": c != 0, ">=": c >= 0, ">": c > 0}[op]
		l = map[bool]string{true: "1", false: "0"}[res]
	}
	return l, err
}

func (p *exprParser) arith(next func() (string, error), ops string) (string, error) {
	l, err := next()
	for err == nil && p.more() && len(p.peek()) == 1 && strings.Contains(ops, p.peek()) {
		op := p.peek()
		p.i++
		var r string
		if r, err = next(); err != nil {
			break
		}
		if exprLongInt(l) || exprLongInt(r) {
			return "", errExprBigInteger
		}
		a, aok := exprInt(l)
		b, bok := exprInt(r)
		if !aok || !bok {
			return "", errors.New("non-integer argument")
		}
		z := new(big.Int)
		switch op {
		case "+":
			z.Add(a, b)
		case "-":
			z.Sub(a, b)
		case "*":
			z.Mul(a, b)
		case "/", "%":
			if b.Sign() == 0 {
				return "", errors.New("division by zero")
			}
			if op == "/" {
				z.Quo(a, b)
			} else {
				z.Rem(a, b)
			}
		}
		l = z.String()
	}
	return l, err
}

func (p *exprParser) sum() (string, error)     { return p.arith(p.product, "+-") }
func (p *exprParser) product() (string, error) { return p.arith(p.match, "*/%") }

func (p *exprParser) match() (string, error) {
	l, err := p.primary()
	for err == nil && p.more() && p.peek() == ":" {
		p.i++
		var r string
		if r, err = p.primary(); err == nil {
			l, err = exprMatch(l, r)
		}
	}
	return l, err
}

// exprMatch anchors a BRE at the start: the first group's text, else the match length.
func exprMatch(s, pattern string) (string, error) {
	t, err := toRE2(pattern, false)
	if err != nil {
		return "", err
	}
	re, err := sandbox.CompileRegexp("^(?:" + t + ")")
	if err != nil {
		return "", fmt.Errorf("invalid regular expression: %v", err)
	}
	re.Longest()
	m := re.FindStringSubmatchIndex(s)
	if re.NumSubexp() > 0 {
		if m == nil || m[2] < 0 {
			return "", nil
		}
		return s[m[2]:m[3]], nil
	}
	if m == nil {
		return "0", nil
	}
	return strconv.Itoa(utf8.RuneCountInString(s[:m[1]])), nil
}

func (p *exprParser) operand() (string, error) {
	if !p.more() {
		return "", errExprSyntax
	}
	p.i++
	return p.args[p.i-1], nil
}

func (p *exprParser) primary() (string, error) {
	if !p.more() {
		return "", errExprSyntax
	}
	switch tok := p.peek(); tok {
	case "(":
		p.i++
		v, err := p.or()
		if err != nil {
			return "", err
		}
		if p.peek() != ")" {
			return "", errors.New("syntax error: expecting ')'")
		}
		p.i++
		return v, nil
	case "+":
		p.i++
		return p.operand()
	case "length", "match", "substr", "index":
		if p.i+1 >= len(p.args) {
			break
		}
		p.i++
		return p.function(tok)
	}
	return p.operand()
}

func (p *exprParser) function(name string) (string, error) {
	n := map[string]int{"length": 1, "match": 2, "index": 2, "substr": 3}[name]
	var a []string
	for k := 0; k < n; k++ {
		v, err := p.primary()
		if err != nil {
			return "", err
		}
		a = append(a, v)
	}
	switch name {
	case "length":
		return strconv.Itoa(utf8.RuneCountInString(a[0])), nil
	case "match":
		return exprMatch(a[0], a[1])
	case "index":
		// Characters are counted in place: a rune slice of a long argument is four times it.
		i := 0
		for _, r := range a[0] {
			if i++; strings.ContainsRune(a[1], r) {
				return strconv.Itoa(i), nil
			}
		}
		return "0", nil
	}
	pos, ok1 := exprSize(a[1])
	length, ok2 := exprSize(a[2])
	if !ok1 || !ok2 || pos < 1 || length < 1 {
		return "", nil
	}
	from, to, i := -1, len(a[0]), 0
	for at := range a[0] {
		if i == pos-1 {
			from = at
		}
		if from >= 0 && i-(pos-1) == length {
			to = at
			break
		}
		i++
	}
	if from < 0 {
		return "", nil
	}
	// As a string of runes, as before: an invalid byte reads as U+FFFD.
	return string([]rune(a[0][from:to])), nil
}

// exprSize reads a substr position or length as GNU expr does: an integer is an optional -
// then digits only (+2 and 2.0 are not), a negative one gives no substring, and one past
// the int range is the largest size (a length of 10^20 runs to the end of the string).
func exprSize(s string) (int, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || strings.Trim(d, "0123456789") != "" {
		return 0, false
	}
	if len(d) != len(s) {
		return 0, strings.Trim(d, "0") == "" // -0 is 0
	}
	n, err := strconv.Atoi(d)
	if err != nil {
		return math.MaxInt, true
	}
	return n, true
}

// maxFormatWidth is the largest width or precision Go's fmt formats (past it prints
// %!(BADWIDTH) or %!(NOVERB)): a format asking for more is refused, never printed wrong.
const maxFormatWidth = 1_000_000

// seqFormat checks a seq -f format as GNU seq does (one floating-point directive, %% for a
// percent sign) and returns it for Go's fmt; the error completes "format 'F' ...". C's %g is
// Go's %v here (the shortest form of small values, as seq's tests use it); %a and the C
// length modifiers are refused, not approximated.
func seqFormat(format string) (string, string) {
	var b strings.Builder
	seen := false
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b.WriteString("%%")
			i++
			continue
		}
		if seen {
			return "", "has too many % directives"
		}
		seen = true
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0'", format[j]) >= 0 {
			j++
		}
		flags := strings.ReplaceAll(format[i+1:j], "'", "") // grouping: the C locale has none
		w := j
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		width := format[w:j]
		prec := ""
		if j < len(format) && format[j] == '.' {
			p := j
			j++
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			prec = format[p:j]
		}
		for _, n := range []string{width, strings.TrimPrefix(prec, ".")} {
			if v, err := strconv.Atoi(n); n != "" && (err != nil || v > maxFormatWidth) {
				return "", fmt.Sprintf("asks for a width or precision over %d, which the sandbox does not print; use a smaller one", maxFormatWidth)
			}
		}
		if j >= len(format) {
			return "", "ends in %"
		}
		verb := format[j]
		switch verb {
		case 'e', 'E', 'f', 'F', 'G':
		case 'g':
			if prec == "" {
				verb = 'v'
			}
		case 'a', 'A':
			return "", "has a %" + string(verb) + " directive, which the sandbox does not print (hexadecimal floats); use %e or %f"
		default:
			return "", "has unknown %" + string(verb) + " directive"
		}
		b.WriteString("%" + flags + width + prec + string(verb))
		i = j
	}
	if !seen {
		return "", "has no % directive"
	}
	return b.String(), ""
}
