package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/udiff"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() { register("diff", diff) }

var diffSpec = optSpec{short: "uU:qsiwbBaN", long: []string{"unified=?", "brief:q", "report-identical-files:s",
	"ignore-case:i", "ignore-all-space:w", "ignore-space-change:b", "ignore-blank-lines:B", "text:a", "label=",
	"new-file:N", "color=?", "strip-trailing-cr"}, permute: true}

// diffFile is one side of a comparison.
type diffFile struct {
	udiff.Text
	label   string
	labeled bool // --label: no timestamp in unified headers
	mtime   time.Time
}

// diff compares two files (normal or unified output); exit 0 same, 1 different, 2 trouble.
func diff(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "diff", 2, diffSpec, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) != 2 {
		return errorf(env, 2, "diff", "missing operand after '%s'", strings.Join(argv[1:], " "))
	}
	context_ := -1
	for _, o := range fl.opts {
		switch o.name {
		case "u", "unified":
			context_ = 3
			if o.val != "" {
				context_, _ = strconv.Atoi(o.val)
			}
		case "U":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				return errorf(env, 2, "diff", "invalid context length '%s'", o.val)
			}
			context_ = n
		}
	}
	labels := fl.vals("label")
	var files [2]*diffFile
	for i, name := range fl.operands {
		other := fl.operands[1-i]
		f, err := readDiffFile(ctx, env, name, other, fl.has("N"))
		if err != nil {
			return errorf(env, 2, "diff", "%s: %s", name, describe(err))
		}
		if i < len(labels) {
			f.label, f.labeled = labels[i], true
		}
		if f.mtime.IsZero() {
			f.mtime = env.Now()
		}
		files[i] = f
	}
	if ctx.Err() != nil {
		return 130
	}
	if !fl.has("a") && (diffBinary(files[0]) || diffBinary(files[1])) {
		if diffKeys(files[0]) == diffKeys(files[1]) {
			return 0
		}
		fmt.Fprintf(env.Stdout, "Binary files %s and %s differ\n", files[0].label, files[1].label)
		return 1
	}
	hunks, err := diffChanges(ctx, files[0], files[1], fl)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, sandbox.ErrMemoryBudget) {
			return 130
		}
		return errorf(env, 2, "diff", "%v", err)
	}
	if len(hunks) == 0 {
		if fl.has("s") {
			fmt.Fprintf(env.Stdout, "Files %s and %s are identical\n", files[0].label, files[1].label)
		}
		return 0
	}
	w := bufio.NewWriter(ctxWriter{ctx, env.Stdout})
	defer w.Flush()
	switch {
	case fl.has("q"):
		fmt.Fprintf(w, "Files %s and %s differ\n", files[0].label, files[1].label)
	case context_ >= 0:
		writeUnified(w, files[0], files[1], hunks, context_, envLocation(env))
	default:
		writeNormal(w, files[0], files[1], hunks)
	}
	return 1
}

// readDiffFile reads a side; a directory compared with a file means the file of that name
// inside it, as diff does.
func readDiffFile(ctx context.Context, env *Env, name, other string, absentEmpty bool) (*diffFile, error) {
	f := &diffFile{label: name}
	if name != "-" && !isDevice(env, name) {
		p := env.Abs(name)
		fi, err := env.FS.Stat(p)
		if err != nil && absentEmpty {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			if ofi, oerr := env.FS.Stat(env.Abs(other)); oerr == nil && ofi.IsDir() || other == "-" {
				return nil, fmt.Errorf("comparing directories is not supported in the sandbox")
			}
			name = joinPath(name, baseOf(other))
			f.label = name
			if fi, err = env.FS.Stat(env.Abs(name)); err != nil {
				return nil, err
			}
		}
		f.mtime = fi.ModTime()
	}
	r, err := openInput(env, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	lr := newLineReader(ctxRead(ctx, r))
	mem := meterOf(ctx)
	for {
		line, nl, ok := lr.next()
		if !ok {
			return f, lr.err
		}
		if err := mem.grow(lineCost(len(line)) + 16); err != nil { // the line, and its id later
			return nil, err
		}
		f.Lines = append(f.Lines, string(line))
		f.NoEOL = !nl
	}
}

func diffBinary(f *diffFile) bool {
	n := 0
	for _, l := range f.Lines {
		if strings.IndexByte(l, 0) >= 0 {
			return true
		}
		if n += len(l); n > 4096 {
			break
		}
	}
	return false
}

func diffKeys(f *diffFile) string { return strings.Join(f.Lines, "\n") + fmt.Sprint(f.NoEOL) }

// normalizeLine applies -i, -w, -b for comparison only.
func normalizeLine(s string, fl *flagSet) string {
	if fl.has("strip-trailing-cr") {
		s = strings.TrimSuffix(s, "\r")
	}
	if fl.has("w") {
		s = strings.Join(strings.Fields(s), "")
	} else if fl.has("b") {
		s = strings.Join(strings.Fields(s), " ")
		if s != "" && strings.ContainsAny(s[len(s)-1:], " \t") {
			s = strings.TrimRight(s, " \t")
		}
	}
	if fl.has("i") {
		s = strings.ToLower(s)
	}
	return s
}

// diffChanges compares the sides as -i, -w, -b, -B and --strip-trailing-cr say.
func diffChanges(ctx context.Context, a, b *diffFile, fl *flagSet) ([]udiff.Change, error) {
	ia, ib := udiff.IDs(a.Lines, b.Lines, func(l string, noEOL bool) string {
		k := normalizeLine(l, fl)
		if noEOL {
			k += "\x00noeol" // "a" and "a\n" differ at the end of a file
		}
		return k
	}, a.NoEOL, b.NoEOL)
	all, err := udiff.Lines(ctx, ia, ib, udiffMeter{meterOf(ctx)})
	if err != nil || !fl.has("B") {
		return all, err
	}
	var out []udiff.Change
	for _, c := range all {
		if blankOnly(a.Lines[c.A0:c.A1]) && blankOnly(b.Lines[c.B0:c.B1]) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// udiffMeter charges the comparison's work to the run's meter.
type udiffMeter struct{ m *meter }

func (u udiffMeter) Grow(n int64) error { return u.m.grow(n) }
func (u udiffMeter) Release(n int64)    { u.m.release(n) }

func blankOnly(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

func rangeNormal(lo, hi int) string {
	if hi-lo <= 1 {
		return strconv.Itoa(max(hi, lo))
	}
	return fmt.Sprintf("%d,%d", lo+1, hi)
}

func writeNormal(w *bufio.Writer, a, b *diffFile, hunks []udiff.Change) {
	for _, c := range hunks {
		if _, err := w.Write(nil); err != nil {
			return // the writer failed (the call ended, or its reader went away): it keeps its error
		}
		switch {
		case c.B0 == c.B1:
			fmt.Fprintf(w, "%sd%d\n", rangeNormal(c.A0, c.A1), c.B0)
			udiff.WriteLines(w, "< ", &a.Text, c.A0, c.A1)
		case c.A0 == c.A1:
			fmt.Fprintf(w, "%da%s\n", c.A0, rangeNormal(c.B0, c.B1))
			udiff.WriteLines(w, "> ", &b.Text, c.B0, c.B1)
		default:
			fmt.Fprintf(w, "%sc%s\n", rangeNormal(c.A0, c.A1), rangeNormal(c.B0, c.B1))
			udiff.WriteLines(w, "< ", &a.Text, c.A0, c.A1)
			w.WriteString("---\n")
			udiff.WriteLines(w, "> ", &b.Text, c.B0, c.B1)
		}
	}
}

func writeUnified(w *bufio.Writer, a, b *diffFile, hunks []udiff.Change, ctxLines int, loc *time.Location) {
	for _, f := range []*diffFile{a, b} {
		f.Header = f.label
		if !f.labeled {
			f.Header += "\t" + f.mtime.In(loc).Format("2006-01-02 15:04:05.000000000 -0700")
		}
	}
	udiff.WriteUnified(w, &a.Text, &b.Text, hunks, ctxLines)
}
