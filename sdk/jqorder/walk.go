package jqorder

import "github.com/itchyny/gojq"

// visitor walks every query and term of a parsed filter, children before their parent (so a
// callback may replace the node it is given: what is below is already visited).
type visitor struct {
	queryFn func(*gojq.Query)
	termFn  func(*gojq.Term)
}

func (v visitor) query(q *gojq.Query) {
	if q == nil {
		return
	}
	for _, fd := range q.FuncDefs {
		v.query(fd.Body)
	}
	v.term(q.Term)
	v.query(q.Left)
	v.query(q.Right)
	if v.queryFn != nil {
		v.queryFn(q)
	}
}

func (v visitor) term(t *gojq.Term) {
	if t == nil {
		return
	}
	v.index(t.Index)
	if t.Func != nil {
		for _, a := range t.Func.Args {
			v.query(a)
		}
	}
	if t.Object != nil {
		for _, kv := range t.Object.KeyVals {
			v.str(kv.KeyString)
			v.query(kv.KeyQuery)
			v.query(kv.Val)
		}
	}
	if t.Array != nil {
		v.query(t.Array.Query)
	}
	if t.Unary != nil {
		v.term(t.Unary.Term)
	}
	v.str(t.Str)
	if t.If != nil {
		v.query(t.If.Cond)
		v.query(t.If.Then)
		for _, e := range t.If.Elif {
			v.query(e.Cond)
			v.query(e.Then)
		}
		v.query(t.If.Else)
	}
	if t.Try != nil {
		v.query(t.Try.Body)
		v.query(t.Try.Catch)
	}
	if t.Reduce != nil {
		v.query(t.Reduce.Query)
		v.query(t.Reduce.Start)
		v.query(t.Reduce.Update)
	}
	if t.Foreach != nil {
		v.query(t.Foreach.Query)
		v.query(t.Foreach.Start)
		v.query(t.Foreach.Update)
		v.query(t.Foreach.Extract)
	}
	if t.Label != nil {
		v.query(t.Label.Body)
	}
	v.query(t.Query)
	for _, sfx := range t.SuffixList {
		v.index(sfx.Index)
	}
	if v.termFn != nil {
		v.termFn(t)
	}
}

func (v visitor) index(x *gojq.Index) {
	if x != nil {
		v.str(x.Str)
		v.query(x.Start)
		v.query(x.End)
	}
}

func (v visitor) str(x *gojq.String) {
	if x != nil {
		for _, q := range x.Queries {
			v.query(q)
		}
	}
}
