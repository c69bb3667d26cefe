package wasmtest

import (
	"bytes"
)

// This file assembles small modules by hand for the tests of the module limits and the attack
// shapes of issue 21 (no wat tools are installed; each shape is a few dozen bytes of Go).

// Value types and section IDs of the binary format.
const (
	I32 = 0x7f
	I64 = 0x7e

	secType, secImport, secFunc, secTable, secMemory, secExport, secCode, secData = 1, 2, 3, 4, 5, 7, 10, 11
)

// ULEB encodes an unsigned LEB128.
func ULEB(v uint64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

// SLEB encodes a signed LEB128.
func SLEB(v int64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && b&0x40 == 0) || (v == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

// Name encodes a name (length-prefixed UTF-8).
func Name(s string) []byte { return append(ULEB(uint64(len(s))), s...) }

// Vec encodes a vector of already-encoded items.
func Vec(items ...[]byte) []byte {
	out := ULEB(uint64(len(items)))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

// Section encodes one section.
func Section(id byte, body []byte) []byte {
	return append(append([]byte{id}, ULEB(uint64(len(body)))...), body...)
}

// Module joins a header and sections.
func Module(sections ...[]byte) []byte {
	var m bytes.Buffer
	m.WriteString("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		m.Write(s)
	}
	return m.Bytes()
}

// FuncType encodes a function type.
func FuncType(params, results []byte) []byte {
	out := append([]byte{0x60}, ULEB(uint64(len(params)))...)
	out = append(out, params...)
	out = append(out, ULEB(uint64(len(results)))...)
	return append(out, results...)
}

// Body encodes a function body: local groups (count, type) and the code, which must end with 0x0b.
func Body(locals [][2]uint64, code []byte) []byte {
	var b []byte
	b = append(b, ULEB(uint64(len(locals)))...)
	for _, l := range locals {
		b = append(b, ULEB(l[0])...)
		b = append(b, byte(l[1]))
	}
	b = append(b, code...)
	return append(ULEB(uint64(len(b))), b...)
}

// Import encodes an import of a function of type index typ.
func Import(module, name string, typ uint64) []byte {
	return append(append(append(Name(module), Name(name)...), 0x00), ULEB(typ)...)
}

// Export encodes an export.
func Export(name string, kind byte, idx uint64) []byte {
	return append(append(Name(name), kind), ULEB(idx)...)
}

// Limits encodes memory or table limits (max < 0: none).
func Limits(min uint64, max int64) []byte {
	if max < 0 {
		return append([]byte{0x00}, ULEB(min)...)
	}
	return append(append([]byte{0x01}, ULEB(min)...), ULEB(uint64(max))...)
}

// Command is a WASI command whose _start (type () -> ()) has the given body, with imports
// (module, name, type index) and extra types after type 0 (() -> ()), one memory of memPages
// (negative: none) exported as "memory", and tables of the given entries (funcref).
func Command(types [][]byte, imports [][3]any, memPages int64, tables []uint64, start []byte) []byte {
	ts := [][]byte{FuncType(nil, nil)}
	ts = append(ts, types...)
	secs := [][]byte{Section(secType, Vec(ts...))}
	if len(imports) > 0 {
		var ims [][]byte
		for _, im := range imports {
			ims = append(ims, Import(im[0].(string), im[1].(string), uint64(im[2].(int))))
		}
		secs = append(secs, Section(secImport, Vec(ims...)))
	}
	secs = append(secs, Section(secFunc, Vec(ULEB(0))))
	if len(tables) > 0 {
		var tb [][]byte
		for _, n := range tables {
			tb = append(tb, append([]byte{0x70}, Limits(n, -1)...))
		}
		secs = append(secs, Section(secTable, Vec(tb...)))
	}
	exports := [][]byte{Export("_start", 0, uint64(len(imports)))}
	if memPages >= 0 {
		secs = append(secs, Section(secMemory, Vec(Limits(uint64(memPages), -1))))
		exports = append(exports, Export("memory", 2, 0))
	}
	secs = append(secs, Section(secExport, Vec(exports...)), Section(secCode, Vec(start)))
	return Module(secs...)
}

// MemoryMin is a command that declares a memory of pages 64 KiB pages and does nothing.
func MemoryMin(pages int64) []byte {
	return Command(nil, nil, pages, nil, Body(nil, []byte{0x0b}))
}

// Tables is a command with n funcref tables of entries each, doing nothing (issue 21: three
// tables of 2^27 entries in 96 bytes reached 3.1 GB).
func Tables(n int, entries uint64) []byte {
	t := make([]uint64, n)
	for i := range t {
		t[i] = entries
	}
	return Command(nil, nil, 1, t, Body(nil, []byte{0x0b}))
}

// TableGrower grows a funcref table by delta entries in a loop until table.grow fails, then
// returns.
func TableGrower(delta uint64) []byte {
	code := []byte{0x03, 0x40}                              // loop
	code = append(code, 0xd0, 0x70)                         // ref.null func
	code = append(code, 0x41)                               // i32.const delta
	code = append(code, SLEB(int64(delta))...)              //
	code = append(code, 0xfc, 15, 0x00)                     // table.grow 0
	code = append(code, 0x41, 0x7f, 0x47, 0x0d, 0x00, 0x0b) // i32.const -1; i32.ne; br_if 0; end
	code = append(code, 0x0b)
	return Command(nil, nil, 1, []uint64{1}, Body(nil, code))
}

// LocalsBomb is one function with locals i32 locals and depth nested blocks, each block
// setting the next local (issue 21: the shape that took 45 s and 2.8 GB to compile).
func LocalsBomb(locals, depth int) []byte {
	var code []byte
	for i := range depth {
		code = append(code, 0x02, 0x40)                        // block
		code = append(code, 0x41, 0x01)                        // i32.const 1
		code = append(code, 0x21)                              // local.set
		code = append(code, ULEB(uint64(i%max(locals, 1)))...) //
		code = append(code, 0x41, 0x00, 0x0d, 0x00)            // i32.const 0; br_if 0
	}
	for range depth {
		code = append(code, 0x0b)
	}
	code = append(code, 0x0b)
	return Command(nil, nil, 1, nil, Body([][2]uint64{{uint64(locals), I32}}, code))
}

// LoopBomb is one function with locals i32 locals and depth nested loops, the innermost
// reading every local (phis for every local at every loop header).
func LoopBomb(locals, depth int) []byte {
	var code []byte
	for range depth {
		code = append(code, 0x03, 0x40) // loop
	}
	for i := range locals {
		code = append(code, 0x20)
		code = append(code, ULEB(uint64(i))...)
		code = append(code, 0x1a) // local.get i; drop
	}
	for range depth {
		code = append(code, 0x0b)
	}
	code = append(code, 0x0b)
	return Command(nil, nil, 1, nil, Body([][2]uint64{{uint64(locals), I32}}, code))
}

// Hog grows its memory by pages at a time until memory.grow fails, touching each new page,
// then writes "hog: full\n" and exits with status 1 (through proc_exit), so a limit that
// holds ends it cleanly.
func Hog(pages int) []byte {
	// types: 1 = (i32) -> (), 2 = fd_write (i32 i32 i32 i32) -> i32
	types := [][]byte{FuncType([]byte{I32}, nil), FuncType([]byte{I32, I32, I32, I32}, []byte{I32})}
	imports := [][3]any{{"wasi_snapshot_preview1", "proc_exit", 1}, {"wasi_snapshot_preview1", "fd_write", 2}}
	var code []byte
	code = append(code, 0x03, 0x40) // loop
	// local0 = memory.grow(pages); if local0 == -1: break out
	code = append(code, 0x41)
	code = append(code, SLEB(int64(pages))...)
	code = append(code, 0x40, 0x00, 0x22, 0x00) // memory.grow; local.tee 0
	code = append(code, 0x41, 0x7f, 0x47)       // i32.const -1; i32.ne
	code = append(code, 0x04, 0x40)             // if
	// touch one byte in each new page: for local1 = 0..pages: store8 at (local0+local1)*65536
	code = append(code, 0x41, 0x00, 0x21, 0x01)                         // local1 = 0
	code = append(code, 0x03, 0x40)                                     // loop
	code = append(code, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x41, 0x10, 0x74) // (local0+local1) << 16
	code = append(code, 0x41, 0x01, 0x3a, 0x00, 0x00)                   // i32.store8 1
	code = append(code, 0x20, 0x01, 0x41, 0x01, 0x6a, 0x22, 0x01)       // local1 += 1 (tee)
	code = append(code, 0x41)
	code = append(code, SLEB(int64(pages))...)
	code = append(code, 0x48, 0x0d, 0x00) // i32.lt_s; br_if 0
	code = append(code, 0x0b)             // end loop
	code = append(code, 0x0c, 0x01)       // br 1 (outer loop)
	code = append(code, 0x0b)             // end if
	code = append(code, 0x0b)             // end loop
	// iovec at 0: {ptr 8, len 10}; "hog: full\n" at 8
	code = append(code, 0x41, 0x00, 0x41, 0x08, 0x36, 0x02, 0x00)
	code = append(code, 0x41, 0x04, 0x41, 0x0a, 0x36, 0x02, 0x00)
	for i, c := range []byte("hog: full\n") {
		code = append(code, 0x41)
		code = append(code, SLEB(int64(8+i))...)
		code = append(code, 0x41)
		code = append(code, SLEB(int64(c))...)
		code = append(code, 0x3a, 0x00, 0x00)
	}
	code = append(code, 0x41, 0x02, 0x41, 0x00, 0x41, 0x01, 0x41, 0x20, 0x10, 0x01, 0x1a) // fd_write(2, 0, 1, 32)
	code = append(code, 0x41, 0x01, 0x10, 0x00)                                           // proc_exit(1)
	code = append(code, 0x0b)
	return Command(types, imports, 1, nil, Body([][2]uint64{{2, I32}}, code))
}

// NoMemoryLog is a module without memory that calls mcp.log with pointers (issue 21: the host
// function's panic, with its Go traceback, reached the client).
func NoMemoryLog() []byte {
	types := [][]byte{FuncType([]byte{I32, I32, I32, I32, I32, I32}, nil), FuncType([]byte{0x7c, I32, I32}, nil)}
	imports := [][3]any{{"mcp", "log", 1}, {"mcp", "progress", 2}}
	code := []byte{}
	for range 6 {
		code = append(code, 0x41, 0x10) // i32.const 16
	}
	code = append(code, 0x10, 0x00)                                                             // call log
	code = append(code, 0x44, 0, 0, 0, 0, 0, 0, 0x49, 0x40, 0x41, 0x10, 0x41, 0x10, 0x10, 0x01) // progress(50, 16, 16)
	code = append(code, 0x0b)
	return Command(types, imports, -1, nil, Body(nil, code))
}

// OutOfRangeLog calls mcp.log with pointers past the end of its one page of memory.
func OutOfRangeLog() []byte {
	types := [][]byte{FuncType([]byte{I32, I32, I32, I32, I32, I32}, nil)}
	imports := [][3]any{{"mcp", "log", 1}}
	code := []byte{}
	for range 6 {
		code = append(code, 0x41)
		code = append(code, SLEB(-16)...) // 0xfffffff0
	}
	code = append(code, 0x10, 0x00, 0x0b)
	return Command(types, imports, 1, nil, Body(nil, code))
}

// FileHog opens path (relative to the first preopen, the guest's "/") over and over without
// closing until path_open fails, then writes "fds: <errno>\n"-like output: "fds: full\n" and
// exits 1. It shows how many descriptors one guest can hold.
func FileHog(path string) []byte {
	// types: 1 = proc_exit (i32)->(), 2 = fd_write (i32 i32 i32 i32)->i32,
	// 3 = path_open (i32 i32 i32 i32 i32 i64 i64 i32 i32) -> i32
	types := [][]byte{FuncType([]byte{I32}, nil), FuncType([]byte{I32, I32, I32, I32}, []byte{I32}),
		FuncType([]byte{I32, I32, I32, I32, I32, I64, I64, I32, I32}, []byte{I32})}
	imports := [][3]any{{"wasi_snapshot_preview1", "proc_exit", 1}, {"wasi_snapshot_preview1", "fd_write", 2},
		{"wasi_snapshot_preview1", "path_open", 3}}
	var code []byte
	store := func(addr int, s string) {
		for i, c := range []byte(s) {
			code = append(code, 0x41)
			code = append(code, SLEB(int64(addr+i))...)
			code = append(code, 0x41)
			code = append(code, SLEB(int64(c))...)
			code = append(code, 0x3a, 0x00, 0x00)
		}
	}
	store(64, path)
	code = append(code, 0x03, 0x40) // loop
	// path_open(3, 0, 64, len, 0, rights=fd_read (2), 0, 0, 32) == 0 → continue
	code = append(code, 0x41, 0x03, 0x41, 0x00, 0x41, 0xc0, 0x00, 0x41)
	code = append(code, SLEB(int64(len(path)))...)
	code = append(code, 0x41, 0x00, 0x42, 0x02, 0x42, 0x00, 0x41, 0x00, 0x41, 0x20)
	code = append(code, 0x10, 0x02, 0x45, 0x0d, 0x00, 0x0b) // call path_open; i32.eqz; br_if 0; end
	code = append(code, 0x41, 0x00, 0x41, 0x08, 0x36, 0x02, 0x00)
	code = append(code, 0x41, 0x04, 0x41, 0x0a, 0x36, 0x02, 0x00)
	store(8, "fds: full\n")
	code = append(code, 0x41, 0x02, 0x41, 0x00, 0x41, 0x01, 0x41, 0x30, 0x10, 0x01, 0x1a) // fd_write(2, 0, 1, 48)
	code = append(code, 0x41, 0x01, 0x10, 0x00, 0x0b)                                     // proc_exit(1)
	return Command(types, imports, 1, nil, Body(nil, code))
}
