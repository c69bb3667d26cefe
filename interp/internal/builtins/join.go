package builtins

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
)

func init() { register("join", join) }

// join joins two files sorted on a field, as GNU join: -1/-2/-j the fields, -t the separator
// (default: runs of blanks, leading ones ignored; output with a space), -a/-v unpaired lines,
// -e and -o (a list or auto), -i, --header, --check-order/--nocheck-order.
func join(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "join", 1, optSpec{short: "1:2:a:e:ij:o:t:v:", permute: true,
		long: []string{"ignore-case:i", "check-order", "nocheck-order", "header", "zero-terminated"}}, argv[1:])
	if !ok {
		return st
	}
	if fl.has("zero-terminated") {
		return errorf(env, 1, "join", "unsupported option --zero-terminated")
	}
	if len(fl.operands) != 2 {
		return errorf(env, 1, "join", "requires two files")
	}
	jn := &joiner{held: share{m: meterOf(ctx)}, field: [2]int{0, 0}, sep: "", fold: fl.has("i"), empty: ""}
	var show [2]bool
	only := false
	for _, o := range fl.opts {
		switch o.name {
		case "1", "2", "j":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				return errorf(env, 1, "join", "invalid field number: %s", localeQuote(env, o.val))
			}
			if o.name != "2" {
				jn.field[0] = n - 1
			}
			if o.name != "1" {
				jn.field[1] = n - 1
			}
		case "a", "v":
			if o.val != "1" && o.val != "2" {
				return errorf(env, 1, "join", "invalid file number: %s", localeQuote(env, o.val))
			}
			show[o.val[0]-'1'] = true
			only = only || o.name == "v"
		case "e":
			jn.empty = o.val
		case "t":
			if len(o.val) != 1 {
				return errorf(env, 1, "join", "multi-character tab %s", localeQuote(env, o.val))
			}
			jn.sep = o.val
		case "o":
			if o.val == "auto" {
				jn.auto = true
				continue
			}
			for _, item := range strings.FieldsFunc(o.val, func(r rune) bool { return r == ',' || r == ' ' }) {
				spec, err := joinSpec(item)
				if err != nil {
					return errorf(env, 1, "join", "invalid field specifier: %s", localeQuote(env, item))
				}
				jn.format = append(jn.format, spec)
			}
		}
	}
	var lines [2][]string
	for i, name := range fl.operands {
		ls, st := readAllInputs(ctx, env, "join", []string{name}, '\n')
		if st != 0 {
			return st
		}
		lines[i] = ls
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	jn.w = w
	var pos [2]int
	if fl.has("header") && len(lines[0]) > 0 && len(lines[1]) > 0 {
		jn.joined(jn.fields(0, lines[0][0]), jn.fields(1, lines[1][0]))
		pos = [2]int{1, 1}
	} else if jn.auto {
		for i := range 2 {
			if len(lines[i]) > 0 {
				jn.width[i] = len(jn.fields(i, lines[i][0]))
			}
		}
	}
	if jn.auto && fl.has("header") {
		for i := range 2 {
			if len(lines[i]) > 0 {
				jn.width[i] = len(jn.fields(i, lines[i][0]))
			}
		}
	}
	checkOrder, noCheck := fl.has("check-order"), fl.has("nocheck-order")
	unpaired := false
	var warned [2]bool
	status := 0
	// advance moves past line k of file i, reporting a line out of order as GNU join does.
	advance := func(i int) bool {
		k := pos[i]
		pos[i]++
		if pos[i] < len(lines[i]) && !warned[i] && !noCheck && (checkOrder || unpaired) &&
			jn.cmp(jn.key(i, lines[i][pos[i]]), jn.key(i, lines[i][k])) < 0 {
			w.Flush()
			errorf(env, 1, "join", "%s:%d: is not sorted: %s", fl.operands[i], pos[i]+1, lines[i][pos[i]])
			warned[i] = true
			status = 1
			return !checkOrder
		}
		return true
	}
	emitUnpaired := func(i int) {
		unpaired = true
		if show[i] {
			jn.unpaired(i, jn.fields(i, lines[i][pos[i]]))
		}
	}
	for pos[0] < len(lines[0]) && pos[1] < len(lines[1]) {
		if ctx.Err() != nil {
			return 130
		}
		c := jn.cmp(jn.key(0, lines[0][pos[0]]), jn.key(1, lines[1][pos[1]]))
		switch {
		case c < 0:
			emitUnpaired(0)
			if !advance(0) {
				return 1
			}
		case c > 0:
			emitUnpaired(1)
			if !advance(1) {
				return 1
			}
		default:
			key := jn.key(0, lines[0][pos[0]])
			var g [2][]string
			for i := range 2 {
				for pos[i] < len(lines[i]) && jn.cmp(jn.key(i, lines[i][pos[i]]), key) == 0 {
					g[i] = append(g[i], lines[i][pos[i]])
					if !advance(i) {
						return 1
					}
				}
			}
			if !only {
				// One key can pair every line with every other (N*M lines from N+M): the
				// pairing checks the call's end as the outer loop does.
				for _, a := range g[0] {
					fa := jn.fields(0, a)
					for _, b := range g[1] {
						if ctx.Err() != nil {
							return 130
						}
						jn.joined(fa, jn.fields(1, b))
					}
				}
			}
		}
	}
	for i := range 2 {
		for pos[i] < len(lines[i]) {
			emitUnpaired(i)
			if !advance(i) {
				return 1
			}
		}
	}
	if warned[0] || warned[1] {
		w.Flush()
		return errorf(env, 1, "join", "input is not in sorted order")
	}
	return status
}

type joinField struct{ file, n int } // file -1: the join field ("0")

func joinSpec(s string) (joinField, error) {
	if s == "0" {
		return joinField{-1, 0}, nil
	}
	f, n, ok := strings.Cut(s, ".")
	k, err := strconv.Atoi(n)
	if !ok || (f != "1" && f != "2") || err != nil || k < 1 {
		return joinField{}, fmt.Errorf("bad")
	}
	return joinField{int(f[0] - '1'), k - 1}, nil
}

type joiner struct {
	// held is what the last split line's fields hold of the call's memory.
	held   share
	w      *bufio.Writer
	field  [2]int
	sep    string
	fold   bool
	empty  string
	format []joinField
	auto   bool
	width  [2]int
}

func isJoinBlank(r rune) bool { return r == ' ' || r == '\t' }

// fields splits a line for output. What it and the output line hold is charged first (a line of 64 MB of
// separators is 64 million fields), and held until the next line is split.
func (j *joiner) fields(i int, line string) []string {
	n := strings.Count(line, j.sep) + 1
	if j.sep == "" {
		n = len(line)/2 + 1 // at most this many blank-separated fields
	}
	// Each field is a header here and another in the output line, which is as long again.
	if j.held.set(int64(n)*32+int64(len(line))) != nil {
		return nil // the budget ended the call
	}
	if j.sep == "" {
		return strings.FieldsFunc(line, isJoinBlank)
	}
	return strings.Split(line, j.sep)
}

// key is the join field of a line, found without splitting it (it is taken for every
// comparison).
func (j *joiner) key(i int, line string) string {
	want := j.field[i]
	if j.sep == "" {
		for k := 0; ; k++ {
			line = strings.TrimLeftFunc(line, isJoinBlank)
			if line == "" {
				return ""
			}
			end := strings.IndexFunc(line, isJoinBlank)
			if end < 0 {
				end = len(line)
			}
			if k == want {
				return line[:end]
			}
			line = line[end:]
		}
	}
	for k := 0; k < want; k++ {
		at := strings.Index(line, j.sep)
		if at < 0 {
			return ""
		}
		line = line[at+len(j.sep):]
	}
	if at := strings.Index(line, j.sep); at >= 0 {
		return line[:at]
	}
	return line
}

func (j *joiner) cmp(a, b string) int {
	if j.fold {
		a, b = asciiUpper(a), asciiUpper(b)
	}
	return strings.Compare(a, b)
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func (j *joiner) outSep() string {
	if j.sep == "" {
		return " "
	}
	return j.sep
}

// line writes one output line from the two lines' fields (nil for a missing side).
func (j *joiner) line(f [2][]string, keyFrom int) {
	var out []string
	get := func(i, n int) string {
		if f[i] != nil && n < len(f[i]) && (f[i][n] != "" || j.empty == "") {
			return f[i][n]
		}
		return j.empty // a missing field, or an empty one: GNU fills both
	}
	key := get(keyFrom, j.field[keyFrom])
	switch {
	case len(j.format) > 0:
		for _, s := range j.format {
			if s.file < 0 {
				out = append(out, key)
			} else {
				out = append(out, get(s.file, s.n))
			}
		}
	default:
		out = append(out, key)
		for i := range 2 {
			n := len(f[i])
			if j.auto {
				n = j.width[i]
			}
			for k := 0; k < n; k++ {
				if k != j.field[i] {
					if j.auto || f[i] != nil {
						out = append(out, get(i, k))
					}
				}
			}
		}
	}
	j.w.WriteString(strings.Join(out, j.outSep()) + "\n")
}

func (j *joiner) joined(a, b []string) { j.line([2][]string{a, b}, 0) }

func (j *joiner) unpaired(i int, f []string) {
	var both [2][]string
	both[i] = f
	j.line(both, i)
}
