package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

func init() { register("date", date) }

// envLocation is the script's TZ (UTC when unset or unknown): the host's zone never leaks in.
func envLocation(env *Env) *time.Location {
	tz := ""
	if env.Getenv != nil {
		tz = env.Getenv("TZ")
	}
	tz = strings.TrimPrefix(tz, ":")
	if tz == "" || tz == "UTC" || tz == "UTC0" {
		return time.UTC
	}
	if l, err := time.LoadLocation(tz); err == nil {
		return l
	}
	return time.UTC
}

var dateSpec = optSpec{
	permute: true,
	short:   "ud:I::Rr:s:",
	long:    []string{"utc:u", "universal:u", "date:d", "iso-8601=?", "rfc-email:R", "rfc-3339=", "reference:r", "set:s"},
}

// date prints env.Now() (or -d/-r) in UTC unless TZ names a zone.
func date(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "date", 1, dateSpec, argv[1:])
	if !ok {
		return st
	}
	loc := envLocation(env)
	t := env.Now()
	format := "%a %b %e %H:%M:%S %Z %Y"
	for _, o := range fl.opts {
		switch o.name {
		case "u":
			loc = time.UTC
		case "s":
			return errorf(env, 1, "date", "cannot set date: Operation not permitted")
		case "I", "iso-8601":
			f, ok := isoFormat(o.val)
			if !ok {
				return errorf(env, 1, "date", "invalid argument '%s' for '--iso-8601'", o.val)
			}
			format = f
		case "R":
			format = "%a, %d %b %Y %H:%M:%S %z"
		case "rfc-3339":
			f, ok := map[string]string{"date": "%F", "seconds": "%F %T%:z", "ns": "%F %T.%N%:z"}[o.val]
			if !ok {
				return errorf(env, 1, "date", "invalid argument '%s' for '--rfc-3339'", o.val)
			}
			format = f
		case "r":
			fi, err := env.FS.Stat(env.Abs(o.val))
			if err != nil {
				return errorf(env, 1, "date", "%s: %s", o.val, describe(err))
			}
			t = fi.ModTime()
		}
	}
	if d, ok := fl.val("d"); ok {
		pt, err := parseDateIn(d, env, loc)
		if re := (*rangeError)(nil); errors.As(err, &re) {
			return errorf(env, 1, "date", "%s", re)
		}
		if err != nil {
			return errorf(env, 1, "date", "invalid date '%s'", d)
		}
		t = pt
	}
	for _, a := range fl.operands {
		if !strings.HasPrefix(a, "+") {
			return errorf(env, 1, "date", "invalid date '%s' (setting the date is not supported)", a)
		}
		format = a[1:]
	}
	w := bufio.NewWriter(env.Stdout)
	err := strftimeTo(ctx, w, t.In(loc), format)
	if err == nil {
		err = w.WriteByte('\n')
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		if ctx.Err() != nil {
			return 130
		}
		return 1 // the reader went away, as yes
	}
	return 0
}

func isoFormat(v string) (string, bool) {
	switch v {
	case "", "date", "d":
		return "%F", true
	case "hours", "h":
		return "%FT%H%:z", true
	case "minutes", "m":
		return "%FT%H:%M%:z", true
	case "seconds", "s":
		return "%FT%T%:z", true
	case "ns", "n":
		return "%FT%T,%N%:z", true
	}
	return "", false
}

// parseDate reads a date in the script's zone (see parseDateIn).
func parseDate(s string, env *Env) (time.Time, error) { return parseDateIn(s, env, envLocation(env)) }

var relItem = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^([+-]?\s*\d+)?\s*(next|last|this)?\s*(seconds?|secs?|minutes?|mins?|hours?|days?|weeks?|fortnights?|months?|years?)\s*(ago)?\s*`)
})

// dayItem is a day of the week, with GNU's optional ordinal before it ("next monday",
// "last fri", "this Thursday", "2 tue"); "second" is a unit, not an ordinal, as in GNU.
var dayItem = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(last|this|next|first|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d+)?\s*` +
		`(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues|tue|wednes|wed|thurs|thur|thu|fri|sat)\.?,?(?:\s+|$)`)
})

// dayOrdinals are GNU's ordinal words.
var dayOrdinals = map[string]int64{"last": -1, "this": 0, "next": 1, "first": 1, "third": 3, "fourth": 4, "fifth": 5,
	"sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}

// weekdayOf is the day a name of dayItem names (Sunday 0).
func weekdayOf(name string) int {
	switch strings.ToLower(name)[:2] {
	case "su":
		return 0
	case "mo":
		return 1
	case "tu":
		return 2
	case "we":
		return 3
	case "th":
		return 4
	case "fr":
		return 5
	}
	return 6
}

var tzAfterTime = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([+-])\s*(\d{1,4})\b`) })

// GNU date keeps a year in a C int counted from 1900: a date outside these years is invalid
// (relative items), or out of range (@seconds), never a wrapped-around year.
const (
	maxDateYear = math.MaxInt32 + 1900
	minDateYear = math.MinInt32 + 1900
)

// rangeError is a date in seconds since the epoch past the years GNU date can hold: "time
// 'secs' is out of range".
type rangeError struct{ secs string }

func (e *rangeError) Error() string { return "time '" + e.secs + "' is out of range" }

// inDateRange reports whether t's year is one GNU date can hold (in loc, as it prints it).
func inDateRange(t time.Time, loc *time.Location) bool {
	y := t.In(loc).Year()
	return y >= minDateYear && y <= maxDateYear
}

var errInvalidDate = errors.New("invalid date")

// epochSeconds is GNU's @seconds: a sign, digits and an optional fraction after . or ,.
var epochSeconds = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([+-]?)\s*(\d+)(?:[.,](\d+))?$`) })

// parseEpoch reads the text after @.
func parseEpoch(s string, loc *time.Location) (time.Time, error) {
	m := epochSeconds().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return time.Time{}, errInvalidDate
	}
	sec, err := strconv.ParseInt(m[1]+m[2], 10, 64)
	if err != nil {
		return time.Time{}, errInvalidDate // past int64, as GNU
	}
	frac := (m[3] + "000000000")[:9]
	ns, _ := strconv.ParseInt(frac, 10, 64)
	if m[1] == "-" {
		ns = -ns
	}
	t := time.Unix(sec, ns)
	if !inDateRange(t, loc) {
		return time.Time{}, &rangeError{strings.TrimSpace(s)}
	}
	return t, nil
}

// relative is GNU's relative part of a date: its items are summed (an overflow makes the
// date invalid), then the years, months and days are added to the date's fields at once and
// the hours, minutes and seconds to the time that makes.
type relative struct {
	year, month, day, secs int64
}

// add sums n units into rel; false on an overflow.
func (rel *relative) add(unit string, n int64) bool {
	mul := func(to *int64, per int64) bool {
		v, ok := mulInt64(n, per)
		if ok {
			*to, ok = addInt64(*to, v)
		}
		return ok
	}
	switch {
	case strings.HasPrefix(unit, "sec"):
		return mul(&rel.secs, 1)
	case strings.HasPrefix(unit, "min"):
		return mul(&rel.secs, 60)
	case strings.HasPrefix(unit, "hour"):
		return mul(&rel.secs, 3600)
	case strings.HasPrefix(unit, "day"):
		return mul(&rel.day, 1)
	case strings.HasPrefix(unit, "week"):
		return mul(&rel.day, 7)
	case strings.HasPrefix(unit, "fortnight"):
		return mul(&rel.day, 14)
	case strings.HasPrefix(unit, "month"):
		return mul(&rel.month, 1)
	}
	return mul(&rel.year, 1)
}

// apply adds rel to base as GNU does: each of tm_year+years, tm_mon+months and tm_mday+days
// must fit a C int, the normalized date a year GNU holds, and the seconds added after it
// must not overflow.
func (rel relative) apply(base time.Time, loc *time.Location) (time.Time, error) {
	if rel == (relative{}) {
		return base, nil
	}
	fits := func(v, d int64) bool { s, ok := addInt64(v, d); return ok && s >= math.MinInt32 && s <= math.MaxInt32 }
	if !fits(int64(base.Year()-1900), rel.year) || !fits(int64(base.Month()-1), rel.month) || !fits(int64(base.Day()), rel.day) {
		return time.Time{}, errInvalidDate
	}
	t := base
	if rel.year != 0 || rel.month != 0 || rel.day != 0 {
		t = time.Date(base.Year()+int(rel.year), base.Month()+time.Month(rel.month), base.Day()+int(rel.day),
			base.Hour(), base.Minute(), base.Second(), base.Nanosecond(), base.Location())
		if !inDateRange(t, loc) {
			return time.Time{}, errInvalidDate
		}
	}
	if rel.secs != 0 {
		secs, ok := addInt64(t.Unix(), rel.secs)
		if !ok {
			return time.Time{}, errInvalidDate
		}
		t = time.Unix(secs, int64(t.Nanosecond())).In(base.Location())
		if !inDateRange(t, loc) {
			return time.Time{}, &rangeError{strconv.FormatInt(secs, 10)}
		}
	}
	return t, nil
}

func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	return p, p/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
}

// parseDateIn understands @EPOCH, ISO 8601 and RFC dates, now/today/yesterday/tomorrow, and
// relative items ("2 days ago", "+1 hour", "next week") after an optional base date.
func parseDateIn(s string, env *Env, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		return parseEpoch(rest, loc)
	}
	base, rest, naive, dated, ok := dateBase(s, env, loc)
	if !ok {
		return time.Time{}, errInvalidDate
	}
	if m := tzAfterTime().FindStringSubmatch(strings.TrimSpace(rest)); naive && m != nil {
		// GNU date reads a signed number after a time of day without a zone as the zone's
		// offset ("10:00 +1 day" is 10:00 at UTC+1, plus a day): hours, or hhmm.
		n, _ := strconv.Atoi(m[2])
		if len(m[2]) > 2 {
			n = n/100*60 + n%100
		} else {
			n *= 60
		}
		if m[1] == "-" {
			n = -n
		}
		base = time.Date(base.Year(), base.Month(), base.Day(), base.Hour(), base.Minute(), base.Second(), base.Nanosecond(),
			time.FixedZone("", n*60))
		rest = strings.TrimSpace(rest)[len(m[0]):]
	}
	var rel relative
	if dated != dateGiven {
		rel.day = int64(dated)
	}
	daySeen, dayOrd, dayNum := false, int64(0), 0
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		if d := dayItem().FindStringSubmatch(rest); d != nil {
			if daySeen {
				return time.Time{}, errInvalidDate // two days of the week: GNU's too
			}
			daySeen, dayNum = true, weekdayOf(d[2])
			if o, ok := dayOrdinals[strings.ToLower(d[1])]; ok {
				dayOrd = o
			} else if d[1] != "" {
				n, err := strconv.ParseInt(d[1], 10, 64)
				if err != nil || n > math.MaxInt32 {
					return time.Time{}, errInvalidDate
				}
				dayOrd = n
			}
			rest = rest[len(d[0]):]
			continue
		}
		m := relItem().FindStringSubmatch(rest)
		if m == nil || m[0] == "" {
			return time.Time{}, errInvalidDate
		}
		n := int64(1)
		if m[1] != "" {
			var err error
			if n, err = strconv.ParseInt(strings.ReplaceAll(m[1], " ", ""), 10, 64); err != nil {
				return time.Time{}, errInvalidDate // past int64: GNU's overflow
			}
		}
		if strings.EqualFold(m[2], "last") {
			n = -n
		} else if strings.EqualFold(m[2], "this") {
			n = 0
		}
		if m[4] != "" {
			n = -n
		}
		if !rel.add(strings.ToLower(m[3]), n) {
			return time.Time{}, errInvalidDate
		}
		rest = rest[len(m[0]):]
	}
	if daySeen && dated != dateGiven {
		// GNU: the day's midnight, moved to the named day (this one, or the next one on or
		// after today; next: after today; last: before it; N: the Nth from this one), then
		// the relative items. A day of the week after a date is ignored, as in GNU.
		wd := int64(base.Weekday())
		shift := (int64(dayNum)-wd+7)%7 + 7*dayOrd
		if dayOrd > 0 && wd != int64(dayNum) {
			shift -= 7
		}
		if !rel.add("day", shift) {
			return time.Time{}, errInvalidDate
		}
		base = time.Date(base.Year(), base.Month(), base.Day(), 0, 0, 0, 0, base.Location())
	}
	return rel.apply(base, loc)
}

var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05 Z07:00",
	"2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 MST", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05",
	"2006-01-02T15:04", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02",
	"2006/01/02 15:04:05", "2006/01/02", "01/02/2006", time.RFC1123Z, time.RFC1123, time.UnixDate, time.ANSIC,
	"Mon Jan _2 15:04:05 MST 2006", "Jan _2 2006", "Jan _2, 2006", "_2 Jan 2006", "January _2, 2006", "_2 January 2006",
	"20060102", "20060102T150405", "20060102T150405Z0700",
}

// dateGiven is dateBase's dated when s starts with an absolute date.
const dateGiven = math.MinInt

// dateBase splits s into an absolute date (now when there is none) and the relative rest;
// naive is set when the date has a time of day but no zone. dated is dateGiven for an
// absolute date, else the days a leading now/today/yesterday/tomorrow adds to now (GNU's
// relative items: a day of the week after them moves today, then they apply).
func dateBase(s string, env *Env, loc *time.Location) (t time.Time, rest string, naive bool, dated int, ok bool) {
	now := env.Now().In(loc)
	lower := strings.ToLower(s)
	for _, kw := range []struct {
		word string
		days int
	}{{"now", 0}, {"today", 0}, {"yesterday", -1}, {"tomorrow", 1}} {
		if rest, ok := strings.CutPrefix(lower, kw.word); ok && (rest == "" || rest[0] == ' ') {
			return now, rest, false, kw.days, true
		}
	}
	// The longest prefix that parses as a date wins ("2024-01-02 10:00 +1 day"); no layout
	// has more than six words, so longer prefixes are not tried (each try joins the prefix:
	// quadratic in a string of half a million words).
	words := strings.Fields(s)
	for n := min(len(words), 8); n > 0; n-- {
		head := strings.Join(words[:n], " ")
		for _, layout := range dateLayouts {
			if t, err := time.ParseInLocation(layout, head, loc); err == nil {
				zoned := strings.Contains(layout, "Z07") || strings.Contains(layout, "-0700") || strings.Contains(layout, "MST")
				return t, strings.Join(words[n:], " "), strings.Contains(layout, "15") && !zoned, dateGiven, true
			}
		}
		if strings.HasSuffix(head, " UTC") || strings.HasSuffix(head, "Z") {
			trimmed := strings.TrimSuffix(strings.TrimSuffix(head, " UTC"), "Z")
			for _, layout := range dateLayouts {
				if t, err := time.ParseInLocation(layout, trimmed, time.UTC); err == nil {
					return t, strings.Join(words[n:], " "), false, dateGiven, true
				}
			}
		}
	}
	if relItem().MatchString(s) || dayItem().MatchString(s) {
		return now, s, false, 0, true
	}
	return time.Time{}, "", false, 0, false
}

// strftime renders GNU date's % codes, with the - _ 0 ^ # flags and a field width, as a string
// (the fixed formats of %F, %T, ... and find's -printf, whose widths are the caller's).
func strftime(t time.Time, f string) string {
	var b strings.Builder
	strftimeTo(context.Background(), &b, t, f)
	return b.String()
}

// strftimeTo writes the rendering of f to w. A field's width comes from the format, so its
// padding is written in chunks that check ctx, never built as one string of the width's size:
// `date +%1000000000Y` writes a billion zeros as GNU date does, and ends with the call.
func strftimeTo(ctx context.Context, w io.Writer, t time.Time, f string) error {
	lit := 0 // start of the literal text not yet written
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			continue
		}
		j := i + 1
		flags := ""
		for j < len(f) && strings.IndexByte("-_0^#", f[j]) >= 0 {
			flags += string(f[j])
			j++
		}
		width := -1
		if k := j; k < len(f) && f[k] >= '1' && f[k] <= '9' {
			for k < len(f) && f[k] >= '0' && f[k] <= '9' {
				k++
			}
			var err error
			if width, err = strconv.Atoi(f[j:k]); err != nil {
				width = math.MaxInt // GNU takes an overflowing width as the largest
			}
			j = k
		}
		colons := 0
		for j < len(f) && f[j] == ':' {
			colons++
			j++
		}
		if j >= len(f) {
			break
		}
		if _, err := io.WriteString(w, f[lit:i]); err != nil {
			return err
		}
		if f[j] == 'N' && width > 9 {
			// GNU pads nanoseconds on the right, with zeros (or spaces with _; - pads none).
			if _, err := io.WriteString(w, fmt.Sprintf("%09d", t.Nanosecond())); err != nil {
				return err
			}
			if pad := byte('0'); !strings.Contains(flags, "-") {
				if strings.Contains(flags, "_") {
					pad = ' '
				}
				if err := writeFill(ctx, w, pad, width-9); err != nil {
					return err
				}
			}
			i, lit = j, j+1
			continue
		}
		body, pad, n := strftimeField(t, f[j], flags, width, colons)
		if n > len(body) {
			if err := writeFill(ctx, w, pad, n-len(body)); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, body); err != nil {
			return err
		}
		i, lit = j, j+1
	}
	_, err := io.WriteString(w, f[min(lit, len(f)):])
	return err
}

// strftimeField renders one conversion: its text, and the character and width it is padded
// to on the left (no padding when the width is not more than the text).
func strftimeField(t time.Time, c byte, flags string, width, colons int) (string, byte, int) {
	num := func(v, w int, pad byte) (string, byte, int) {
		if strings.Contains(flags, "-") {
			return strconv.Itoa(v), 0, 0
		}
		if strings.Contains(flags, "_") {
			pad = ' '
		} else if strings.Contains(flags, "0") {
			pad = '0'
		}
		if width >= 0 {
			w = width
		}
		return strconv.Itoa(v), pad, w
	}
	str := func(s string) (string, byte, int) {
		if strings.Contains(flags, "^") {
			s = strings.ToUpper(s)
		} else if strings.Contains(flags, "#") {
			s = swapCase(s)
		}
		pad := byte(' ')
		if strings.Contains(flags, "0") {
			pad = '0' // GNU pads text with zeros too when asked: %010a is 0000000Tue
		}
		return s, pad, width
	}
	plain := func(s string) (string, byte, int) { return s, 0, 0 }
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	isoYear, isoWeek := t.ISOWeek()
	switch c {
	case 'Y':
		return num(t.Year(), 4, '0')
	case 'C':
		return num(t.Year()/100, 2, '0')
	case 'y':
		return num(t.Year()%100, 2, '0')
	case 'G':
		return num(isoYear, 4, '0')
	case 'g':
		return num(isoYear%100, 2, '0')
	case 'm':
		return num(int(t.Month()), 2, '0')
	case 'd':
		return num(t.Day(), 2, '0')
	case 'e':
		return num(t.Day(), 2, ' ')
	case 'H':
		return num(t.Hour(), 2, '0')
	case 'k':
		return num(t.Hour(), 2, ' ')
	case 'I':
		return num(hour12, 2, '0')
	case 'l':
		return num(hour12, 2, ' ')
	case 'M':
		return num(t.Minute(), 2, '0')
	case 'S':
		return num(t.Second(), 2, '0')
	case 'j':
		return num(t.YearDay(), 3, '0')
	case 'u':
		return num((int(t.Weekday())+6)%7+1, 1, '0')
	case 'w':
		return num(int(t.Weekday()), 1, '0')
	case 'U':
		return num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0')
	case 'W':
		return num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0')
	case 'V':
		return num(isoWeek, 2, '0')
	case 'q':
		return num((int(t.Month())-1)/3+1, 1, '0')
	case 's':
		return num(int(t.Unix()), 1, '0')
	case 'N':
		ns := fmt.Sprintf("%09d", t.Nanosecond())
		if width > 0 && width < 9 {
			return plain(ns[:width])
		}
		return plain(ns)
	case 'a':
		return str(t.Format("Mon"))
	case 'A':
		return str(t.Format("Monday"))
	case 'b', 'h':
		return str(t.Format("Jan"))
	case 'B':
		return str(t.Format("January"))
	case 'p':
		return str(t.Format("PM"))
	case 'P':
		return str(strings.ToLower(t.Format("PM")))
	case 'Z':
		return str(t.Format("MST"))
	case 'z':
		return str(t.Format([]string{"-0700", "-07:00", "-07:00:00", "-07"}[min(colons, 3)]))
	case 'F':
		return str(strftime(t, "%Y-%m-%d"))
	case 'T':
		return str(strftime(t, "%H:%M:%S"))
	case 'D', 'x':
		return str(strftime(t, "%m/%d/%y"))
	case 'R':
		return str(strftime(t, "%H:%M"))
	case 'r':
		return str(strftime(t, "%I:%M:%S %p"))
	case 'X':
		return str(strftime(t, "%H:%M:%S"))
	case 'c':
		return str(strftime(t, "%a %b %e %H:%M:%S %Y"))
	case 'n':
		return plain("\n")
	case 't':
		return plain("\t")
	case '%':
		return plain("%")
	}
	return plain("%" + string(c))
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}
