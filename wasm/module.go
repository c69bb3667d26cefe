package wasm

import (
	"errors"
	"fmt"
	"math"
)

// Module limits. wazero's compiler does work that grows faster than a function's size (a 330 KB
// module of one function with many locals and nested blocks took 45 s and 2.8 GB), so every
// module is read by inspectModule before wazero sees it and refused beyond these. The values
// leave a wide margin over real guests (docs/WASM.md lists them with what Go, Rust and C
// guests use) and keep the worst accepted function to a bounded compile (TestCompileBombs).
const (
	// MaxModuleBytes bounds a module file.
	MaxModuleBytes = 64 << 20
	// MaxFunctions bounds the functions a module defines or imports.
	MaxFunctions = 200_000
	// MaxFunctionBytes bounds one function body.
	MaxFunctionBytes = 1 << 20
	// MaxLocals bounds the locals (parameters included) of one function.
	MaxLocals = 10_000
	// MaxDepth bounds the nesting of blocks, loops and ifs in one function (Go guests nest
	// a block for every call site of a function; the example guests reach 549).
	MaxDepth = 10_000
	// MaxNestWork bounds the sum, over every block, loop and if of a module, of its nesting
	// depth (four times that for a loop, which costs the compiler more): the compiler's work
	// grows with the square of a function's nesting.
	MaxNestWork = MaxDepth * (MaxDepth + 1) / 2
	// MaxLoopWork bounds, in one function, the sum over its loops of the square of the locals
	// read inside each loop (at most its locals): the compiler's SSA construction makes a value
	// for every local read in a loop at every enclosing loop header, and its work grows with
	// that square (measured: 4e8 units compile in about a second).
	MaxLoopWork = 400_000_000
	// MaxModuleLoopWork bounds the same sum over a whole module.
	MaxModuleLoopWork = 1_200_000_000
	// MaxTableEntries bounds a table's size, declared or grown (entries take 8 bytes each).
	MaxTableEntries = 1 << 20
	// MaxTypes, MaxImports, MaxExports, MaxGlobals and MaxSegments bound the other vectors.
	MaxTypes    = 100_000
	MaxImports  = 100_000
	MaxExports  = 100_000
	MaxGlobals  = 100_000
	MaxSegments = 100_000
	// MaxParams bounds the parameters and results of one function type.
	MaxParams = 1_000
)

// pageSize is the WebAssembly page.
const pageSize = 64 << 10

// ErrModuleLimit is wrapped by every refusal of a module for exceeding a limit.
var ErrModuleLimit = errors.New("module exceeds a limit")

// errMalformed is wrapped by every refusal of a module that is not a well-formed binary.
var errMalformed = errors.New("malformed module")

// moduleInfo is what inspectModule learns of a module without compiling it.
type moduleInfo struct {
	// imports lists each import as module, name and kind (0 func, 1 table, 2 memory, 3 global).
	imports []moduleImport
	exports map[string]byte // name → kind
	// memory is the module's own or imported memory (nil: none).
	memory *limits
	tables []limits
	// tableGrow is set when some function grows a table (table.grow).
	tableGrow bool
	functions int // imported and defined
	// The largest body, locals and nesting of any one function, and the loop work (see
	// MaxLoopWork) of the heaviest function and of the whole module.
	maxBody, maxLocals, maxDepth int
	maxLoopWork, loopWork        int64
	// nestWork is the module's sum of nesting depths (see MaxNestWork).
	nestWork int64
}

type moduleImport struct {
	module, name string
	kind         byte
}

// limits is a memory's pages or a table's entries.
type limits struct {
	min    uint64
	max    uint64
	hasMax bool
}

// tableBytes is what the module's tables take when instantiated (or, when some function grows
// them, at their largest), 8 bytes an entry as wazero stores them.
func (m *moduleInfo) tableBytes() uint64 {
	var n uint64
	for _, t := range m.tables {
		size := t.min
		if m.tableGrow {
			size = MaxTableEntries
			if t.hasMax {
				size = min(t.max, MaxTableEntries)
			}
		}
		n += size * 8
	}
	return n
}

// moduleError is a refusal with the section and, for code, the function it is about.
func moduleError(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...))
}

// reader decodes the binary format.
type reader struct {
	b   []byte
	off int
}

func (r *reader) eof() bool { return r.off >= len(r.b) }

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, moduleError(errMalformed, "unexpected end at byte %d", r.off)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) {
		return nil, moduleError(errMalformed, "unexpected end at byte %d", r.off)
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s, nil
}

// uleb reads an unsigned LEB128 of at most bits bits.
func (r *reader) uleb(bits uint) (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if shift >= bits || (bits-shift < 7 && uint64(c&0x7f)>>(bits-shift) != 0) {
			return 0, moduleError(errMalformed, "integer too large at byte %d", r.off-1)
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

func (r *reader) u32() (uint64, error) { return r.uleb(32) }

// sleb skips a signed LEB128 of at most bits bits (only its length matters here).
func (r *reader) sleb(bits uint) error {
	for n := uint(0); ; n += 7 {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if n >= bits {
			return moduleError(errMalformed, "integer too large at byte %d", r.off-1)
		}
		if c&0x80 == 0 {
			return nil
		}
	}
}

// count reads a vector length and checks it against a limit and the bytes left (every element
// takes at least one byte).
func (r *reader) count(what string, limit int) (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if n > uint64(limit) {
		return 0, moduleError(ErrModuleLimit, "%d %s, more than %d", n, what, limit)
	}
	if n > uint64(len(r.b)-r.off) {
		return 0, moduleError(errMalformed, "%d %s in %d bytes", n, what, len(r.b)-r.off)
	}
	return int(n), nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	return string(b), err
}

func (r *reader) limits(max64 uint64) (limits, error) {
	flag, err := r.byte()
	if err != nil {
		return limits{}, err
	}
	if flag > 3 { // 2 and 3: shared memory (threads), refused later by wazero when disabled
		return limits{}, moduleError(errMalformed, "limits flag %#x", flag)
	}
	var l limits
	if l.min, err = r.u32(); err != nil {
		return l, err
	}
	if flag&1 != 0 {
		if l.max, err = r.u32(); err != nil {
			return l, err
		}
		l.hasMax = true
	}
	if l.min > max64 || (l.hasMax && l.max < l.min) {
		return l, moduleError(errMalformed, "limits %d..%d", l.min, l.max)
	}
	return l, nil
}

func (r *reader) tableType() (limits, error) {
	if _, err := r.byte(); err != nil { // reftype
		return limits{}, err
	}
	t, err := r.limits(math.MaxUint32)
	if err == nil && t.min > MaxTableEntries {
		err = moduleError(ErrModuleLimit, "a table of %d entries, more than %d", t.min, MaxTableEntries)
	}
	return t, err
}

// constExpr skips an initializer expression (a constant, global.get or ref.* and end).
func (r *reader) constExpr() error {
	for i := 0; ; i++ {
		op, err := r.byte()
		if err != nil {
			return err
		}
		switch op {
		case 0x0b:
			return nil
		case 0x41:
			err = r.sleb(32)
		case 0x42:
			err = r.sleb(64)
		case 0x43:
			_, err = r.bytes(4)
		case 0x44:
			_, err = r.bytes(8)
		case 0x23, 0xd2:
			_, err = r.u32()
		case 0xd0:
			_, err = r.byte()
		case 0xfd: // v128.const
			var sub uint64
			if sub, err = r.u32(); err == nil && sub != 0x0c {
				err = moduleError(errMalformed, "instruction 0xfd %#x in a constant expression", sub)
			}
			if err == nil {
				_, err = r.bytes(16)
			}
		default:
			return moduleError(errMalformed, "instruction %#x in a constant expression", op)
		}
		if err != nil {
			return err
		}
		if i > 64 {
			return moduleError(errMalformed, "constant expression too long")
		}
	}
}

// inspectModule reads a module's sections and every function body, without compiling
// anything, and refuses it beyond the module limits. It is linear in the module's size.
func inspectModule(b []byte) (*moduleInfo, error) {
	if len(b) > MaxModuleBytes {
		return nil, moduleError(ErrModuleLimit, "%d bytes, more than %d MiB", len(b), MaxModuleBytes>>20)
	}
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, moduleError(errMalformed, "not a WebAssembly module (no \\0asm header)")
	}
	if string(b[4:8]) != "\x01\x00\x00\x00" {
		return nil, moduleError(errMalformed, "binary format version %x (want 1: a component or a future version)", b[4:8])
	}
	m := &moduleInfo{exports: map[string]byte{}}
	r := &reader{b: b, off: 8}
	var funcTypes []uint32 // type index of each defined function
	var typeParams []int   // parameter count of each type
	last := byte(0)
	for !r.eof() {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		body, err := r.bytes(size)
		if err != nil {
			return nil, err
		}
		if id != 0 {
			// Sections come once each, in order (datacount, 12, sits before code).
			if order(id) <= order(last) {
				return nil, moduleError(errMalformed, "section %d out of order", id)
			}
			last = id
		}
		s := &reader{b: body}
		switch id {
		case 0, 8, 9, 11, 12:
			// Custom, start, elements, data, datacount: nothing here costs compile work
			// (wazero decodes and validates them in linear time); only vectors are bounded.
			if id == 9 || id == 11 {
				if _, err := s.count("segments", MaxSegments); err != nil {
					return nil, err
				}
			}
			continue
		case 1:
			if typeParams, err = readTypes(s); err != nil {
				return nil, err
			}
		case 2:
			if err := readImports(s, m); err != nil {
				return nil, err
			}
		case 3:
			n, err := s.count("functions", MaxFunctions)
			if err != nil {
				return nil, err
			}
			if m.functions += n; m.functions > MaxFunctions {
				return nil, moduleError(ErrModuleLimit, "%d functions, more than %d", m.functions, MaxFunctions)
			}
			funcTypes = make([]uint32, n)
			for i := range funcTypes {
				t, err := s.u32()
				if err != nil {
					return nil, err
				}
				if t >= uint64(len(typeParams)) {
					return nil, moduleError(errMalformed, "function %d has type %d of %d", i, t, len(typeParams))
				}
				funcTypes[i] = uint32(t)
			}
		case 4:
			n, err := s.count("tables", MaxSegments)
			if err != nil {
				return nil, err
			}
			for range n {
				t, err := s.tableType()
				if err != nil {
					return nil, err
				}
				m.tables = append(m.tables, t)
			}
		case 5:
			n, err := s.count("memories", 1)
			if err != nil {
				return nil, err
			}
			if n == 1 {
				if m.memory != nil {
					return nil, moduleError(errMalformed, "a second memory")
				}
				l, err := s.limits(maxPages)
				if err != nil {
					return nil, err
				}
				m.memory = &l
			}
		case 6:
			n, err := s.count("globals", MaxGlobals)
			if err != nil {
				return nil, err
			}
			for range n {
				if _, err := s.bytes(2); err != nil { // valtype, mutability
					return nil, err
				}
				if err := s.constExpr(); err != nil {
					return nil, err
				}
			}
		case 7:
			n, err := s.count("exports", MaxExports)
			if err != nil {
				return nil, err
			}
			for range n {
				name, err := s.name()
				if err != nil {
					return nil, err
				}
				kind, err := s.byte()
				if err != nil {
					return nil, err
				}
				if _, err := s.u32(); err != nil {
					return nil, err
				}
				m.exports[name] = kind
			}
		case 10:
			n, err := s.count("function bodies", MaxFunctions)
			if err != nil {
				return nil, err
			}
			if n != len(funcTypes) {
				return nil, moduleError(errMalformed, "%d function bodies for %d functions", n, len(funcTypes))
			}
			for i := range n {
				size, err := s.u32()
				if err != nil {
					return nil, err
				}
				if size > MaxFunctionBytes {
					return nil, moduleError(ErrModuleLimit, "function %d is %d bytes, more than %d", i, size, MaxFunctionBytes)
				}
				code, err := s.bytes(size)
				if err != nil {
					return nil, err
				}
				if err := m.function(i, code, typeParams[funcTypes[i]]); err != nil {
					return nil, err
				}
			}
		default:
			return nil, moduleError(errMalformed, "unknown section %d", id)
		}
		if !s.eof() {
			return nil, moduleError(errMalformed, "section %d has %d bytes after its contents", id, len(s.b)-s.off)
		}
	}
	if len(funcTypes) > 0 && m.maxBody == 0 {
		return nil, moduleError(errMalformed, "%d functions without a code section", len(funcTypes))
	}
	if m.tableGrow {
		for _, t := range m.tables {
			if !t.hasMax || t.max > MaxTableEntries {
				return nil, moduleError(ErrModuleLimit, "a table grows (table.grow) without a maximum of at most %d entries", MaxTableEntries)
			}
		}
	}
	return m, nil
}

// order is a section's position (datacount, 12, comes before code, 10).
func order(id byte) int {
	switch {
	case id == 12:
		return 95
	case id >= 10:
		return int(id)*10 + 5
	}
	return int(id) * 10
}

func readTypes(s *reader) ([]int, error) {
	n, err := s.count("types", MaxTypes)
	if err != nil {
		return nil, err
	}
	params := make([]int, n)
	for i := range n {
		form, err := s.byte()
		if err != nil {
			return nil, err
		}
		if form != 0x60 {
			return nil, moduleError(errMalformed, "type %d has form %#x", i, form)
		}
		for j := range 2 {
			k, err := s.count("parameters", MaxParams)
			if err != nil {
				return nil, err
			}
			if _, err := s.bytes(uint64(k)); err != nil {
				return nil, err
			}
			if j == 0 {
				params[i] = k
			}
		}
	}
	return params, nil
}

func readImports(s *reader, m *moduleInfo) error {
	n, err := s.count("imports", MaxImports)
	if err != nil {
		return err
	}
	for range n {
		var imp moduleImport
		if imp.module, err = s.name(); err != nil {
			return err
		}
		if imp.name, err = s.name(); err != nil {
			return err
		}
		if imp.kind, err = s.byte(); err != nil {
			return err
		}
		switch imp.kind {
		case 0:
			_, err = s.u32()
			m.functions++
		case 1:
			var t limits
			if t, err = s.tableType(); err == nil {
				m.tables = append(m.tables, t)
			}
		case 2:
			var l limits
			if l, err = s.limits(maxPages); err == nil {
				if m.memory != nil {
					return moduleError(errMalformed, "a second memory")
				}
				m.memory = &l
			}
		case 3:
			_, err = s.bytes(2)
		default:
			err = moduleError(errMalformed, "import kind %#x", imp.kind)
		}
		if err != nil {
			return err
		}
		m.imports = append(m.imports, imp)
	}
	return nil
}

// function reads one body: its locals and every instruction (to measure nesting and find
// table.grow), and checks them against the limits.
func (m *moduleInfo) function(i int, code []byte, params int) error {
	r := &reader{b: code}
	groups, err := r.count("local groups", MaxLocals)
	if err != nil {
		return err
	}
	locals := int64(params)
	for range groups {
		n, err := r.u32()
		if err != nil {
			return err
		}
		if locals += int64(n); locals > MaxLocals {
			return moduleError(ErrModuleLimit, "function %d has more than %d locals", i, MaxLocals)
		}
		if _, err := r.byte(); err != nil {
			return err
		}
	}
	// loops holds, for each open block, -1 or (for a loop) the local.get count at its start.
	loops := []int64{-1}
	maxDepth, gets, work := 1, int64(0), int64(0)
	for len(loops) > 0 {
		op, err := r.byte()
		if err != nil {
			return err
		}
		switch op {
		case 0x02, 0x03, 0x04: // block, loop, if
			if err := r.sleb(33); err != nil { // block type
				return err
			}
			if len(loops) > MaxDepth {
				return moduleError(ErrModuleLimit, "function %d nests blocks more than %d deep", i, MaxDepth)
			}
			start := int64(-1)
			if op == 0x03 {
				start = gets
			}
			loops = append(loops, start)
			maxDepth = max(maxDepth, len(loops))
			weight := int64(1)
			if op == 0x03 {
				weight = 4
			}
			if m.nestWork += weight * int64(len(loops)-1); m.nestWork > MaxNestWork {
				return moduleError(ErrModuleLimit, "the module nests blocks too deeply for a bounded compile (%d units, at most %d)", m.nestWork, MaxNestWork)
			}
		case 0x0b:
			if start := loops[len(loops)-1]; start >= 0 {
				n := min(gets-start, locals)
				work += n * n
				if work > MaxLoopWork {
					return moduleError(ErrModuleLimit, "function %d reads too many of its %d locals inside (nested) loops for a bounded compile (%d units, at most %d)",
						i, locals, work, MaxLoopWork)
				}
			}
			loops = loops[:len(loops)-1]
		case 0x0c, 0x0d: // br, br_if
			_, err = r.u32()
		case 0x0e: // br_table
			var n int
			if n, err = r.count("br_table targets", MaxFunctionBytes); err == nil {
				for k := 0; k <= n && err == nil; k++ {
					_, err = r.u32()
				}
			}
		case 0x20: // local.get
			_, err = r.u32()
			gets++
		default:
			err = r.skipImmediates(op, m)
		}
		if err != nil {
			return fmt.Errorf("function %d: %w", i, err)
		}
	}
	if !r.eof() {
		return moduleError(errMalformed, "function %d has %d bytes after its end", i, len(code)-r.off)
	}
	if m.loopWork += work; m.loopWork > MaxModuleLoopWork {
		return moduleError(ErrModuleLimit, "the module reads too many locals inside loops for a bounded compile (%d units, at most %d)", m.loopWork, MaxModuleLoopWork)
	}
	m.maxBody = max(m.maxBody, len(code))
	m.maxLocals = max(m.maxLocals, int(locals))
	m.maxDepth = max(m.maxDepth, maxDepth-1)
	m.maxLoopWork = max(m.maxLoopWork, work)
	return nil
}

// skipImmediates skips the immediates of an instruction other than the control ones, for the
// instruction set wazero enables (WebAssembly 2.0: MVP, sign extension, saturating
// conversions, bulk memory, reference types, multi-value, SIMD). Anything else is refused.
func (r *reader) skipImmediates(op byte, m *moduleInfo) error {
	var err error
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0f || op == 0x1a || op == 0x1b || op == 0xd1:
	case op >= 0x45 && op <= 0xc4: // numeric
	case op == 0x10 || op == 0xd2 || (op >= 0x20 && op <= 0x26): // call, ref.func, locals, globals, table.get/set
		_, err = r.u32()
	case op == 0x11: // call_indirect
		if _, err = r.u32(); err == nil {
			_, err = r.u32()
		}
	case op == 0x1c: // select t*
		var n int
		if n, err = r.count("select types", 16); err == nil {
			_, err = r.bytes(uint64(n))
		}
	case op >= 0x28 && op <= 0x3e: // loads and stores
		err = r.memarg()
	case op == 0x3f || op == 0x40: // memory.size, memory.grow
		_, err = r.byte()
	case op == 0x41:
		err = r.sleb(32)
	case op == 0x42:
		err = r.sleb(64)
	case op == 0x43:
		_, err = r.bytes(4)
	case op == 0x44:
		_, err = r.bytes(8)
	case op == 0xd0: // ref.null
		_, err = r.byte()
	case op == 0xfc:
		var sub uint64
		if sub, err = r.u32(); err != nil {
			return err
		}
		switch {
		case sub <= 7: // saturating conversions
		case sub == 8: // memory.init
			if _, err = r.u32(); err == nil {
				_, err = r.byte()
			}
		case sub == 10:
			_, err = r.bytes(2)
		case sub == 11:
			_, err = r.byte()
		case sub == 12 || sub == 14:
			if _, err = r.u32(); err == nil {
				_, err = r.u32()
			}
		case sub == 9 || sub == 13 || (sub >= 15 && sub <= 17):
			_, err = r.u32()
			if sub == 15 {
				m.tableGrow = true
			}
		default:
			err = moduleError(errMalformed, "unsupported instruction 0xfc %d", sub)
		}
	case op == 0xfd:
		var sub uint64
		if sub, err = r.u32(); err != nil {
			return err
		}
		switch {
		case sub <= 0x0b || sub == 0x5c || sub == 0x5d: // v128 loads and stores
			err = r.memarg()
		case sub == 0x0c || sub == 0x0d: // v128.const, i8x16.shuffle
			_, err = r.bytes(16)
		case sub >= 0x15 && sub <= 0x22: // extract and replace lane
			_, err = r.byte()
		case sub >= 0x54 && sub <= 0x5b: // load and store lane
			if err = r.memarg(); err == nil {
				_, err = r.byte()
			}
		case sub > 0xff:
			err = moduleError(errMalformed, "unsupported instruction 0xfd %d", sub)
		}
	default:
		err = moduleError(errMalformed, "unsupported instruction %#x at byte %d", op, r.off-1)
	}
	return err
}

func (r *reader) memarg() error {
	if _, err := r.u32(); err != nil {
		return err
	}
	_, err := r.u32()
	return err
}
