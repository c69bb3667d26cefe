package eval

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/strerror"
)

// redirState undoes the redirections of one command.
type redirState struct {
	r      *Runner
	saved  *fdTable
	credit int64
	// Bash performs the redirections of a builtin, function or compound command in the shell
	// itself and does not undo all of them: descriptors opened with {var}> stay open (kept),
	// and N>&M- onto an N that was closed leaves M closed (lost, a bash 5.2 bug). An
	// external command (child set) gets its redirections in the child: all are undone.
	kept, lost []int
	child      bool
	// keptVars are the {var} names with their values before; a child's assignments do not
	// reach the shell.
	keptVars []savedVar
}

type savedVar struct {
	name, val string
	set       bool
}

func (rs *redirState) restore() {
	r := rs.r
	if rs.saved != nil {
		var carry []*ofile
		if !rs.child {
			for _, n := range rs.kept {
				if f := r.fds.get(n); f != nil {
					carry = append(carry, f.ref())
				} else {
					carry = append(carry, nil)
				}
			}
		}
		r.fds.closeAll()
		r.fds = rs.saved
		rs.saved = nil
		for i, f := range carry {
			if f != nil {
				r.fds.set(rs.kept[i], f)
			}
		}
		if !rs.child {
			for _, n := range rs.lost {
				r.fds.set(n, nil)
			}
		}
	}
	if rs.child {
		for i := len(rs.keptVars) - 1; i >= 0; i-- {
			sv := rs.keptVars[i]
			if sv.set {
				_ = r.assign(sv.name, sv.val, 0)
			} else {
				_ = r.unsetVar(sv.name, false)
			}
		}
		rs.keptVars = nil
	}
	if rs.credit != 0 {
		r.c.mem.Add(-rs.credit)
		rs.credit = 0
	}
}

// redirect performs redirections. permanent (exec without a command) changes the shell's
// own table; otherwise the returned state restores it.
func (r *Runner) redirect(redirs []*syntax.Redirect, permanent bool) (*redirState, error) {
	rs := &redirState{r: r}
	if !permanent {
		rs.saved = r.fds
		r.fds = r.fds.dup()
	}
	for _, rd := range redirs {
		if err := r.redirectOne(rd, rs); err != nil {
			rs.restore()
			return nil, err
		}
	}
	if r.fds.count() > r.c.limits.MaxFDs {
		rs.restore()
		return nil, r.fatal(&LimitError{Kind: LimitFDs, Max: int64(r.c.limits.MaxFDs)})
	}
	return rs, nil
}

func (r *Runner) redirectOne(rd *syntax.Redirect, rs *redirState) error {
	fd := 1
	switch rd.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		fd = 0
	}
	varName := ""
	if rd.N != nil {
		v := rd.N.Value
		if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
			varName = v[1 : len(v)-1]
		} else {
			n, err := strconv.Atoi(v)
			if err != nil || n > 1<<20 {
				r.errorf("%s: bad file descriptor", v)
				return errStatus1
			}
			fd = n
		}
	}
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		body, err := r.heredoc(rd)
		if err != nil {
			return err
		}
		rs.credit += int64(len(body))
		if err := r.charge(int64(len(body))); err != nil {
			return err
		}
		return r.place(fd, varName, newOfile(strings.NewReader(body), nil, nil), rs)
	case syntax.WordHdoc:
		s, err := r.expandString(rd.Word, ctxPlain)
		if err != nil {
			return err
		}
		s += "\n"
		rs.credit += int64(len(s))
		if err := r.charge(int64(len(s))); err != nil {
			return err
		}
		return r.place(fd, varName, newOfile(strings.NewReader(s), nil, nil), rs)
	case syntax.DplIn, syntax.DplOut:
		word, err := r.redirWord(rd)
		if err != nil {
			return err
		}
		if varName != "" && word == "-" {
			// {var}>&- closes the descriptor whose number var (or var[sub]) holds.
			v, ok := r.redirVarValue(varName)
			n, err := strconv.Atoi(v)
			if !ok || err != nil {
				r.errorf("%s: ambiguous redirect", v)
				return errStatus1
			}
			r.fds.set(n, nil)
			return nil
		}
		if word == "-" {
			r.fds.set(fd, nil)
			return nil
		}
		move := strings.HasSuffix(word, "-")
		num := strings.TrimSuffix(word, "-")
		if n, err := strconv.Atoi(num); err == nil && isDigits(num) {
			if n == fd && varName == "" {
				// n>&n, n<&n and n>&n- leave n as it is, open or not: bash dups only to
				// another descriptor and never checks this one.
				return nil
			}
			src := r.fds.get(n)
			if src == nil || (rd.Op == syntax.DplOut && !src.writable() && n > 2) || (rd.Op == syntax.DplIn && !src.readable() && n > 2) {
				r.errorf("%s: Bad file descriptor", num)
				return errStatus1
			}
			if err := r.place(fd, varName, src.ref(), rs); err != nil {
				return err
			}
			if move && n != fd {
				if rs.saved != nil && varName == "" && rs.saved.get(fd) == nil {
					rs.lost = append(rs.lost, n)
				}
				r.fds.set(n, nil)
			}
			return nil
		}
		if rd.Op == syntax.DplOut && fd == 1 && varName == "" {
			// >&file (and 1>&file) is &>file.
			f, err := r.openRedir(word, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, true)
			if err != nil {
				return err
			}
			r.fds.set(1, f)
			r.fds.set(2, f.ref())
			return nil
		}
		r.errorf("%s: ambiguous redirect", word)
		return errStatus1
	}
	word, err := r.redirWord(rd)
	if err != nil {
		return err
	}
	var flag int
	clobberCheck := false
	switch rd.Op {
	case syntax.RdrIn:
		flag = os.O_RDONLY
	case syntax.RdrOut:
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		clobberCheck = r.opts.has(optNoclobber)
	case syntax.RdrClob:
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case syntax.AppOut:
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case syntax.RdrInOut:
		flag = os.O_RDWR | os.O_CREATE
	case syntax.RdrAll:
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		clobberCheck = r.opts.has(optNoclobber)
	case syntax.AppAll:
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	default:
		return r.refuseErr(rd.Pos(), "the redirection "+rd.Op.String())
	}
	f, err := r.openRedir(word, flag, clobberCheck)
	if err != nil {
		return err
	}
	if rd.Op == syntax.RdrAll || rd.Op == syntax.AppAll {
		r.fds.set(1, f)
		r.fds.set(2, f.ref())
		return nil
	}
	return r.place(fd, varName, f, rs)
}

// place installs f at fd, or at a new descriptor from 10 stored in varName ({var}>).
func (r *Runner) place(fd int, varName string, f *ofile, rs *redirState) error {
	if varName != "" {
		name, sub, hasSub, ok := parseParamRef(varName)
		if !ok || !validName(name) || sub == "@" || sub == "*" {
			f.release()
			r.errorf("{%s}: invalid variable name for redirection", varName)
			return errStatus1
		}
		fd = r.fds.lowestFree(10)
		if hasSub {
			// {a[i]}>file stores the descriptor in an element (kept in a child as well).
			var err error
			if sub, err = r.expandSubscriptText(sub); err == nil {
				err = r.assignElem(name, sub, strconv.Itoa(fd), 0, true)
			}
			if err != nil {
				f.release()
				return err
			}
		} else {
			old, wasSet := r.scalar(varName)
			rs.keptVars = append(rs.keptVars, savedVar{name: varName, val: old, set: wasSet})
			if err := r.assign(varName, strconv.Itoa(fd), 0); err != nil {
				f.release()
				return err
			}
		}
		rs.kept = append(rs.kept, fd)
	}
	r.fds.set(fd, f)
	return nil
}

// redirVarValue is the value of a {var} redirection's variable, which may be an element.
func (r *Runner) redirVarValue(ref string) (string, bool) {
	name, sub, hasSub, ok := parseParamRef(ref)
	if !ok {
		return "", false
	}
	if hasSub {
		var err error
		if sub, err = r.expandSubscriptText(sub); err != nil {
			return "", false
		}
	}
	pv, err := r.paramValue(name, sub, hasSub)
	if err != nil || pv.isList {
		return "", false
	}
	return pv.str, pv.set
}

// redirWord expands a redirection target: one field after splitting and globbing.
func (r *Runner) redirWord(rd *syntax.Redirect) (string, error) {
	if s, ok := simpleLit(rd.Word); ok {
		return s, nil
	}
	fields, err := r.expandFields([]*syntax.Word{rd.Word})
	if err != nil {
		return "", err
	}
	if len(fields) != 1 {
		r.errorf("%s: ambiguous redirect", r.cur.slice(rd.Word.Pos(), rd.Word.End()))
		return "", errStatus1
	}
	return fields[0], nil
}

// openRedir opens a redirection target.
func (r *Runner) openRedir(name string, flag int, noclobber bool) (*ofile, error) {
	if f, ok, err := r.specialFile(name, flag); ok {
		if err != nil {
			r.errorf("%s: %s", name, errText(err))
			return nil, errStatus1
		}
		return f, nil
	}
	if name == "" {
		r.errorf(": No such file or directory")
		return nil, errStatus1
	}
	p := r.absPath(name)
	if noclobber {
		if fi, err := r.c.fs.Stat(p); err == nil && fi.Mode().IsRegular() {
			r.errorf("%s: cannot overwrite existing file", name)
			return nil, errStatus1
		}
	}
	perm := 0o666 &^ fs.FileMode(r.umask())
	// The host process's umask (usually 022) would also apply: a script whose own umask
	// leaves group or other write gets them set on the file it creates.
	created := false
	if flag&os.O_CREATE != 0 && perm&0o022 != 0 {
		if _, err := r.c.fs.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			created = true
		}
	}
	f, err := r.c.fs.Open(p, flag, perm)
	if err == nil && created {
		err = r.c.fs.Chmod(p, perm)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		r.errorf("%s: %s", name, errText(err))
		return nil, errStatus1
	}
	var rd, wr = f, f
	of := newOfile(nil, nil, f)
	if flag&(os.O_WRONLY) == 0 {
		of.r = rd
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		of.w = wr
	}
	return of, nil
}

// specialFile serves the paths bash itself handles: /dev/fd/N and the standard streams
// (from the shell's own table), /dev/null.
func (r *Runner) specialFile(name string, flag int) (*ofile, bool, error) {
	p := name
	if !path.IsAbs(p) {
		return nil, false, nil
	}
	p = path.Clean(p)
	n := -1
	switch {
	case p == "/dev/null":
		return newOfile(nullFile{}, nullFile{}, nil), true, nil
	case p == "/dev/stdin":
		n = 0
	case p == "/dev/stdout":
		n = 1
	case p == "/dev/stderr":
		n = 2
	case strings.HasPrefix(p, "/dev/fd/"):
		n, _ = strconv.Atoi(p[len("/dev/fd/"):])
	case strings.HasPrefix(p, "/proc/self/fd/"):
		n, _ = strconv.Atoi(p[len("/proc/self/fd/"):])
	case strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/"):
		return nil, true, errNetwork
	default:
		return nil, false, nil
	}
	f := r.fds.get(n)
	if n < 0 || f == nil {
		return nil, true, syscall.EBADF
	}
	return f.ref(), true, nil
}

var errNetwork = errors.New("network redirections are not available in the sandbox")

// errText renders a file error as strerror words.
func errText(err error) string {
	var me MessageError
	if errors.As(err, &me) {
		return me.ShellMessage()
	}
	if errors.Is(err, errNetwork) {
		return err.Error()
	}
	return strerror.Words(err)
}

// absPath resolves a path against the working directory.
func (r *Runner) absPath(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(r.dir, p)
}

// heredoc expands a here-document body.
func (r *Runner) heredoc(rd *syntax.Redirect) (string, error) {
	if rd.Hdoc == nil {
		return "", nil
	}
	quoted := false
	for _, p := range rd.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				quoted = true
			}
		}
	}
	dash := rd.Op == syntax.DashHdoc
	if quoted {
		s := ""
		for _, p := range rd.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				// The parser read the body as unquoted (a delimiter quoted only in part,
				// <<E"O"T): the text is the source's.
				s = r.cur.slice(rd.Hdoc.Pos(), rd.Hdoc.End())
				s = s[:strings.LastIndexByte(s, '\n')+1] // without the delimiter line
				break
			}
			s += l.Value
		}
		if dash {
			s = stripTabs(s, true)
		}
		return s, nil
	}
	e := &expander{r: r, mode: modeString}
	lineStart := true
	for _, p := range rd.Hdoc.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			s := l.Value
			if dash {
				s = stripTabs(s, lineStart)
			}
			e.lit(unescapeHdoc(s), true)
			lineStart = strings.HasSuffix(l.Value, "\n")
			continue
		}
		lineStart = false
		if err := e.parts([]syntax.WordPart{p}, true, false, false); err != nil {
			return "", err
		}
	}
	return e.joinedText(), nil
}

// stripTabs removes leading tabs of each line (<<-); atStart says s begins a line.
func stripTabs(s string, atStart bool) string {
	var b strings.Builder
	start := atStart
	for i := 0; i < len(s); i++ {
		c := s[i]
		if start && c == '\t' {
			continue
		}
		start = c == '\n'
		b.WriteByte(c)
	}
	return b.String()
}
