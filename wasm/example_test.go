package wasm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/wasm"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// A module runs with an explicit argv, environment and working directory, over a sandbox FS
// that is its only filesystem.
func ExampleRuntime_Run() {
	dir, _ := os.MkdirTemp("", "wasm-example-")
	defer os.RemoveAll(dir)
	mod := filepath.Join(dir, "hello.wasm")
	_ = os.WriteFile(mod, wasmtest.Minimal(), 0o644) // writes "ok\n"

	rt, err := wasm.New(context.Background(), wasm.Options{}) // no CacheDir: compiled code stays in memory
	if err != nil {
		panic(err)
	}
	defer rt.Close(context.Background())
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadOnly}}}, sandbox.Scratch{}, nil)
	if err != nil {
		panic(err)
	}
	defer fsys.Close()

	status, err := rt.Run(context.Background(), wasm.Program{
		Module: mod, Args: []string{"hello"}, Env: []string{"LANG=C.UTF-8"}, Dir: dir,
		Stdout: os.Stdout, FS: fsys, MemoryMiB: 16,
	})
	fmt.Println(status, err)
	// Output:
	// ok
	// 0 <nil>
}
