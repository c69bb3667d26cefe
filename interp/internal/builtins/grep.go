package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() {
	register("grep", grep)
	register("egrep", func(ctx context.Context, env *Env, argv []string) int {
		return grep(ctx, env, append([]string{"grep", "-E"}, argv[1:]...))
	})
	register("fgrep", func(ctx context.Context, env *Env, argv []string) int {
		return grep(ctx, env, append([]string{"grep", "-F"}, argv[1:]...))
	})
}

var grepSpec = optSpec{
	short: "EFGPiyvcnoqlLrRwxe:f:A:B:C:hHsm:aIzZ",
	long: []string{"extended-regexp:E", "fixed-strings:F", "basic-regexp:G", "perl-regexp:P", "ignore-case:i",
		"invert-match:v", "count:c", "line-number:n", "only-matching:o", "quiet:q", "silent:q",
		"files-with-matches:l", "files-without-match:L", "recursive:r", "dereference-recursive:R",
		"word-regexp:w", "line-regexp:x", "regexp:e", "file:f", "after-context:A", "before-context:B",
		"context:C", "no-filename:h", "with-filename:H", "no-messages:s", "max-count:m", "text:a",
		"null:Z", "include=", "exclude=", "exclude-dir=", "color=?", "colour=?", "label=", "binary-files="},
	permute: true,
	digits:  true,
}

// grepOptions is a parsed grep command line.
type grepOptions struct {
	invert, count, number, only, quiet, listFiles, listMissing, recursive, deref bool
	noName, withName, silent, text, nulName                                      bool
	after, before, maxCount                                                      int
	include, exclude, excludeDir                                                 []string
	label                                                                        string
	re                                                                           grepMatcher
	matchAll                                                                     bool // an empty pattern: every line matches
	longest                                                                      bool // re is leftmost-longest (POSIX modes)
}

// grep is GNU grep over the sandbox with RE2 matching (leftmost-longest, no backreferences).
func grep(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "grep", 2, grepSpec, argv[1:])
	if !ok {
		return st
	}
	o, operands, st := grepConfig(ctx, env, fl)
	if o == nil {
		return st
	}
	return grepRun(ctx, env, o, operands)
}

func grepConfig(ctx context.Context, env *Env, fl *flagSet) (*grepOptions, []string, int) {
	o := &grepOptions{maxCount: -1, label: "(standard input)"}
	mode, icase, word, line := "G", false, false, false
	var patterns []string
	havePattern := false
	for _, op := range fl.opts {
		switch op.name {
		case "E", "F", "G", "P":
			mode = op.name
		case "i", "y":
			icase = true
		case "v":
			o.invert = true
		case "c":
			o.count = true
		case "n":
			o.number = true
		case "o":
			o.only = true
		case "q":
			o.quiet = true
		case "l":
			o.listFiles = true
		case "L":
			o.listMissing = true
		case "r":
			o.recursive = true
		case "R":
			o.recursive, o.deref = true, true
		case "w":
			word = true
		case "x":
			line = true
		case "h":
			o.noName, o.withName = true, false
		case "H":
			o.withName, o.noName = true, false
		case "s":
			o.silent = true
		case "a":
			o.text = true
		case "Z":
			o.nulName = true
		case "e":
			patterns, havePattern = append(patterns, strings.Split(op.val, "\n")...), true
		case "f":
			data, err := env.FS.ReadFile(env.Abs(op.val))
			if op.val == "-" {
				data, err = readAll(ctx, ctxRead(ctx, env.Stdin))
			}
			if err != nil {
				return nil, nil, errorf(env, 2, "grep", "%s: %s", op.val, describe(err))
			}
			havePattern = true
			if s := strings.TrimSuffix(string(data), "\n"); s != "" || len(data) > 0 {
				patterns = append(patterns, strings.Split(s, "\n")...)
			}
		case "A", "B", "C", "#":
			n, err := strconv.Atoi(op.val)
			if err != nil || n < 0 {
				return nil, nil, errorf(env, 2, "grep", "%s: invalid context length argument", op.val)
			}
			if op.name != "B" {
				o.after = n
			}
			if op.name != "A" {
				o.before = n
			}
		case "m":
			n, err := strconv.Atoi(op.val)
			if err != nil {
				return nil, nil, errorf(env, 2, "grep", "invalid max count")
			}
			o.maxCount = n
		case "include":
			o.include = append(o.include, op.val)
		case "exclude":
			o.exclude = append(o.exclude, op.val)
		case "exclude-dir":
			o.excludeDir = append(o.excludeDir, op.val)
		case "label":
			o.label = op.val
		case "binary-files":
			o.text = op.val == "text"
		}
	}
	operands := fl.operands
	if !havePattern {
		if len(operands) == 0 {
			return nil, nil, errorf(env, 2, "grep", "usage: grep [OPTION]... PATTERNS [FILE]...")
		}
		patterns, operands = strings.Split(operands[0], "\n"), operands[1:]
	}
	re, all, err := grepRegexp(patterns, mode, icase, word, line, isUTF8Locale(env))
	if err != nil {
		return nil, nil, errorf(env, 2, "grep", "%v", err)
	}
	o.re, o.matchAll, o.longest = re, all, mode != "P"
	return o, operands, 0
}

// grepRegexp joins the patterns into one RE2 alternation.
func grepRegexp(patterns []string, mode string, icase, word, line, utf8 bool) (grepMatcher, bool, error) {
	// Refused before their translation too, which is as long as they are (sandbox.CompileRegexp).
	if n := len(patterns) + len(strings.Join(patterns, "")); n > sandbox.MaxRegexpBytes {
		return nil, false, fmt.Errorf("regular expression too large for the sandbox (%d bytes of patterns); simplify it, or run the tool with \"exec\": \"native\"", n)
	}
	var alts []string
	matchAll := false
	if mode == "P" && len(patterns) > 1 {
		return nil, false, errors.New("the -P option only supports a single pattern")
	}
	if mode == "P" && len(patterns) == 1 {
		flags := ""
		if icase {
			flags = "(?i)"
		}
		p, err := perlToRE2(patterns[0])
		if err == nil {
			m, handled, lerr := perlLookaround(p, flags, word, line)
			switch {
			case handled && lerr != nil:
				return nil, false, fmt.Errorf("-P pattern %q: %v is not available in the sandbox (RE2 has no lookaround; the forms (?<=A)B(?=C), (?<!A)B and A\\KB are emulated); rewrite it (grep -o with sed), or run the tool with \"exec\": \"native\"", patterns[0], lerr)
			case handled:
				return m, p == "", nil
			}
		}
	}
	for _, p := range patterns {
		if p == "" && !word && !line {
			matchAll = true
		}
		var err error
		switch mode {
		case "F":
			p = regexp.QuoteMeta(p)
		case "P":
			if p, err = perlToRE2(p); err != nil {
				return nil, false, err
			}
		default:
			if p, err = toRE2In(p, mode == "E", utf8); err != nil {
				return nil, false, err
			}
		}
		if word {
			p = `\b(?:` + p + `)\b`
		}
		if line {
			p = `^(?:` + p + `)$`
		}
		alts = append(alts, "(?:"+p+")")
	}
	expr := strings.Join(alts, "|")
	if icase {
		expr = "(?i)" + expr
	}
	if len(alts) == 0 {
		expr = `[^\s\S]` // no pattern at all (-f of an empty file) matches nothing
	}
	re, err := sandbox.CompileRegexp(expr)
	if err != nil {
		if mode == "P" {
			return nil, false, fmt.Errorf("-P pattern %q: %v: Perl syntax that RE2 (the sandbox's regular expressions) lacks, such as lookaround, backreferences, \\K or atomic groups, is not available in the sandbox; rewrite it (grep -o with sed), or run the tool with \"exec\": \"native\"", patterns[0], err)
		}
		return nil, false, err
	}
	if mode != "P" {
		// POSIX matching is leftmost-longest; PCRE's is leftmost-first, as RE2's default.
		re.Longest()
	}
	return re, matchAll, nil
}

func grepRun(ctx context.Context, env *Env, o *grepOptions, operands []string) int {
	implicitDot := false
	if len(operands) == 0 {
		operands = []string{"-"}
		if o.recursive {
			operands, implicitDot = []string{"."}, true
		}
	}
	showName := (len(operands) > 1 || o.recursive) && !o.noName || o.withName
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	matched, errored := false, false
	search := func(name string) bool {
		if ctx.Err() != nil {
			return false
		}
		r, err := openInput(env, name)
		if err != nil {
			if !o.silent {
				w.Flush()
				errorf(env, 2, "grep", "%s: %s", name, describe(err))
			}
			errored = true
			return true
		}
		label := name
		if implicitDot {
			label = strings.TrimPrefix(name, "./")
		}
		if name == "-" {
			label = o.label
		}
		n, err := grepStream(ctx, w, ctxRead(ctx, r), o, label, showName)
		r.Close()
		if err != nil && ctx.Err() == nil || errors.Is(err, sandbox.ErrMemoryBudget) {
			w.Flush()
			errorf(env, 2, "grep", "%s: %s", label, describe(err))
			errored = true
			return false
		}
		if n > 0 {
			matched = true
		}
		if o.quiet && matched {
			return false
		}
		if (o.listFiles && n > 0) || (o.listMissing && n == 0) {
			w.WriteString(label)
			w.WriteByte(nameEnd(o.nulName, '\n'))
		}
		return true
	}
	for _, name := range operands {
		if o.recursive && name != "-" {
			if !grepWalk(ctx, env, o, name, true, search) {
				break
			}
			continue
		}
		if !search(name) {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		return 130
	case o.quiet && matched:
		return 0
	case errored:
		return 2
	case matched:
		return 0
	}
	return 1
}

func nameEnd(nul bool, c byte) byte {
	if nul {
		return 0
	}
	return c
}

// grepWalk visits the files below name in sorted order, applying --include/--exclude.
// Symlinks are followed only for -R or when named on the command line.
func grepWalk(ctx context.Context, env *Env, o *grepOptions, name string, top bool, visit func(string) bool) bool {
	if ctx.Err() != nil { // -R follows links: `ln -s . a; ln -s . b` makes the tree endless
		return false
	}
	p := env.Abs(name)
	fi, err := env.FS.Lstat(p)
	if err != nil {
		return visit(name) // reports the error
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if !top && !o.deref {
			return true
		}
		if fi, err = env.FS.Stat(p); err != nil {
			return visit(name)
		}
	}
	base := path.Base(name)
	if fi.IsDir() {
		if !top && globAny(o.excludeDir, base) {
			return true
		}
		ents, err := env.FS.ReadDir(p)
		if err != nil {
			return visit(name)
		}
		for _, e := range ents {
			if !grepWalk(ctx, env, o, joinPath(name, e.Name()), false, visit) {
				return false
			}
		}
		return true
	}
	if !fi.Mode().IsRegular() && !top {
		return true
	}
	if (len(o.include) > 0 && !globAny(o.include, base)) || globAny(o.exclude, base) {
		return true
	}
	return visit(name)
}

func globAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// grepStream searches one input and returns the number of selected lines (and a read error,
// the memory budget's included: -B keeps lines, -o holds a line's matches).
func grepStream(ctx context.Context, w *bufio.Writer, r io.Reader, o *grepOptions, label string, showName bool) (int, error) {
	type held struct {
		n    int
		text []byte
	}
	var ring []held
	mem := meterOf(ctx)
	kept := share{m: mem}
	defer kept.set(0)
	matches, lineNo, lastOut, afterLeft := 0, 0, 0, 0
	context := o.before > 0 || o.after > 0
	silent := o.quiet || o.listFiles || o.listMissing
	binary, checkedBinary := false, false
	emit := func(n int, sep byte, text []byte) {
		if context && lastOut > 0 && n > lastOut+1 {
			w.WriteString("--\n")
		}
		if showName {
			w.WriteString(label)
			w.WriteByte(nameEnd(o.nulName, sep))
		}
		if o.number {
			w.WriteString(strconv.Itoa(n))
			w.WriteByte(sep)
		}
		w.Write(text)
		w.WriteByte('\n')
		lastOut = n
	}
	lr := newLineReader(r)
	for {
		if o.maxCount >= 0 && matches >= o.maxCount && afterLeft == 0 {
			break
		}
		text, _, ok := lr.next()
		if !ok {
			if lr.err != nil {
				return matches, lr.err
			}
			break
		}
		lineNo++
		if !checkedBinary {
			checkedBinary, binary = true, !o.text && hasNUL(text)
		}
		hit, err := grepMatch(ctx, o, text)
		if err != nil {
			return matches, err
		}
		hit = hit != o.invert
		if o.maxCount >= 0 && matches >= o.maxCount {
			hit = false // only trailing context after the last allowed match
		}
		if !hit {
			if afterLeft > 0 && !silent && !o.count && !binary {
				emit(lineNo, '-', text)
				afterLeft--
			} else if o.before > 0 {
				ring = append(ring, held{lineNo, append([]byte(nil), text...)})
				size := kept.held + lineCost(len(text))
				if len(ring) > o.before {
					size -= lineCost(len(ring[0].text))
					ring = ring[1:]
				}
				if err := kept.set(size); err != nil {
					return matches, err
				}
			}
			continue
		}
		matches++
		if silent {
			return matches, nil
		}
		if o.count || binary {
			continue
		}
		for _, h := range ring {
			emit(h.n, '-', h.text)
		}
		ring = ring[:0]
		kept.set(0)
		afterLeft = o.after
		if o.only {
			if !o.invert {
				var stopped error
				all, err := findAllBudgeted(&kept, len(text)+1, 40, func(n int) [][]int {
					var all [][]int
					all, stopped = grepFindAll(ctx, o, text, n)
					return all
				})
				if stopped != nil {
					return matches, stopped
				}
				if err != nil {
					return matches, err
				}
				for _, m := range all {
					if m[1] > m[0] {
						emit(lineNo, ':', text[m[0]:m[1]])
					}
				}
				kept.set(0)
			}
			continue
		}
		emit(lineNo, ':', text)
	}
	if o.count {
		if showName {
			w.WriteString(label)
			w.WriteByte(nameEnd(o.nulName, ':'))
		}
		w.WriteString(strconv.Itoa(matches) + "\n")
	} else if binary && matches > 0 && !silent {
		w.WriteString("Binary file " + label + " matches\n")
	}
	return matches, nil
}

// grepFindAll is o.re.FindAllIndex(text, n); on a long line it is searched match by match, so
// that the call's end stops it (millions of matches in one line take seconds).
func grepFindAll(ctx context.Context, o *grepOptions, text []byte, n int) ([][]int, error) {
	re, ok := o.re.(*regexp.Regexp)
	if !ok || !sandbox.LongSubject(len(text)) {
		return o.re.FindAllIndex(text, n), ctx.Err()
	}
	all, err := sandbox.FindAllStringSubmatchIndex(ctx, re, string(text), n, o.longest)
	for i, m := range all {
		all[i] = m[:2]
	}
	return all, err
}

// grepMatch reports whether text has a match; a long line is searched so that the call's end
// stops the search (sandbox.Match).
func grepMatch(ctx context.Context, o *grepOptions, text []byte) (bool, error) {
	if o.matchAll {
		return true, nil
	}
	if re, ok := o.re.(*regexp.Regexp); ok {
		return sandbox.Match(ctx, re, text)
	}
	return o.re.Match(text), nil
}
