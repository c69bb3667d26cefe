package builtins

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// awkRegex runs an awk program's regular expression matching in Go functions bound to the
// call (awk_rewrite.go's routePass sends them here): GoAWK's own matching calls Go's regexp,
// which cannot be stopped, and gsub, split and regex field splitting make one search per match,
// each of which may read to the subject's end (quadratic: `gsub(/(a.*z)*a/, "b", s)` over a long
// run of a's went on for hours after its call's timeout). Here every search is a
// sandbox.Searcher's, which checks the call's end between matches and through long subjects.
// The results are GoAWK's: the same expressions (compiled as GoAWK compiles them, with its
// (?s:...) flag), the same match rules (regexp's FindAll, ReplaceAll and Split), the same
// replacement rules for & and \&, and byte positions (GoAWK runs without Config.Chars).
type awkRegex struct {
	ctx   context.Context
	cache map[string]*sandbox.Searcher
	count int    // what the last sub or gsub replaced
	rlen  int    // RLENGTH of the last match
	sep   string // the separator split is to use after __mcp_sp
	keys  []any  // the subscripts and field indexes of sub/gsub targets being evaluated
	fs    string // the FS whose Searcher is fsRe
	fsRe  *sandbox.Searcher
	limFS string // the FS whose fieldLimit is lim
	lim   int
	rs    string // RS as the program and the command line last set it (awkInput reads by it)
}

// awkRegexCache bounds the expressions kept compiled (GoAWK keeps 100).
const awkRegexCache = 256

func newAwkRegex(ctx context.Context) *awkRegex {
	return &awkRegex{ctx: ctx, cache: map[string]*sandbox.Searcher{}}
}

func (r *awkRegex) funcs(m map[string]any) {
	m["__mcp_m"] = r.match
	m["__mcp_mt"] = r.matchPos
	m["__mcp_rl"] = func() int { return r.rlen }
	m["__mcp_sub"] = r.sub
	m["__mcp_gsub"] = r.gsub
	m["__mcp_n"] = func() int { return r.count }
	m["__mcp_sp"] = r.splitPrep
	m["__mcp_sep"] = func() string { return r.sep }
	m["__mcp_pk"] = r.pushKey
	m["__mcp_pi"] = r.pushIndex
	m["__mcp_k"] = r.topKey
	m["__mcp_i"] = r.topIndex
	m["__mcp_pop"] = r.pop
	m["__mcp_fs"] = r.fieldCheck
	m["__mcp_fslim"] = r.fieldLimit
	m["__mcp_fsset"] = r.fsSet
	m["__mcp_rsset"] = r.rsSet
	m["__mcp_rec"] = r.recordCheck
	m["__mcp_gl"] = r.getlineCheck
}

// compile is GoAWK's compileRegex for expr, refused as __mcp_re refuses an expression that
// would compile for long.
func (r *awkRegex) compile(expr string) (*sandbox.Searcher, error) {
	if s, ok := r.cache[expr]; ok {
		return s, nil
	}
	if err := sandbox.CheckRegexp(expr); err != nil {
		panic(awkRegexRefused{err})
	}
	re, err := regexp.Compile("(?s:" + expr + ")")
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %s", expr, err)
	}
	s := sandbox.NewSearcher(re, false)
	if len(r.cache) < awkRegexCache {
		r.cache[expr] = s
	}
	return s, nil
}

// stopped ends the run when a search ended with the call.
func (r *awkRegex) stopped(err error) error {
	if r.ctx.Err() != nil {
		panic(awkStopped{})
	}
	return err
}

// find is the first match of expr in s (nil: none).
func (r *awkRegex) find(s, expr string) ([]int, error) {
	re, err := r.compile(expr)
	if err != nil {
		return nil, err
	}
	m, err := re.FindIndex(r.ctx, s)
	if err != nil {
		return nil, r.stopped(err)
	}
	return m, nil
}

// match is s ~ expr.
func (r *awkRegex) match(s, expr string) (int, error) {
	m, err := r.find(s, expr)
	if err != nil || m == nil {
		return 0, err
	}
	return 1, nil
}

// matchPos is match(s, expr): it returns RSTART and keeps RLENGTH for __mcp_rl.
func (r *awkRegex) matchPos(s, expr string) (int, error) {
	m, err := r.find(s, expr)
	if err != nil {
		return 0, err
	}
	if m == nil {
		r.rlen = -1
		return 0, nil
	}
	r.rlen = m[1] - m[0]
	return m[0] + 1, nil
}

func (r *awkRegex) sub(expr, repl, in string) (string, error) { return r.replace(expr, repl, in, 1) }

func (r *awkRegex) gsub(expr, repl, in string) (string, error) {
	return r.replace(expr, repl, in, -1)
}

// replace is GoAWK's sub (n 1) or gsub (n -1): the matches as regexp's ReplaceAll finds them
// (the same as its FindAll), each replaced by repl with & the match, \& a &, \\ a \.
func (r *awkRegex) replace(expr, repl, in string, n int) (string, error) {
	r.count = 0
	re, err := r.compile(expr)
	if err != nil {
		return "", err
	}
	all, err := re.FindAllIndex(r.ctx, in, n)
	if err != nil {
		return "", r.stopped(err)
	}
	if len(all) == 0 {
		return in, nil
	}
	var b strings.Builder
	last := 0
	for _, m := range all {
		b.WriteString(in[last:m[0]])
		match := in[m[0]:m[1]]
		for i := 0; i < len(repl); i++ {
			switch c := repl[i]; c {
			case '&':
				b.WriteString(match)
			case '\\':
				i++
				switch {
				case i >= len(repl):
					b.WriteByte('\\')
				case repl[i] == '&' || repl[i] == '\\':
					b.WriteByte(repl[i])
				default:
					b.WriteByte('\\')
					b.WriteByte(repl[i])
				}
			default:
				b.WriteByte(c)
			}
		}
		last = m[1]
	}
	b.WriteString(in[last:])
	r.count = len(all)
	return b.String(), nil
}

// splitPrep splits s by the separator fs as GoAWK's split does when fs is a regular expression
// (regexp's Split), and returns the parts joined by a character that is in none of them, which
// __mcp_sep then returns for GoAWK's split to split on literally. Other separators (" ", one
// character) and the rare string in which no such character is found are left to GoAWK: s and
// fs unchanged (the latter after the split here finished, so GoAWK's does too).
func (r *awkRegex) splitPrep(s, fs string) (string, error) {
	r.sep = fs
	if fs == " " || s == "" || utf8.RuneCountInString(fs) <= 1 {
		return s, nil
	}
	re, err := r.compile(fs)
	if err != nil {
		return "", err
	}
	all, err := re.FindAllIndex(r.ctx, s, -1)
	if err != nil {
		return "", r.stopped(err)
	}
	sep, ok := awkSplitChar(s)
	if !ok {
		return s, nil
	}
	var b strings.Builder
	beg, end, parts := 0, 0, 0
	add := func(part string) {
		if parts > 0 {
			b.WriteString(sep)
		}
		b.WriteString(part)
		parts++
	}
	for _, m := range all {
		end = m[0]
		if m[1] != 0 {
			add(s[beg:end])
		}
		beg = m[1]
	}
	if end != len(s) {
		add(s[beg:])
	}
	r.sep = sep
	return b.String(), nil
}

// awkSplitChar returns a character (not a space) that does not occur in s: an ASCII one (an
// ASCII byte is that character wherever it occurs), or in valid UTF-8 one of the private use
// area's.
func awkSplitChar(s string) (string, bool) {
	var seen [utf8.RuneSelf]bool
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			seen[s[i]] = true
		}
	}
	for c := 1; c < utf8.RuneSelf; c++ {
		if !seen[c] && c != ' ' {
			return string(rune(c)), true
		}
	}
	if !utf8.ValidString(s) {
		return "", false
	}
	const first, last = 0xE000, 0xF8FF
	var used [last - first + 1]bool
	for _, c := range s {
		if c >= first && c <= last {
			used[c-first] = true
		}
	}
	for i, u := range used {
		if !u {
			return string(rune(first + i)), true
		}
	}
	return "", false
}

// The target of sub(e, r, a[k]) or sub(e, r, $k) is read and assigned at one subscript (or
// field index), evaluated once and first, as GoAWK does: the rewrite pushes it, reads it twice,
// and pops it once assigned.
func (r *awkRegex) pushKey(k string) int    { r.keys = append(r.keys, k); return 1 }
func (r *awkRegex) pushIndex(k float64) int { r.keys = append(r.keys, k); return 1 }
func (r *awkRegex) topKey() string          { s, _ := r.top().(string); return s }
func (r *awkRegex) topIndex() float64       { f, _ := r.top().(float64); return f }
func (r *awkRegex) pop() int                { r.keys = r.keys[:max(len(r.keys)-1, 0)]; return 1 }
func (r *awkRegex) top() any {
	if len(r.keys) == 0 {
		return nil
	}
	return r.keys[len(r.keys)-1]
}

// fieldLimit returns the record length up to which splitting by fs takes a few milliseconds at
// most (sandbox.Searcher.QuickLength): the FS rule calls __mcp_fs on longer records only.
func (r *awkRegex) fieldLimit(fs string) int {
	if fs == " " || utf8.RuneCountInString(fs) <= 1 {
		return 1 << 30
	}
	re, err := r.compile(fs)
	if err != nil {
		return 1 << 30 // GoAWK refused FS when it was set
	}
	return re.QuickLength()
}

// fieldCheck runs before the rules on every record read while FS is a regular expression that is
// longer than fieldLimit (the rewrite's first rule): GoAWK splits the record with its own
// FindAll, which cannot be stopped, so it is split here first, where the call's end stops it;
// once that split ended, GoAWK's takes as long. A shorter record is split in a few milliseconds,
// and GoAWK checks the call's end every 1,000 instructions.
func (r *awkRegex) fieldCheck(line, fs string) (int, error) {
	if r.ctx.Err() != nil {
		panic(awkStopped{})
	}
	if fs == " " || utf8.RuneCountInString(fs) <= 1 {
		return 0, nil
	}
	if r.fsRe == nil || r.fs != fs {
		re, err := r.compile(fs)
		if err != nil {
			return 0, nil // GoAWK refused FS when it was set
		}
		r.fs, r.fsRe = fs, re
	}
	began := time.Now()
	if _, err := r.fsRe.FindAllIndex(r.ctx, line, -1); err != nil {
		return 0, r.stopped(err)
	}
	if awaitRepeat(r.ctx, time.Since(began)) != nil {
		panic(awkStopped{})
	}
	return 0, nil
}

// awaitRepeat is called when GoAWK is about to repeat, unstoppably, work the stoppable matcher
// just did in d (splitting a record into fields, finding the records of the input): when the
// call's end comes sooner than d, the repeat would end past it, so the call ends at its end
// instead (ctx's error then), as it would have.
func awaitRepeat(ctx context.Context, d time.Duration) error {
	if end, ok := ctx.Deadline(); ok && time.Until(end) < d {
		<-ctx.Done()
	}
	return ctx.Err()
}

// checkSep refuses a separator (FS or RS, named by name) that GoAWK would compile as a regular
// expression for long (sandbox.CheckRegexp): one of more than one character.
func checkSep(name, sep string) error {
	if utf8.RuneCountInString(sep) <= 1 {
		return nil
	}
	if err := sandbox.CheckRegexp(sep); err != nil {
		return fmt.Errorf("%s, the %s separator: %w", name, map[string]string{"FS": "field", "RS": "record"}[name], err)
	}
	return nil
}

// fsSet is called with the value of every FS = v before GoAWK compiles it, and with the record
// at hand, which GoAWK splits by the new FS if no field of it was read yet (sepPass).
func (r *awkRegex) fsSet(fs, line string) (int, error) {
	if err := checkSep("FS", fs); err != nil {
		panic(awkRegexRefused{err})
	}
	return r.recordCheck(line, fs)
}

// rsSet is called with the value of every RS = v before GoAWK compiles it (sepPass).
func (r *awkRegex) rsSet(rs string) int {
	if err := checkSep("RS", rs); err != nil {
		panic(awkRegexRefused{err})
	}
	r.rs = rs
	return 1
}

// recordCheck is fieldCheck for a record the program assigns (sepPass): a long one only.
func (r *awkRegex) recordCheck(line, fs string) (int, error) {
	if fs == " " || utf8.RuneCountInString(fs) <= 1 {
		return 1, nil
	}
	if r.limFS != fs || r.lim == 0 {
		r.limFS, r.lim = fs, r.fieldLimit(fs)
	}
	if len(line) <= r.lim {
		return 1, nil
	}
	_, err := r.fieldCheck(line, fs)
	return 1, err
}

// getlineCheck is recordCheck after a getline that may have read a record (status 1).
func (r *awkRegex) getlineCheck(status float64, line, fs string) (float64, error) {
	if status > 0 {
		if _, err := r.recordCheck(line, fs); err != nil {
			return 0, err
		}
	}
	return status, nil
}
