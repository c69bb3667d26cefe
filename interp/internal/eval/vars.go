package eval

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// attr is a variable attribute (declare -a -A -i -l -u -n -r -x -t).
type attr uint16

const (
	attrExport attr = 1 << iota
	attrReadonly
	attrInteger
	attrLower
	attrUpper
	attrNameref
	attrArray
	attrAssoc
	attrTrace
	// attrDeleted marks a tombstone: a variable of the shared base unset in this run.
	attrDeleted
	// attrTempenv marks a variable of a prefix assignment (v=x cmd): bash's local of its
	// name takes its value, and unset removes it rather than leaving it declared.
	attrTempenv
	// attrPropagate marks a function's prefix variable that export or readonly named: bash
	// hands it to the caller's scope when the function returns.
	attrPropagate
)

// variable is one shell variable. Scopes store them by value; arr and as are shared between
// copies and guarded by their frozen flag.
type variable struct {
	attrs attr
	// set is false for a variable that is declared but has no value (`declare x`, `local x`).
	set bool
	str string
	arr *indexed
	as  *assoc
}

func (v *variable) isArray() bool { return v.attrs&(attrArray|attrAssoc) != 0 }

// size is what the variable is charged against the memory budget.
func (v *variable) size() int64 {
	n := int64(len(v.str))
	if v.arr != nil {
		for _, s := range v.arr.vals {
			n += int64(len(s)) + 16
		}
	}
	if v.as != nil {
		for k, s := range v.as.m {
			n += int64(len(k)+len(s)) + 32
		}
	}
	return n
}

// scope is one level of variables: the global one, a function's locals, or the temporary
// environment of prefix assignments. A scope is written in place only by the shell that owns
// it and only while no concurrent shell (background job, pipeline stage) shares it; anyone
// else copies it first.
type scope struct {
	vars map[string]variable
	// shrunk: an entry of vars was deleted, so its size may be below what it held (the run's
	// block keeps only a map that never held more than it holds: Runner.Release).
	shrunk bool
	owner  uint64
	// readers counts the concurrent shells (background jobs, pipeline stages) that may
	// read this scope now; while it is non-zero nobody writes it in place.
	readers atomic.Int32
	// fn is a function's local scope; temp a prefix-assignment scope.
	fn, temp bool
	// cmd is the command a temp scope's prefix assignments are for.
	cmd string
	// bltnEnv: a temp scope of eval, source or ., which bash makes a variable context of
	// its own (a local declared in it lives only as long as it).
	bltnEnv bool
	// savedOpts are the set options `local -` saved, restored when the function returns.
	savedOpts *optSet
	// base holds the global scope's initial variables, shared read-only between runs; call
	// the run's own initial variables (its exported environment), read-only too: vars
	// overrides both, and call overrides base. Only the writes of the run allocate a map.
	base map[string]variable
	call *callLayer
}

// callLayer is a run's own initial variables (exported scalars): Config.Vars as the caller
// gave them (a later one of a name wins) over PWD, read where they are.
type callLayer struct {
	vars []Var
	pwd  string
}

// callGet finds a variable of the call layer.
func (s *scope) callGet(name string) (variable, bool) {
	if s.call == nil {
		return variable{}, false
	}
	for i := len(s.call.vars) - 1; i >= 0; i-- {
		if s.call.vars[i].Name == name {
			return variable{attrs: attrExport, set: true, str: s.call.vars[i].Value}, true
		}
	}
	if name == "PWD" {
		return variable{attrs: attrExport, set: true, str: s.call.pwd}, true
	}
	return variable{}, false
}

// eachCall calls fn for every variable of the call layer, once per name (its winning value).
func (l *callLayer) each(fn func(name, value string)) {
	if l == nil {
		return
	}
	pwd := true
next:
	for i := len(l.vars) - 1; i >= 0; i-- {
		v := l.vars[i]
		if !validName(v.Name) {
			continue
		}
		for j := i + 1; j < len(l.vars); j++ {
			if l.vars[j].Name == v.Name {
				continue next // a later one won
			}
		}
		if v.Name == "PWD" {
			pwd = false
		}
		fn(v.Name, v.Value)
	}
	if pwd {
		fn("PWD", l.pwd)
	}
}

// get reads a variable of the scope (its own, else the call layer's, else the shared base's).
func (s *scope) get(name string) (variable, bool) {
	if v, ok := s.vars[name]; ok {
		if v.attrs&attrDeleted != 0 {
			return variable{}, false
		}
		return v, true
	}
	if v, ok := s.callGet(name); ok {
		return v, true
	}
	if s.base != nil {
		v, ok := s.base[name]
		return v, ok
	}
	return variable{}, false
}

// del removes a variable (leaving a tombstone over the base and the call layer).
func (s *scope) del(name string) {
	if _, ok := s.base[name]; ok {
		s.vars[name] = variable{attrs: attrDeleted}
		return
	}
	if _, ok := s.callGet(name); ok {
		s.vars[name] = variable{attrs: attrDeleted}
		return
	}
	delete(s.vars, name)
	s.shrunk = true
}

// each calls fn for every variable of the scope.
func (s *scope) each(fn func(name string, v variable)) {
	for n, v := range s.vars {
		if v.attrs&attrDeleted == 0 {
			fn(n, v)
		}
	}
	s.call.each(func(name, value string) {
		if _, shadowed := s.vars[name]; !shadowed {
			fn(name, variable{attrs: attrExport, set: true, str: value})
		}
	})
	for n, v := range s.base {
		if _, shadowed := s.vars[n]; shadowed {
			continue
		}
		if _, shadowed := s.callGet(n); !shadowed {
			fn(n, v)
		}
	}
}

// cloneScope copies a scope for owner; array storage stays shared and is frozen.
func cloneScope(s *scope, owner uint64) *scope {
	n := &scope{vars: maps.Clone(s.vars), owner: owner, fn: s.fn, temp: s.temp, bltnEnv: s.bltnEnv, base: s.base, call: s.call, savedOpts: s.savedOpts}
	if n.vars == nil {
		n.vars = map[string]variable{}
	}
	for _, v := range s.vars {
		if v.arr != nil {
			v.arr.frozen.Store(true)
		}
		if v.as != nil {
			v.as.frozen.Store(true)
		}
	}
	return n
}

// writable returns scope i ready for writing by r.
func (r *Runner) writable(i int) *scope {
	s := r.scopes[i]
	if s.owner != r.id || s.readers.Load() > 0 {
		s = cloneScope(s, r.id)
		r.scopes[i] = s
	} else if s.vars == nil {
		s.vars = map[string]variable{}
	}
	return s
}

// pinScopes marks every scope and the function table as read by a concurrent shell (the
// child), until the child unpins them when it ends.
func (r *Runner) pinScopes(child *Runner) {
	child.pinned = slices.Clone(r.scopes)
	for _, s := range child.pinned {
		s.readers.Add(1)
	}
	child.pinnedFuncs = r.funcs
	r.funcs.readers.Add(1)
}

func (s *Runner) unpin() {
	for _, sc := range s.pinned {
		sc.readers.Add(-1)
	}
	s.pinned = nil
	if s.pinnedFuncs != nil {
		s.pinnedFuncs.readers.Add(-1)
		s.pinnedFuncs = nil
	}
}

// find locates a variable by name (no nameref resolution): its scope index, or -1.
func (r *Runner) find(name string) (int, variable) {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i].get(name); ok {
			return i, v
		}
	}
	return -1, variable{}
}

// maxNamerefDepth bounds nameref chains, as bash does.
const maxNamerefDepth = 8

// ref is a resolved variable reference: a name, and a subscript when a nameref points at an
// array element (declare -n r=a[1]).
type ref struct {
	name   string
	sub    string
	hasSub bool
}

// resolve follows namerefs from name. A circular chain reports bash's warning and resolves
// to nothing (ok=false).
func (r *Runner) resolve(name string) (ref, bool) {
	for range maxNamerefDepth {
		_, v := r.find(name)
		if v.attrs&attrNameref == 0 || !v.set || v.str == "" {
			return ref{name: name}, true
		}
		target := v.str
		if i := strings.IndexByte(target, '['); i > 0 && strings.HasSuffix(target, "]") {
			return ref{name: target[:i], sub: target[i+1 : len(target)-1], hasSub: true}, true
		}
		name = target
	}
	r.warnf("%s: circular name reference", name)
	return ref{}, false
}

// lookupVar returns the variable name refers to after namerefs, and whether it exists.
func (r *Runner) lookupVar(name string) (variable, ref, bool) {
	rf, ok := r.resolve(name)
	if !ok {
		return variable{}, rf, false
	}
	if dv, ok := r.dynamicVar(rf.name); ok {
		return dv, rf, true
	}
	i, v := r.find(rf.name)
	return v, rf, i >= 0
}

// scalar is the value of $name: a scalar's value, element 0 of an indexed array, key "0" of an
// associative one. ok is false when unset.
func (r *Runner) scalar(name string) (string, bool) {
	v, rf, ok := r.lookupVar(name)
	if !ok {
		return "", false
	}
	if rf.hasSub {
		// The shell's own reads (HOME, IFS, ...) have no error to report: an unexpandable key
		// names no element.
		k, err := r.refKey(v, rf.sub)
		if err != nil {
			return "", false
		}
		return r.element(v, rf.name, k)
	}
	return varScalar(&v)
}

// refKey is the key a nameref's subscript names in v when v is associative: bash expands
// the target's subscript text again when it follows the reference (quotes removed,
// parameters and command substitutions expanded: `declare -n r='A["K"]'` names A[K],
// `'A[$key]'` the key $key holds then). For an indexed array the text stays arithmetic.
// An expansion error of the key (set -u, a failed substitution) is the caller's: it ends
// the expansion as bash's does.
func (r *Runner) refKey(v variable, sub string) (string, error) {
	if v.attrs&attrAssoc == 0 || sub == "@" || sub == "*" {
		return sub, nil
	}
	return r.expandSubscriptText(sub)
}

// operandSub expands the subscript of a name[sub] a builtin was given as text (printf -v,
// read, unset): bash expands it once more, an associative key with its quotes removed
// (printf -v 'A["K"]' sets A[K]), an indexed one as text for arithmetic.
func (r *Runner) operandSub(v variable, sub string) (string, error) {
	if v.attrs&attrAssoc != 0 {
		return r.expandSubscriptText(sub)
	}
	return r.expandSubText(sub)
}

// textKey is refKey for an assignment, printf -v, read or unset operand that names
// name[sub] as text: the key, when name is associative.
func (r *Runner) textKey(name, sub string) (string, error) {
	v, _, _ := r.lookupVar(name)
	if v.attrs&attrAssoc == 0 {
		return sub, nil
	}
	return r.expandSubscriptText(sub)
}

func varScalar(v *variable) (string, bool) {
	switch {
	case v.as != nil:
		return v.as.get("0")
	case v.arr != nil:
		return v.arr.get(0)
	}
	return v.str, v.set
}

// element reads name[sub] of a variable already looked up (sub unexpanded for assoc keys is
// the caller's business: it is the final key or arithmetic text).
func (r *Runner) element(v variable, name, sub string) (string, bool) {
	if sub == "@" || sub == "*" {
		// A nameref to a[@]: the elements joined.
		pv, err := r.paramValue(name, sub, true)
		if err != nil || !pv.set {
			return "", false
		}
		return pv.joined(r), true
	}
	if v.as != nil || v.attrs&attrAssoc != 0 {
		if v.as == nil {
			return "", false
		}
		return v.as.get(sub)
	}
	text, err := r.expandSubscriptText(sub)
	if err != nil {
		return "", false
	}
	n, err := r.arithSubscript(text)
	if err != nil {
		return "", false
	}
	return r.indexGet(v, name, n)
}

// indexGet reads element n of an indexed array (negative counts from the end).
func (r *Runner) indexGet(v variable, name string, n int64) (string, bool) {
	if v.arr == nil {
		switch {
		case n == 0:
			return v.str, v.set
		case n < 0:
			// bash 5.2 counts from the end of arrays only: a scalar's or an unset name's
			// negative subscript is an error, and the element unset.
			r.errorf("%s: bad array subscript", name)
		}
		return "", false
	}
	if n < 0 {
		n += v.arr.max() + 1
		if n < 0 {
			r.errorf("%s: bad array subscript", name)
			return "", false
		}
	}
	return v.arr.get(n)
}

// assignFlags modify an assignment.
type assignFlags uint8

const (
	asAppend assignFlags = 1 << iota // +=
	asLocal                          // into the current function scope
	asGlobal                         // declare -g
)

// targetScope picks where an assignment to name lands: the scope that has it, else global.
func (r *Runner) targetScope(name string) int {
	i, _ := r.find(name)
	if i < 0 {
		return 0
	}
	return i
}

// setVar stores v at name in scope i, charging the memory budget for the change.
func (r *Runner) setVar(i int, name string, v variable) error {
	s := r.writable(i)
	old, had := s.get(name)
	var delta int64
	if had {
		delta = -old.size()
	} else {
		delta = int64(len(name)) + 48
	}
	delta += v.size()
	if err := r.charge(delta); err != nil {
		return err
	}
	s.vars[name] = v
	if r.watchVar(name) {
		r.varChanged(name, &v)
	}
	return nil
}

// charge adds delta bytes to the call's memory account (negative credits it).
func (r *Runner) charge(delta int64) error {
	if delta == 0 {
		return nil
	}
	n := r.c.mem.Add(delta)
	if delta > 0 && n > r.c.limits.MaxMemory {
		r.c.mem.Add(-delta)
		return r.fatal(&LimitError{Kind: LimitMemory, Max: r.c.limits.MaxMemory})
	}
	return nil
}

// chargeExpansion charges n bytes held by one command's expansion (its words and fields),
// given back when the command ends (creditExpansion).
func (r *Runner) chargeExpansion(n int64) error {
	if err := r.charge(n); err != nil {
		return err
	}
	r.pendingCredit += n
	return nil
}

// transform applies -i, -l and -u to a value being assigned; old is the current value for +=.
func (r *Runner) transform(attrs attr, val, old string, appending bool) (string, error) {
	if attrs&attrInteger != 0 {
		n, err := r.arithString(val)
		if err != nil {
			return "", err
		}
		if appending {
			o, err := r.arithString(old)
			if err != nil {
				return "", err
			}
			n += o
		}
		return strconv.FormatInt(n, 10), nil
	}
	if appending {
		val = old + val
	}
	switch {
	case attrs&attrUpper != 0:
		val = strings.ToUpper(val)
	case attrs&attrLower != 0:
		val = strings.ToLower(val)
	}
	return val, nil
}

// assign sets a scalar (or element 0 of an array) through namerefs.
func (r *Runner) assign(name, val string, fl assignFlags) error {
	rf, ok := r.resolve(name)
	if !ok {
		return r.discardf("%s: circular name reference", name)
	}
	if rf.hasSub {
		sub, err := r.textKey(rf.name, rf.sub)
		if err != nil {
			return err
		}
		return r.assignElem(rf.name, sub, val, fl, true)
	}
	name = rf.name
	if dv, ok := r.dynamicVar(name); ok && dv.attrs&attrReadonly != 0 {
		return r.readonlyErr(name)
	}
	if r.setDynamic(name, val) {
		return nil
	}
	i := r.assignScope(name, fl)
	v, _ := r.writable(i).get(name)
	if v.attrs&attrReadonly != 0 {
		return r.readonlyErr(name)
	}
	if v.attrs&attrNameref != 0 && !v.set {
		// `declare -n r; r=x` makes r a reference to x.
		if err := r.checkNamerefTarget(name, val); err != nil {
			return err
		}
		v.str, v.set = val, true
		return r.setVar(i, name, v)
	}
	if v.isArray() {
		return r.assignElem(name, "0", val, fl, false)
	}
	nv, err := r.transform(v.attrs, val, v.str, fl&asAppend != 0 && v.set)
	if err != nil {
		return err
	}
	if r.opts.has(optAllexport) {
		v.attrs |= attrExport
	}
	v.str, v.set = nv, true
	return r.setVar(i, name, v)
}

// assignScope finds the scope an assignment to name writes: the innermost that has it, or
// the global scope (a function's own scope with asLocal).
func (r *Runner) assignScope(name string, fl assignFlags) int {
	if fl&asLocal != 0 {
		return len(r.scopes) - 1
	}
	if fl&asGlobal != 0 {
		return 0
	}
	return r.targetScope(name)
}

func (r *Runner) readonlyErr(name string) error {
	return r.discardf("%s: readonly variable", name)
}

func (r *Runner) checkNamerefTarget(name, target string) error {
	if target == name {
		r.errorf("%s: nameref variable self references not allowed", name)
		return errStatus1
	}
	if !validRefTarget(target) {
		r.errorf("%s: invalid variable name for name reference", target)
		return errStatus1
	}
	return nil
}

func validRefTarget(s string) bool {
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		return validName(s[:i])
	}
	return validName(s)
}

// assignText assigns to a variable named by text, which may be name[subscript] (printf -v,
// read): bash expands the subscript text first.
func (r *Runner) assignText(target, val string) error {
	i := strings.IndexByte(target, '[')
	if i <= 0 || !strings.HasSuffix(target, "]") {
		return r.assign(target, val, 0)
	}
	v, rf, _ := r.lookupVar(target[:i])
	sub, err := r.operandSub(v, target[i+1:len(target)-1])
	if err != nil {
		return err
	}
	return r.assignElem(rf.name, sub, val, 0, v.attrs&attrAssoc == 0)
}

// arrayTarget resolves the variable an array assignment (name[sub]=v, name=(...)) writes: the
// nameref's target, its scope and its current value; a nameref to an element, a circular one
// and a readonly target are refused as bash refuses them.
func (r *Runner) arrayTarget(name string, fl assignFlags) (string, int, variable, error) {
	rf, ok := r.resolve(name)
	if !ok {
		return "", 0, variable{}, r.discardf("%s: circular name reference", name)
	}
	if rf.hasSub {
		r.errorf("`%s[%s]': not a valid identifier", rf.name, rf.sub)
		return "", 0, variable{}, errStatus1
	}
	name = rf.name
	i := r.assignScope(name, fl)
	v, _ := r.writable(i).get(name)
	if v.attrs&attrReadonly != 0 {
		return "", 0, variable{}, r.readonlyErr(name)
	}
	return name, i, v, nil
}

// assignElem sets name[sub]=val. evalSub says sub is still arithmetic text for an indexed
// array (false: it is already "0").
func (r *Runner) assignElem(name, sub, val string, fl assignFlags, evalSub bool) error {
	name, i, v, err := r.arrayTarget(name, fl)
	if err != nil {
		return err
	}
	if v.attrs&attrAssoc != 0 {
		if sub == "" {
			return r.discardf("%s[]: bad array subscript", name)
		}
		if v.as == nil {
			v.as = newAssoc()
		} else if v.as.frozen.Load() {
			v.as = v.as.clone()
		}
		old, had := v.as.get(sub)
		nv, err := r.transform(v.attrs, val, old, fl&asAppend != 0 && had)
		if err != nil {
			return err
		}
		if err := r.charge(int64(len(nv)-len(old)) + boolCost(!had, int64(len(sub))+32)); err != nil {
			return err
		}
		v.as.set(sub, nv)
		v.set = true
		return r.storeNoCharge(i, name, v)
	}
	var n int64
	if evalSub {
		var err error
		n, err = r.arithSubscript(sub)
		if err != nil {
			return err
		}
	}
	return r.setIndexed(i, name, v, n, sub, val, fl)
}

// assignElemNum sets name[n] of an indexed array, n already evaluated (arithmetic
// assignments to array elements).
func (r *Runner) assignElemNum(name string, n int64, val string) error {
	rf, ok := r.resolve(name)
	if !ok {
		return r.discardf("%s: circular name reference", name)
	}
	name = rf.name
	i := r.targetScope(name)
	v, _ := r.writable(i).get(name)
	if v.attrs&attrReadonly != 0 {
		return r.readonlyErr(name)
	}
	return r.setIndexed(i, name, v, n, strconv.FormatInt(n, 10), val, 0)
}

// setIndexed stores val at index n of v (an indexed array, or a scalar becoming one).
func (r *Runner) setIndexed(i int, name string, v variable, n int64, sub, val string, fl assignFlags) error {
	if name == "DIRSTACK" && r.isDynamic(name) {
		return r.setDirstackElem(n, val, fl)
	}
	if v.arr == nil {
		v.arr = &indexed{}
		if v.set && !v.isArray() {
			v.arr.vals = []string{v.str}
		}
		v.str = ""
		v.attrs |= attrArray
	} else if v.arr.frozen.Load() {
		v.arr = v.arr.clone()
	}
	if n < 0 {
		n += v.arr.max() + 1
		if n < 0 {
			return r.discardf("%s[%s]: bad array subscript", name, sub)
		}
	}
	old, had := v.arr.get(n)
	nv, err := r.transform(v.attrs, val, old, fl&asAppend != 0 && had)
	if err != nil {
		return err
	}
	if err := r.charge(int64(len(nv)-len(old)) + boolCost(!had, 16)); err != nil {
		return err
	}
	v.arr.set(n, nv)
	v.set = true
	return r.storeNoCharge(i, name, v)
}

func boolCost(b bool, n int64) int64 {
	if b {
		return n
	}
	return 0
}

// storeNoCharge stores a variable whose storage change was already charged.
func (r *Runner) storeNoCharge(i int, name string, v variable) error {
	s := r.writable(i)
	if _, had := s.get(name); !had {
		if err := r.charge(int64(len(name)) + 48); err != nil {
			return err
		}
	}
	if r.opts.has(optAllexport) {
		v.attrs |= attrExport
	}
	s.vars[name] = v
	if r.watchVar(name) {
		r.varChanged(name, &v)
	}
	return nil
}

// arrayItem is one element of an array assignment after expansion.
type arrayItem struct {
	key    string
	hasKey bool
	// keyIsNum: for indexed arrays the key is already evaluated.
	num int64
	val string
	// appendVal is [k]+=v.
	appendVal bool
	// keyText is a lazily evaluated subscript as written (what xtrace shows of it).
	keyText string
	// lazyKey evaluates an indexed array's subscript when the element is assigned.
	lazyKey func() (key string, num int64, err error)
}

// assignArray sets name=(items) (or += with asAppend). Appending works in place when the
// storage is not shared, and only the change is charged.
func (r *Runner) assignArray(name string, items []arrayItem, fl assignFlags, assocDecl bool) error {
	name, i, v, err := r.arrayTarget(name, fl)
	if err != nil {
		return err
	}
	if v.attrs&attrNameref != 0 {
		// A nameref that names nothing (ref=(x y) after declare -n ref): bash makes it an
		// array, saying so.
		r.errorf("warning: %s: removing nameref attribute", name)
		v.attrs &^= attrNameref
	}
	appending := fl&asAppend != 0
	var delta int64
	if v.attrs&attrAssoc != 0 || assocDecl {
		if !appending || v.as == nil {
			delta -= v.size()
			v.as = newAssoc()
			v.arr, v.str = nil, ""
		} else if v.as.frozen.Load() {
			v.as = v.as.clone()
		}
		v.attrs |= attrAssoc
		v.attrs &^= attrArray
		for n, it := range items {
			if err := r.checkEvery(n); err != nil {
				return err
			}
			if !it.hasKey {
				r.errorf("%s: %s: must use subscript when assigning associative array", name, it.val)
				continue
			}
			old, had := v.as.get(it.key)
			nv, err := r.transform(v.attrs, it.val, old, it.appendVal && had)
			if err != nil {
				return err
			}
			delta += int64(len(nv) - len(old))
			if !had {
				delta += int64(len(it.key)) + 32
			}
			v.as.set(it.key, nv)
		}
		v.set = true
	} else {
		var arr *indexed
		switch {
		case appending && v.arr != nil:
			arr = v.arr
			if arr.frozen.Load() {
				arr = arr.clone()
			}
		default:
			if !appending {
				delta -= v.size()
			}
			arr = &indexed{}
			if appending && v.set {
				arr.vals = []string{v.str}
			}
		}
		v.attrs |= attrArray
		if arr.keys == nil {
			// One allocation for a long list (a=($x) of millions of words), not append's
			// copies of it; each element is charged as it is set.
			arr.vals = slices.Grow(arr.vals, len(items))
		}
		next := arr.max() + 1
		stored := false
		for n, it := range items {
			if err := r.checkEvery(n); err != nil {
				return err
			}
			if it.lazyKey != nil {
				if !stored {
					// The subscripts see the array as assigned so far.
					v.arr, v.str, v.set = arr, "", true
					if err := r.storeNoCharge(i, name, v); err != nil {
						return err
					}
					stored = true
				}
				var err error
				if it.key, it.num, err = it.lazyKey(); err != nil {
					return err
				}
			}
			k := next
			if it.hasKey {
				k = it.num
				if k < 0 {
					k += arr.max() + 1
					if k < 0 {
						r.errorf("%s[%s]: bad array subscript", name, it.key)
						continue
					}
				}
			}
			old, had := arr.get(k)
			nv, err := r.transform(v.attrs, it.val, old, it.appendVal && had)
			if err != nil {
				return err
			}
			delta += int64(len(nv) - len(old))
			if !had {
				delta += 16
			}
			if err := r.charge(delta); err != nil {
				return err
			}
			delta = 0
			arr.set(k, nv)
			next = k + 1
		}
		v.arr, v.str, v.set = arr, "", true
	}
	if err := r.charge(delta); err != nil {
		return err
	}
	return r.storeNoCharge(i, name, v)
}

// unsetVar removes a variable (through namerefs unless noRef). A variable local to the
// current function stays declared but unset, as in bash.
func (r *Runner) unsetVar(name string, noRef bool) error {
	if !noRef {
		rf, ok := r.resolve(name)
		if !ok {
			return nil
		}
		if rf.hasSub {
			sub, err := r.textKey(rf.name, rf.sub)
			if err != nil {
				return err
			}
			return r.unsetElem(rf.name, sub)
		}
		name = rf.name
	}
	i, v := r.find(name)
	r.unsetDynamic(name)
	if i < 0 {
		return nil
	}
	if v.attrs&attrReadonly != 0 {
		r.errorf("unset: %s: cannot unset: readonly variable", name)
		return errStatus1
	}
	s := r.writable(i)
	if err := r.charge(-v.size()); err != nil {
		return err
	}
	if s.fn && i == len(r.scopes)-1 && r.localUnsetKeeps() && v.attrs&attrTempenv == 0 {
		s.vars[name] = variable{attrs: v.attrs &^ (attrArray | attrAssoc | attrNameref | attrInteger | attrLower | attrUpper | attrExport)}
	} else {
		s.del(name)
	}
	if r.watchVar(name) {
		r.varChanged(name, nil)
	}
	return nil
}

// localUnsetKeeps: bash keeps an unset local declared at the current scope.
func (r *Runner) localUnsetKeeps() bool { return true }

// unsetElem removes name[sub].
func (r *Runner) unsetElem(name, sub string) error {
	i, v := r.find(name)
	if i < 0 {
		return nil
	}
	v, _ = r.writable(i).get(name)
	if v.attrs&attrReadonly != 0 {
		r.errorf("unset: %s: cannot unset: readonly variable", name)
		return errStatus1
	}
	switch {
	case v.as != nil:
		if sub == "@" || sub == "*" {
			return r.unsetVar(name, true)
		}
		as := v.as
		if as.frozen.Load() {
			as = as.clone()
		}
		old, had := as.get(sub)
		as.unset(sub)
		v.as = as
		if had {
			_ = r.charge(-int64(len(old) + len(sub) + 32))
		}
	case v.attrs&attrAssoc != 0:
		return nil
	default:
		if sub == "@" || sub == "*" {
			return r.unsetVar(name, true)
		}
		n, err := r.arithSubscript(sub)
		if err != nil {
			return err
		}
		if v.arr == nil {
			switch {
			case n == 0:
				return r.unsetVar(name, true)
			case n < 0 && v.set:
				r.errorf("unset: %s: not an array variable", name)
				return errStatus1
			}
			return nil
		}
		if n < 0 {
			n += v.arr.max() + 1
			if n < 0 {
				r.errorf("unset: [%s]: bad array subscript", sub)
				return errStatus1
			}
		}
		arr := v.arr
		if arr.frozen.Load() {
			arr = arr.clone()
		}
		old, had := arr.get(n)
		arr.unset(n)
		v.arr = arr
		if had {
			_ = r.charge(-int64(len(old) + 16))
		}
	}
	s := r.writable(i)
	s.vars[name] = v
	return nil
}

// validName reports whether s is a shell identifier.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// exported lists the exported variables as K=V for a command's environment.
func (r *Runner) exported() []string {
	seen := map[string]bool{}
	var out []string
	for i := len(r.scopes) - 1; i >= 0; i-- {
		r.scopes[i].each(func(name string, v variable) {
			if seen[name] {
				return
			}
			if v.attrs&attrExport != 0 && !v.set && !v.isArray() {
				return // an exported local without a value: bash passes the outer one
			}
			seen[name] = true
			if v.attrs&attrExport == 0 || !v.set || v.isArray() {
				return
			}
			out = append(out, name+"="+v.str)
		})
	}
	return out
}

// setDirstackElem is DIRSTACK[n]=val as bash does it: an entry of the pushd stack (1 is its
// top) is replaced; index 0 (the working directory) and indices past the stack are ignored; a
// negative index counts from the end.
func (r *Runner) setDirstackElem(n int64, val string, fl assignFlags) error {
	total := int64(len(r.dirs)) + 1
	if n < 0 {
		n += total
	}
	if n < 0 {
		return r.refuseHere("DIRSTACK[index]= below the stack's first entry", DefaultFix)
	}
	if n == 0 || n >= total {
		return nil
	}
	if fl&asAppend != 0 {
		val = r.dirs[n-1] + val
	}
	d := append([]string(nil), r.dirs...)
	d[n-1] = val
	r.dirs = d
	return nil
}
