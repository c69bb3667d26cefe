package wasm

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// TestForcedReadIgnoresTheRecord: a compile whose caller found the file unchanged must read
// the content itself, even when another call records the file again in between (read with
// force never answers from the record: it answered nil once, and the compile failed with
// "no \0asm header", kept for every later call).
func TestForcedReadIgnoresTheRecord(t *testing.T) {
	rt := newRuntime(t, Options{})
	p, _ := guest(t, wasmtest.Minimal())
	sum, data, err := rt.read(p, false)
	if err != nil || data == nil {
		t.Fatalf("first read: %v, %d bytes", err, len(data))
	}
	if s, d, err := rt.read(p, false); err != nil || d != nil || s != sum {
		t.Fatalf("unchanged file: %v, %d bytes, same sum %v; want it answered from the record", err, len(d), s == sum)
	}
	if s, d, err := rt.read(p, true); err != nil || !bytes.Equal(d, data) || s != sum {
		t.Fatalf("forced read: %v, %d bytes, same sum %v; want the content", err, len(d), s == sum)
	}
}

// TestFirstRunsAtOnce: many calls of a module nobody has run yet, at once on a fresh runtime,
// all run it (the first load's read, record and compile registration interleave).
func TestFirstRunsAtOnce(t *testing.T) {
	for range 40 {
		rt, err := New(context.Background(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, fsys := guest(t, wasmtest.Minimal())
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				var out, errw bytes.Buffer
				st, err := rt.Run(context.Background(), Program{Module: p, Stdout: &out, Stderr: &errw, FS: fsys})
				if st != 0 || err != nil || out.String() != "ok\n" {
					t.Errorf("status %d, err %v, stdout %q, stderr %q", st, err, out.String(), errw.String())
				}
			})
		}
		wg.Wait()
		rt.Close(context.Background())
		if t.Failed() {
			return
		}
	}
}
