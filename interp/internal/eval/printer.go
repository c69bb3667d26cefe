package eval

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash prints function definitions (declare -f, type, set) from its parse tree in its own
// layout. printer reproduces that layout for the constructs below; anything else makes
// funcText fail with a refusal rather than print something bash would not.

type printer struct {
	r   *Runner
	src *source
	b   strings.Builder
	bad syntax.Node
	// aliases are the function's (funcDef.aliases): bash prints a body with them expanded,
	// which this printer does not reproduce.
	aliases map[string]string
}

// funcText renders a function definition as bash's declare -f prints it.
func (r *Runner) funcText(fn *funcDef) (string, error) {
	p := &printer{r: r, src: fn.src, aliases: fn.aliases}
	p.function(fn.name, fn.body, 0, false)
	if p.bad != nil {
		return "", r.refuseErr(p.bad.Pos(), "printing this function definition (declare -f, type)")
	}
	p.b.WriteByte('\n')
	return p.b.String(), nil
}

func (p *printer) fail(n syntax.Node) {
	if p.bad == nil {
		p.bad = n
	}
}

func indent(n int) string { return strings.Repeat(" ", n) }

func (p *printer) function(name string, body *syntax.Stmt, ind int, nested bool) {
	if nested {
		p.b.WriteString("function ")
	}
	p.b.WriteString(name + " () \n" + indent(ind) + "{ \n")
	switch c := body.Cmd.(type) {
	case *syntax.Block:
		p.list(c.Stmts, ind+4)
	default:
		p.b.WriteString(indent(ind + 4))
		p.stmtInline(&syntax.Stmt{Cmd: body.Cmd, Negated: body.Negated}, ind+4)
	}
	p.b.WriteString("\n" + indent(ind) + "}")
	p.redirs(body.Redirs)
}

// list prints statements one per line at ind, ";" between them; background statements
// join the next one on their line with " & ".
func (p *printer) list(stmts []*syntax.Stmt, ind int) {
	p.b.WriteString(indent(ind))
	for i, s := range stmts {
		p.stmtInline(s, ind)
		if i == len(stmts)-1 {
			if s.Background {
				p.b.WriteString(" &")
			}
			break
		}
		if s.Background {
			p.b.WriteString(" & ")
			continue
		}
		p.b.WriteString(";\n" + indent(ind))
	}
}

// stmtInline prints one statement at the current position (its continuation lines at ind).
func (p *printer) stmtInline(s *syntax.Stmt, ind int) {
	if len(s.Comments) > 0 {
		// Comments are dropped by bash; nothing to print.
	}
	if s.Negated {
		p.b.WriteString("! ")
	}
	if s.Coprocess {
		p.fail(s)
		return
	}
	p.command(s.Cmd, ind)
	p.redirs(s.Redirs)
}

func (p *printer) word(w *syntax.Word) {
	for _, part := range w.Parts {
		if sq, ok := part.(*syntax.SglQuoted); ok && sq.Dollar {
			// Bash keeps $'...' strings decoded, in single quotes.
			v := ansiC(sq.Value)
			if strings.ContainsRune(v, '\'') {
				p.fail(w)
				return
			}
			p.b.WriteString("'" + v + "'")
			continue
		}
		p.b.WriteString(p.src.slice(part.Pos(), part.End()))
	}
}

func (p *printer) words(ws []*syntax.Word) {
	for i, w := range ws {
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.word(w)
	}
}

// dupTarget reports whether the word of >& or <& is a descriptor number, - (close) or a
// number followed by - (move).
func dupTarget(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	return s != "" && isDigits(s)
}

func (p *printer) redirs(rs []*syntax.Redirect) {
	for _, rd := range rs {
		p.b.WriteByte(' ')
		if rd.Hdoc != nil {
			p.fail(rd)
			return
		}
		n := ""
		if rd.N != nil {
			n = rd.N.Value
		}
		op := rd.Op.String()
		switch rd.Op {
		case syntax.DplIn, syntax.DplOut:
			// Bash stores a literal target as a number (or a close, or a move) and prints
			// the descriptor it applies to: >&2 as 1>&2, <&3 as 0<&3, <&- as 0>&-.
			def := "1"
			if rd.Op == syntax.DplIn {
				def = "0"
			}
			if lit, ok := simpleLit(rd.Word); ok && dupTarget(lit) {
				if n == "" {
					n = def
				}
				if lit == "-" {
					op = ">&"
				}
				p.b.WriteString(n + op + lit)
				continue
			}
			if n == def {
				n = ""
			}
			p.b.WriteString(n + op)
			p.word(rd.Word)
			continue
		case syntax.RdrInOut:
			if n == "" {
				n = "0"
			}
		}
		p.b.WriteString(n + op + " ")
		p.word(rd.Word)
	}
}

func (p *printer) command(c syntax.Command, ind int) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 && len(p.aliases) > 0 {
			if n, ok := simpleLit(c.Args[0]); ok {
				if _, alias := p.aliases[n]; alias {
					p.fail(c)
				}
			}
		}
		for i, as := range c.Assigns {
			if i > 0 {
				p.b.WriteByte(' ')
			}
			p.b.WriteString(p.src.slice(as.Pos(), as.End()))
		}
		if len(c.Assigns) > 0 && len(c.Args) > 0 {
			p.b.WriteByte(' ')
		}
		p.words(c.Args)
	case *syntax.DeclClause:
		p.b.WriteString(p.src.slice(c.Pos(), c.End()))
	case *syntax.LetClause:
		p.b.WriteString(p.src.slice(c.Pos(), c.End()))
	case *syntax.ArithmCmd:
		// Bash prints the text between the parentheses as its reader has it (backslash-newline
		// pairs removed), and from the text, not the expression node: a late expression
		// (lateArith) was parsed from a blanked copy.
		text := p.src.slice(posAt(p.src.text, int(c.Left.Offset())+2), c.Right)
		p.b.WriteString("((" + strings.ReplaceAll(text, "\\\n", "") + "))")
	case *syntax.TestClause:
		p.b.WriteString("[[ ")
		p.test(c.X)
		p.b.WriteString(" ]]")
	case *syntax.BinaryCmd:
		p.stmtInline(c.X, ind)
		switch c.Op {
		case syntax.AndStmt:
			p.b.WriteString(" && ")
		case syntax.OrStmt:
			p.b.WriteString(" || ")
		case syntax.Pipe:
			p.b.WriteString(" | ")
		case syntax.PipeAll:
			p.b.WriteString(" 2>&1 | ")
		}
		p.stmtInline(c.Y, ind)
	case *syntax.Block:
		p.b.WriteString("{ \n")
		p.list(c.Stmts, ind+4)
		p.b.WriteString("\n" + indent(ind) + "}")
	case *syntax.Subshell:
		p.b.WriteString("( ")
		for i, s := range c.Stmts {
			if i > 0 {
				p.b.WriteString(";\n" + indent(ind))
			}
			p.stmtInline(s, ind)
		}
		p.b.WriteString(" )")
	case *syntax.IfClause:
		p.ifClause(c, ind)
	case *syntax.WhileClause:
		if c.Until {
			p.b.WriteString("until ")
		} else {
			p.b.WriteString("while ")
		}
		p.condList(c.Cond, ind)
		p.b.WriteString("; do\n")
		p.list(c.Do, ind+4)
		p.b.WriteString(";\n" + indent(ind) + "done")
	case *syntax.ForClause:
		if c.Select {
			p.fail(c)
			return
		}
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			p.b.WriteString("for " + l.Name.Value + " in ")
			if !l.InPos.IsValid() {
				p.b.WriteString(`"$@"`)
			} else {
				p.words(l.Items)
			}
			p.b.WriteString(";\n")
		case *syntax.CStyleLoop:
			part := func(x syntax.ArithmExpr) string {
				if x == nil {
					return ""
				}
				return strings.TrimSpace(p.src.slice(x.Pos(), x.End()))
			}
			p.b.WriteString("for ((" + part(l.Init) + "; " + part(l.Cond) + "; " + part(l.Post) + "))\n")
		}
		p.b.WriteString(indent(ind) + "do\n")
		p.list(c.Do, ind+4)
		p.b.WriteString(";\n" + indent(ind) + "done")
	case *syntax.CaseClause:
		p.b.WriteString("case ")
		p.word(c.Word)
		p.b.WriteString(" in \n")
		for _, it := range c.Items {
			p.b.WriteString(indent(ind + 4))
			p.words(it.Patterns)
			s := p.b.String()
			_ = s
			p.b.WriteString(")\n")
			if len(it.Stmts) > 0 {
				p.list(it.Stmts, ind+8)
			}
			p.b.WriteString("\n" + indent(ind+4) + it.Op.String() + "\n")
		}
		p.b.WriteString(indent(ind) + "esac")
		p.caseFixPatterns(c)
	case *syntax.FuncDecl:
		if c.Name == nil {
			p.fail(c)
			return
		}
		p.function(c.Name.Value, c.Body, ind, true)
	case *syntax.TimeClause:
		p.b.WriteString("time ")
		if c.PosixFormat {
			p.b.WriteString("-p ")
		}
		if c.Stmt != nil {
			p.stmtInline(c.Stmt, ind)
		}
	default:
		p.fail(c)
	}
}

// caseFixPatterns: bash separates alternative patterns with " | "; words() used spaces.
func (p *printer) caseFixPatterns(c *syntax.CaseClause) {
	for _, it := range c.Items {
		if len(it.Patterns) > 1 {
			var plain, bar strings.Builder
			for i, w := range it.Patterns {
				if i > 0 {
					plain.WriteByte(' ')
					bar.WriteString(" | ")
				}
				q := &printer{r: p.r, src: p.src}
				q.word(w)
				plain.WriteString(q.b.String())
				bar.WriteString(q.b.String())
			}
			s := p.b.String()
			s = strings.Replace(s, plain.String()+")\n", bar.String()+")\n", 1)
			p.b.Reset()
			p.b.WriteString(s)
		}
	}
}

// condList prints the condition of if/while: statements joined by ";\n" at ind.
func (p *printer) condList(stmts []*syntax.Stmt, ind int) {
	for i, s := range stmts {
		if i > 0 {
			p.b.WriteString(";\n" + indent(ind))
		}
		p.stmtInline(s, ind)
	}
}

func (p *printer) ifClause(c *syntax.IfClause, ind int) {
	p.b.WriteString("if ")
	p.condList(c.Cond, ind)
	p.b.WriteString("; then\n")
	p.list(c.Then, ind+4)
	p.b.WriteString(";\n")
	if e := c.Else; e != nil {
		p.b.WriteString(indent(ind) + "else\n")
		if e.ThenPos.IsValid() {
			// elif prints as a nested if.
			p.b.WriteString(indent(ind + 4))
			p.ifClause(e, ind+4)
			p.b.WriteString(";\n")
		} else {
			p.list(e.Then, ind+4)
			p.b.WriteString(";\n")
		}
	}
	p.b.WriteString(indent(ind) + "fi")
}

func (p *printer) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		p.word(x)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
			p.b.WriteString("! ")
		} else {
			p.b.WriteString(x.Op.String() + " ")
		}
		p.test(x.X)
	case *syntax.BinaryTest:
		p.test(x.X)
		p.b.WriteString(" " + x.Op.String() + " ")
		p.test(x.Y)
	case *syntax.ParenTest:
		p.b.WriteString("( ")
		p.test(x.X)
		p.b.WriteString(" )")
	default:
		p.fail(x)
	}
}

// jobText renders a background job's command on one line, as bash's report of a job a
// signal killed prints it. ok is false for the forms bash spreads over several lines (loops,
// if, case, pipelines) and any this printer does not reproduce.
func jobText(src *source, s *syntax.Stmt) (string, bool) {
	p := &printer{src: src}
	top := *s
	top.Background = false
	p.oneLine(&top)
	return p.b.String(), p.bad == nil
}

func (p *printer) oneLine(s *syntax.Stmt) {
	if s.Background || s.Coprocess {
		p.fail(s)
		return
	}
	if s.Negated {
		p.b.WriteString("! ")
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr, *syntax.DeclClause, *syntax.LetClause:
		p.command(c, 0)
	case *syntax.Subshell:
		p.b.WriteString("( ")
		for i, st := range c.Stmts {
			if i > 0 {
				p.b.WriteString("; ")
			}
			p.oneLine(st)
		}
		p.b.WriteString(" )")
	case *syntax.Block:
		p.b.WriteString("{ ")
		for _, st := range c.Stmts {
			p.oneLine(st)
			p.b.WriteString("; ")
		}
		p.b.WriteString("}")
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt {
			p.fail(c)
			return
		}
		p.oneLine(c.X)
		p.b.WriteString(" " + c.Op.String() + " ")
		p.oneLine(c.Y)
	default:
		p.fail(s)
		return
	}
	p.redirs(s.Redirs)
}
