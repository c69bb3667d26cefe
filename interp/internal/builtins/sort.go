package builtins

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

func init() { register("sort", sortUtil) }

// sortKey is one -k field spec (or the whole line) with its ordering options.
type sortKey struct {
	f1, c1, f2, c2             int // fields and characters, 1-based; f2 == 0: end of line
	blankStart, blankEnd       bool
	numeric, general, human    bool
	version, fold, dict, rev   bool
	month, ignoreNonprint, any bool // any: the key carries its own options
}

var sortSpec = optSpec{short: "nrufbVhgdiMk:t:sco:CmS:T:zR", long: []string{"numeric-sort:n", "reverse:r", "unique:u",
	"ignore-case:f", "ignore-leading-blanks:b", "version-sort:V", "human-numeric-sort:h", "general-numeric-sort:g",
	"dictionary-order:d", "ignore-nonprinting:i", "month-sort:M", "key:k", "field-separator:t", "stable:s",
	"check=?", "output:o", "merge:m", "buffer-size:S", "temporary-directory:T", "parallel=", "zero-terminated:z",
	"random-sort:R", "sort="}, permute: true}

// applyOpt sets an ordering option letter on k.
func (k *sortKey) applyOpt(c byte) bool {
	switch c {
	case 'n':
		k.numeric = true
	case 'g':
		k.general = true
	case 'h':
		k.human = true
	case 'V':
		k.version = true
	case 'f':
		k.fold = true
	case 'd':
		k.dict = true
	case 'r':
		k.rev = true
	case 'M':
		k.month = true
	case 'i':
		k.ignoreNonprint = true
	case 'b':
		k.blankStart, k.blankEnd = true, true
	default:
		return false
	}
	k.any = true
	return true
}

// parseKey reads POS1[,POS2] where POS is F[.C][OPTS].
func parseKey(s string) (sortKey, error) {
	var k sortKey
	a, b, hasEnd := strings.Cut(s, ",")
	pos := func(p string, end bool) (int, int, bool, error) {
		i := 0
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		f, err := strconv.Atoi(p[:i])
		if err != nil || f < 1 && !(end && f == 0) {
			return 0, 0, false, fmt.Errorf("invalid number at field start: invalid count at start of '%s'", s)
		}
		c := 0
		if i < len(p) && p[i] == '.' {
			j := i + 1
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			c, _ = strconv.Atoi(p[i+1 : j])
			i = j
		}
		blank := false
		for ; i < len(p); i++ {
			if p[i] == 'b' {
				blank = true
			}
			if !k.applyOpt(p[i]) {
				return 0, 0, false, fmt.Errorf("invalid option in key '%s'", s)
			}
		}
		return f, c, blank, nil
	}
	var err error
	var bs, be bool
	if k.f1, k.c1, bs, err = pos(a, false); err != nil {
		return k, err
	}
	if k.c1 == 0 {
		k.c1 = 1
	}
	if hasEnd {
		if k.f2, k.c2, be, err = pos(b, true); err != nil {
			return k, err
		}
	}
	k.blankStart, k.blankEnd = bs, be
	return k, nil
}

// fieldStarts splits line into fields: with sep, at each sep; without, each field begins
// with its leading blanks.
func fieldBounds(line string, sep string) [][2]int {
	var out [][2]int
	if sep != "" {
		start := 0
		for {
			i := strings.Index(line[start:], sep)
			if i < 0 {
				return append(out, [2]int{start, len(line)})
			}
			out = append(out, [2]int{start, start + i})
			start += i + len(sep)
		}
	}
	i := 0
	for i < len(line) {
		start := i
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		out = append(out, [2]int{start, i})
	}
	return out
}

func skipBlanks(s string, i, end int) int {
	for i < end && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// extract returns the part of line that key k covers.
func (k *sortKey) extract(line, sep string) string {
	if k.f1 == 0 {
		return line
	}
	fb := fieldBounds(line, sep)
	start := len(line)
	if k.f1 <= len(fb) {
		s := fb[k.f1-1][0]
		if k.blankStart {
			s = skipBlanks(line, s, fb[k.f1-1][1])
		}
		start = min(s+k.c1-1, len(line))
	}
	end := len(line)
	if k.f2 > 0 && k.f2 <= len(fb) {
		f := fb[k.f2-1]
		end = f[1]
		if k.c2 > 0 {
			s := f[0]
			if k.blankEnd {
				s = skipBlanks(line, s, f[1])
			}
			end = min(s+k.c2, f[1])
		}
	}
	if end < start {
		return ""
	}
	return line[start:end]
}

// compare orders two keys under k's options.
func (k *sortKey) compare(a, b string) int {
	if k.blankStart && k.f1 == 0 {
		a, b = strings.TrimLeft(a, " \t"), strings.TrimLeft(b, " \t")
	}
	var c int
	switch {
	case k.numeric:
		c = compareFloat(numericValue(a), numericValue(b))
	case k.general:
		c = compareFloat(generalValue(a), generalValue(b))
	case k.human:
		c = compareHuman(a, b)
	case k.version:
		c = filevercmp(a, b)
	case k.month:
		c = monthIndex(a) - monthIndex(b)
	default:
		if k.dict || k.ignoreNonprint || k.fold {
			a, b = k.translate(a), k.translate(b)
		}
		c = strings.Compare(a, b)
	}
	if k.rev {
		return -c
	}
	return c
}

func (k *sortKey) translate(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if k.dict && !(isAlnum(c) || c == ' ' || c == '\t') || k.ignoreNonprint && (c < ' ' || c >= 127) {
			continue
		}
		if k.fold && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case math.IsNaN(a) && !math.IsNaN(b):
		return -1
	case !math.IsNaN(a) && math.IsNaN(b):
		return 1
	}
	return 0
}

// numericValue reads sort -n's number: blanks, sign, digits, one decimal point.
func numericValue(s string) float64 {
	s = strings.TrimLeft(s, " \t")
	end := 0
	if end < len(s) && s[end] == '-' {
		end++
	}
	dot := false
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' && !dot) {
		dot = dot || s[end] == '.'
		end++
	}
	f, _ := strconv.ParseFloat(strings.TrimSuffix(s[:end], "."), 64)
	return f
}

// generalValue is strtod's reading, as sort -g uses; non-numbers sort first.
func generalValue(s string) float64 {
	s = strings.TrimSpace(s)
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f
		}
	}
	return math.Inf(-1)
}

// compareHuman orders 2K < 1M: by sign, then SI suffix, then number.
func compareHuman(a, b string) int {
	va, sa := humanValue(a)
	vb, sb := humanValue(b)
	signA, signB := sign(va), sign(vb)
	if signA != signB {
		return signA - signB
	}
	if sa != sb {
		return (sa - sb) * max(signA, 1)
	}
	return compareFloat(va, vb)
}

func sign(f float64) int {
	switch {
	case f < 0:
		return -1
	case f > 0:
		return 1
	}
	return 0
}

func humanValue(s string) (float64, int) {
	s = strings.TrimLeft(s, " \t")
	v := numericValue(s)
	end := 0
	for end < len(s) && (s[end] == '-' || s[end] == '.' || s[end] >= '0' && s[end] <= '9') {
		end++
	}
	if end < len(s) {
		if i := strings.IndexByte("KMGTPEZYRQ", s[end]); i >= 0 {
			return v, i + 1
		}
		if s[end] == 'k' {
			return v, 1
		}
	}
	return v, 0
}

func monthIndex(s string) int {
	s = strings.ToUpper(strings.TrimLeft(s, " \t"))
	for i, m := range []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"} {
		if strings.HasPrefix(s, m) {
			return i + 1
		}
	}
	return 0
}

// verOrder ranks a byte for verrevcmp: digits 0, letters themselves, '~' first, others after
// letters.
func verOrder(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	c := s[i]
	switch {
	case c >= '0' && c <= '9':
		return 0
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return int(c)
	case c == '~':
		return -1
	}
	return int(c) + 256
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// verrevcmp is the Debian version comparison that GNU's filevercmp builds on.
func verrevcmp(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		firstDiff := 0
		for (i < len(a) && !isDigit(a[i])) || (j < len(b) && !isDigit(b[j])) {
			ac, bc := verOrder(a, i), verOrder(b, j)
			if ac != bc {
				return ac - bc
			}
			i, j = i+1, j+1
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && j < len(b) && isDigit(a[i]) && isDigit(b[j]) {
			if firstDiff == 0 {
				firstDiff = int(a[i]) - int(b[j])
			}
			i, j = i+1, j+1
		}
		if i < len(a) && isDigit(a[i]) {
			return 1
		}
		if j < len(b) && isDigit(b[j]) {
			return -1
		}
		if firstDiff != 0 {
			return firstDiff
		}
	}
	return 0
}

// fileSuffix finds the start of a file suffix (\.[A-Za-z~][A-Za-z0-9~]*)*$.
func fileSuffix(s string) int {
	end := len(s)
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c == '.' && i+1 < len(s) && (s[i+1] == '~' || s[i+1] >= 'a' && s[i+1] <= 'z' || s[i+1] >= 'A' && s[i+1] <= 'Z') {
			end = i
			continue
		}
		if !(isAlnum(c) || c == '~') {
			break
		}
	}
	return end
}

// filevercmp is GNU sort -V's ordering.
func filevercmp(a, b string) int {
	if a == b {
		return 0
	}
	for _, special := range []string{"", ".", ".."} {
		if a == special {
			return -1
		}
		if b == special {
			return 1
		}
	}
	if ha, hb := strings.HasPrefix(a, "."), strings.HasPrefix(b, "."); ha != hb {
		if ha {
			return -1
		}
		return 1
	}
	ap, bp := a[:fileSuffix(a)], b[:fileSuffix(b)]
	if c := verrevcmp(ap, bp); c != 0 {
		return c
	}
	if c := verrevcmp(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// sortUtil is GNU sort over the C locale (byte order).
func sortUtil(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "sort", 2, sortSpec, argv[1:])
	if !ok {
		return st
	}
	var global sortKey
	var keys []sortKey
	sep := ""
	for _, o := range fl.opts {
		switch {
		case len(o.name) == 1 && global.applyOpt(o.name[0]):
		case o.name == "k":
			k, err := parseKey(o.val)
			if err != nil {
				return errorf(env, 2, "sort", "%v", err)
			}
			keys = append(keys, k)
		case o.name == "t":
			if o.val == `\0` {
				o.val = "\x00"
			}
			if len(o.val) != 1 {
				return errorf(env, 2, "sort", "multi-character tab '%s'", o.val)
			}
			sep = o.val
		case o.name == "R":
			return errorf(env, 2, "sort", "unsupported option -%s", o.name)
		case o.name == "sort":
			if !global.applyOpt(map[string]byte{"numeric": 'n', "general-numeric": 'g', "human-numeric": 'h', "version": 'V', "month": 'M'}[o.val]) {
				return errorf(env, 2, "sort", "unsupported --sort=%s", o.val)
			}
		}
	}
	for i := range keys {
		if !keys[i].any {
			bs, be := keys[i].blankStart, keys[i].blankEnd
			f1, c1, f2, c2 := keys[i].f1, keys[i].c1, keys[i].f2, keys[i].c2
			keys[i] = global
			keys[i].f1, keys[i].c1, keys[i].f2, keys[i].c2 = f1, c1, f2, c2
			keys[i].blankStart, keys[i].blankEnd = bs || global.blankStart, be || global.blankEnd
		}
	}
	if len(keys) == 0 {
		keys = []sortKey{global}
	}
	sepByte := byte('\n')
	if fl.has("z") {
		sepByte = 0
	}
	lines, st := readAllInputs(ctx, env, "sort", fl.operands, sepByte)
	if st != 0 {
		return map[bool]int{true: 130, false: 2}[st == 130]
	}
	s := sorter{keys: keys, sep: sep, last: !fl.has("s") && !fl.has("u"), rev: global.rev}
	if chk, ok := fl.val("c", "check"); ok || fl.has("C") {
		return s.check(env, lines, fl.has("C") || chk == "quiet" || chk == "silent", fl.operands)
	}
	if !sortStable(ctx, lines, s.compare) {
		return 130
	}
	if fl.has("u") {
		lines = slices.CompactFunc(lines, func(a, b string) bool { return s.compareKeys(a, b) == 0 })
	}
	return writeSorted(ctx, env, lines, fl)
}

type sorter struct {
	keys      []sortKey
	sep       string
	last, rev bool
}

func (s *sorter) compareKeys(a, b string) int {
	for i := range s.keys {
		k := &s.keys[i]
		if c := k.compare(k.extract(a, s.sep), k.extract(b, s.sep)); c != 0 {
			return c
		}
	}
	return 0
}

// compare applies the keys, then the whole line bytewise as a last resort (not with -s/-u).
func (s *sorter) compare(a, b string) int {
	if c := s.compareKeys(a, b); c != 0 || !s.last {
		return c
	}
	c := strings.Compare(a, b)
	if s.rev {
		return -c
	}
	return c
}

func (s *sorter) check(env *Env, lines []string, quiet bool, files []string) int {
	name := "-"
	if len(files) > 0 {
		name = files[0]
	}
	for i := 1; i < len(lines); i++ {
		if s.compare(lines[i-1], lines[i]) > 0 {
			if !quiet {
				errorf(env, 1, "sort", "%s:%d: disorder: %s", name, i+1, lines[i])
			}
			return 1
		}
	}
	return 0
}

func writeSorted(ctx context.Context, env *Env, lines []string, fl *flagSet) int {
	b := &meteredBuffer{mem: share{m: meterOf(ctx)}}
	w := bufio.NewWriter(b)
	out, toFile := fl.val("o")
	if !toFile {
		w = bufio.NewWriter(env.Stdout)
	}
	for _, l := range lines {
		if ctx.Err() != nil {
			return 130
		}
		w.WriteString(l)
		w.WriteByte(map[bool]byte{true: 0, false: '\n'}[fl.has("z")])
	}
	if err := w.Flush(); err != nil {
		if ctx.Err() != nil && b.err == nil {
			return 130
		}
		return errorf(env, 2, "sort", "write failed: %s", describe(err))
	}
	if toFile {
		if err := env.FS.WriteFile(env.Abs(out), b.Bytes(), env.Perm(0o666)); err != nil {
			return errorf(env, 2, "sort", "open failed: %s: %s", out, describe(err))
		}
	}
	return 0
}
