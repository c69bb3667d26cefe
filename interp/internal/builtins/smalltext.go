package builtins

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

func init() {
	register("envsubst", envsubst)
	register("expand", expand)
	register("truncate", truncateUtil)
}

// envsubst replaces $NAME and ${NAME} with the exported variables (empty when unset), as GNU
// gettext's envsubst: with a SHELL-FORMAT operand only the names it mentions; -v lists them.
func envsubst(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "envsubst", 1, optSpec{short: "v", long: []string{"variables:v"}}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) > 1 {
		return errorf(env, 1, "envsubst", "too many arguments")
	}
	var only map[string]bool
	if len(fl.operands) == 1 {
		only = map[string]bool{}
		names := envsubstNames(fl.operands[0])
		if fl.has("v") {
			for _, n := range names {
				io.WriteString(env.Stdout, n+"\n")
			}
			return 0
		}
		for _, n := range names {
			only[n] = true
		}
	} else if fl.has("v") {
		return errorf(env, 1, "envsubst", "missing arguments")
	}
	vars := map[string]string{}
	if env.Environ != nil {
		for _, kv := range env.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				vars[k] = v
			}
		}
	}
	data, err := readAll(ctx, ctxRead(ctx, env.Stdin))
	if err != nil {
		return errorf(env, 1, "envsubst", "standard input: %s", describe(err))
	}
	// The output streams: a large variable referenced many times makes far more than the input
	// (a megabyte times a million references), so nothing of it is held, and the call's end
	// and a reader that went away are checked as it grows.
	s := string(data)
	w := bufio.NewWriter(env.Stdout)
	written := 0
	for i := 0; i < len(s); i++ {
		if written >= 1<<16 {
			if written = 0; ctx.Err() != nil || w.Flush() != nil {
				return 1
			}
		}
		if s[i] != '$' {
			w.WriteByte(s[i])
			written++
			continue
		}
		name, end := envsubstRef(s, i)
		if name == "" || (only != nil && !only[name]) {
			w.WriteByte('$')
			written++
			continue
		}
		v := vars[name]
		w.WriteString(v)
		written += len(v) + 1
		i = end - 1
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

// envsubstRef reads $NAME or ${NAME} at s[i]; name is "" when there is none.
func envsubstRef(s string, i int) (name string, end int) {
	j := i + 1
	braced := j < len(s) && s[j] == '{'
	if braced {
		j++
	}
	start := j
	for j < len(s) && (s[j] == '_' || isAlnum(s[j])) && !(j == start && s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j == start {
		return "", 0
	}
	if braced {
		if j >= len(s) || s[j] != '}' {
			return "", 0
		}
		j++
		return s[start : j-1], j
	}
	return s[start:j], j
}

func envsubstNames(format string) []string {
	var out []string
	for i := 0; i < len(format); i++ {
		if format[i] != '$' {
			continue
		}
		if name, end := envsubstRef(format, i); name != "" {
			out = append(out, name)
			i = end - 1
		}
	}
	return out
}

// expand turns tabs into spaces as GNU expand: -t N (every N columns) or a list of stops
// (after the last, a tab is one space), -i for leading tabs only; columns are bytes, a
// backspace steps back.
func expand(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "expand", 1, optSpec{short: "it:", digits: true, permute: true,
		long: []string{"initial:i", "tabs:t"}}, argv[1:])
	if !ok {
		return st
	}
	every, stops := 8, []int(nil)
	var lists []string
	for _, o := range fl.opts {
		if o.name == "t" || o.name == "#" {
			lists = append(lists, o.val)
		}
	}
	if len(lists) > 0 {
		for _, f := range strings.FieldsFunc(strings.Join(lists, ","), func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.Atoi(f)
			if errors.Is(err, strconv.ErrRange) && strings.Trim(f, "0123456789") == "" {
				if _, err := strconv.ParseUint(f, 10, 64); err != nil {
					return errorf(env, 1, "expand", "tab stop is too large %s", localeQuote(env, f))
				}
				n, err = math.MaxInt, nil // GNU takes up to 2^64-1; no column reaches either
			}
			if err != nil || n <= 0 || (len(stops) > 0 && n <= stops[len(stops)-1]) {
				return errorf(env, 1, "expand", "tab size contains invalid character(s): %s", localeQuote(env, f))
			}
			stops = append(stops, n)
		}
		if len(stops) == 1 {
			every, stops = stops[0], nil
		}
	}
	initial := fl.has("i")
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	return eachInput(ctx, env, "expand", fl.operands, func(_ string, r io.Reader) error {
		lr := newLineReader(r)
		for {
			line, nl, ok := lr.next()
			if !ok {
				return lr.err
			}
			col, leading := 0, true
			for _, c := range line {
				switch {
				case c == '\t' && (!initial || leading):
					next := col + min(every-col%every, math.MaxInt-col)
					if stops != nil {
						next = col + 1
						for _, s := range stops {
							if s > col {
								next = s
								break
							}
						}
					}
					// The width comes from -t: written in chunks, never allocated whole.
					if err := writeFill(ctx, w, ' ', next-col); err != nil {
						return err
					}
					col = next
				case c == '\b':
					w.WriteByte(c)
					col = max(col-1, 0)
				default:
					if c != ' ' && c != '\t' {
						leading = false
					}
					w.WriteByte(c)
					col++
				}
			}
			if nl {
				w.WriteByte('\n')
			}
		}
	})
}

// truncate sets files' sizes: -s [+-<>/%]SIZE (K M G T P, KB MB ... for powers of 1000),
// -c to leave missing files missing.
func truncateUtil(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "truncate", 1, optSpec{short: "cs:", permute: true,
		long: []string{"no-create:c", "size:s"}}, argv[1:])
	if !ok {
		return st
	}
	spec, ok := fl.val("s")
	if !ok {
		return errorf(env, 1, "truncate", "you must specify either '--size' or '--reference'")
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "truncate", "missing file operand")
	}
	mode := byte('=')
	if spec != "" && strings.IndexByte("+-<>/%", spec[0]) >= 0 {
		mode, spec = spec[0], spec[1:]
	}
	size, err := parseSizeSuffix(spec)
	if err != nil || size < 0 {
		return errorf(env, 1, "truncate", "Invalid number: %s", localeQuote(env, spec))
	}
	if (mode == '/' || mode == '%') && size == 0 {
		return errorf(env, 1, "truncate", "division by zero")
	}
	status := 0
	for _, name := range fl.operands {
		p := env.Abs(name)
		flag := os.O_WRONLY
		if !fl.has("c") {
			flag |= os.O_CREATE
		}
		if fl.has("c") {
			if _, err := env.FS.Stat(p); err != nil {
				continue
			}
		}
		f, err := env.FS.Open(p, flag, env.Perm(0o666))
		if err != nil {
			status = errorf(env, 1, "truncate", "cannot open %s for writing: %s", localeQuote(env, name), describe(err))
			continue
		}
		fi, err := f.Stat()
		t, can := f.(interface{ Truncate(int64) error })
		if err != nil || !can {
			f.Close()
			status = errorf(env, 1, "truncate", "%s: truncating this file is not available in the sandbox", localeQuote(env, name))
			continue
		}
		cur, want := fi.Size(), size
		switch mode {
		case '+':
			want = cur + size
		case '-':
			want = max(cur-size, 0)
		case '<':
			want = min(cur, size)
		case '>':
			want = max(cur, size)
		case '/':
			want = cur / size * size
		case '%':
			want = (cur + size - 1) / size * size
		}
		if err := t.Truncate(want); err != nil {
			status = errorf(env, 1, "truncate", "failed to truncate %s at %d bytes: %s", localeQuote(env, name), want, describe(err))
		}
		f.Close()
	}
	return status
}

// parseSizeSuffix reads N with an optional K M G T P E suffix (powers of 1024; KB MB ... are
// powers of 1000; KiB is 1024).
func parseSizeSuffix(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	suf := s[i:]
	if suf == "" {
		return n, nil
	}
	pos := strings.IndexByte("KMGTPE", strings.ToUpper(suf[:1])[0])
	if pos < 0 || (suf[0] == 'k' && len(suf) > 1) {
		return 0, strconv.ErrSyntax
	}
	base := int64(1024)
	switch suf[1:] {
	case "", "iB":
	case "B":
		base = 1000
	default:
		return 0, strconv.ErrSyntax
	}
	for range pos + 1 {
		if n > (1<<62)/base {
			return 0, strconv.ErrRange
		}
		n *= base
	}
	return n, nil
}
