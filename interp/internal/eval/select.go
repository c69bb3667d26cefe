package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// selectClause runs `select name [in words]; do list; done` as bash does: the menu and the
// PS3 prompt on stderr, a line read into REPLY (as `read` without -r reads it), name set to the
// chosen word ("" for anything else), the body run, until break or the end of the input
// (status 1, after a newline on stdout).
func (r *Runner) selectClause(c *syntax.ForClause, l *syntax.WordIter) {
	r.lineno = r.line(c.Pos())
	items := r.params
	if l.InPos.IsValid() {
		var err error
		if items, err = r.expandFields(l.Items); err != nil {
			r.status = r.raise(err)
			return
		}
	}
	name := l.Name.Value
	if !validName(name) {
		r.errorf("`%s': not a valid identifier", name)
		r.status = 1
		return
	}
	if r.opts.has(optXtrace) {
		// Traced once, as written, before the first menu.
		text := "select " + name
		if l.InPos.IsValid() && len(l.Items) > 0 {
			text += " in " + r.cur.slice(l.Items[0].Pos(), l.Items[len(l.Items)-1].End())
		} else if !l.InPos.IsValid() {
			text += ` in "$@"`
		}
		r.xtraceText(text)
	}
	r.status = 0
	if len(items) == 0 {
		return
	}
	menu := true // the menu shows before the first prompt, and again after an empty reply
	for {
		if err := r.checkCtx(); err != nil {
			r.status = r.raise(err)
			return
		}
		choice, ok := r.selectQuery(items, &menu)
		if r.flow != flowNone {
			return
		}
		if !ok {
			r.status = 1
			return
		}
		if err := r.assign(name, choice, 0); err != nil {
			var se *shError
			if errors.As(err, &se) && se.flow == flowDiscard {
				r.status = 1
				return
			}
			r.status = r.raise(err)
			return
		}
		if r.loopBody(c.Do) {
			return
		}
	}
}

// selectQuery shows the menu (when *menu) and the prompt and reads a choice: the word, "" for
// a reply that is not one of the numbers, ok false at the end of the input. An empty line
// shows the menu again.
func (r *Runner) selectQuery(items []string, menu *bool) (string, bool) {
	for {
		if *menu {
			r.selectMenu(items)
			*menu = false
		}
		ps3, set := r.scalar("PS3")
		if !set {
			ps3 = "#? "
		}
		_, _ = fmt.Fprint(r.stderr(), ps3)
		if biRead(r, []string{"read"}) != 0 || r.flow != flowNone {
			if r.flow == flowNone {
				r.out("select", "\n")
			}
			return "", false
		}
		reply, _ := r.scalar("REPLY")
		if reply == "" {
			*menu = true
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(reply), 10, 64)
		if err != nil || n < 1 || n > int64(len(items)) {
			return "", true
		}
		return items[n-1], true
	}
}

// selectMenu prints the numbered words in columns as bash's print_select_list does: as many
// columns as fit in COLUMNS (80), filled downwards, padded with tabs and spaces.
func (r *Runner) selectMenu(items []string) {
	columns := 80
	if v, ok := r.scalar("COLUMNS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			columns = n
		}
	}
	numLen := func(n int) int { return len(strconv.Itoa(n)) }
	maxLen := 0
	for _, it := range items {
		maxLen = max(maxLen, utf8.RuneCountInString(it))
	}
	indexLen := numLen(len(items))
	maxLen += indexLen + 2 + 2 // ") " and two spaces between columns
	cols := max(columns/maxLen, 1)
	rows := len(items) / cols
	if len(items)%cols != 0 {
		rows++
	}
	cols = len(items) / rows
	if len(items)%rows != 0 {
		cols++
	}
	if rows == 1 {
		rows, cols = cols, 1
	}
	firstLen := numLen(rows)
	var b strings.Builder
	for row := 0; row < rows; row++ {
		pos := 0
		for ind := row; ; {
			il := indexLen
			if pos == 0 {
				il = firstLen
			}
			fmt.Fprintf(&b, "%*d) %s", il, ind+1, items[ind])
			width := utf8.RuneCountInString(items[ind]) + il + 2
			ind += rows
			if ind >= len(items) {
				break
			}
			from, to := pos+width, pos+maxLen
			for to/8 > from/8 {
				b.WriteByte('\t')
				from += 8 - from%8
			}
			for ; from < to; from++ {
				b.WriteByte(' ')
			}
			pos += maxLen
		}
		b.WriteByte('\n')
	}
	_, _ = fmt.Fprint(r.stderr(), b.String())
}
