package wasm

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// ErrMemoryLimit reports a guest that failed because its memory could not grow past the limit.
var ErrMemoryLimit = errors.New("memory limit")

// TrapStatus is the exit status of a guest that trapped (unreachable, out-of-bounds access, ...).
const TrapStatus = 134

// Program is one run of a module.
type Program struct {
	// Module is the path of the .wasm file.
	Module string
	// Args is argv, program name first.
	Args []string
	// Env is the whole environment (KEY=VALUE; a later entry wins). Nothing else is passed.
	Env []string
	// Dir is the working directory (the guest's PWD), an absolute path in FS.
	Dir string
	// Stdin may block: a read waiting on it ends (EOF) when ctx ends. Nil reads EOF.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// FS is the only filesystem the guest sees, mounted at "/".
	FS *sandbox.FS
	// MemoryMiB bounds the guest's linear memory (0: DefaultMemoryMiB).
	MemoryMiB int
	// Call, when set, is what the `mcp` host functions report to.
	Call *sdk.Call
	// Cancelled reports a client cancellation (is_cancelled).
	Cancelled func() bool
}

// Run instantiates the module anonymously, runs its _start and returns the exit status. The
// error is nil for any exit the guest chose; ErrMemoryLimit when it failed for lack of memory;
// the context's error when the context ended the run; a compile error (status 126).
func (r *Runtime) Run(ctx context.Context, p Program) (int, error) {
	stderr := p.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if len(p.Args) == 0 {
		p.Args = []string{filepath.Base(p.Module)}
	}
	if p.FS == nil {
		fmt.Fprintf(stderr, "mcp-bash: %s: no filesystem\n", p.Args[0])
		return 126, errors.New("wasm: Program.FS is nil")
	}
	mod, err := r.Compile(ctx, p.Module)
	if err != nil {
		if ctx.Err() != nil {
			return 1, ctx.Err()
		}
		fmt.Fprintf(stderr, "mcp-bash: %v\n", err)
		return 126, err
	}
	memMiB := p.MemoryMiB
	if memMiB <= 0 {
		memMiB = DefaultMemoryMiB
	}
	mem := &limitedMemory{limit: uint64(memMiB) << 20}
	ictx := experimental.WithMemoryAllocator(ctx, mem)
	ictx = context.WithValue(ictx, callKey{}, &callState{call: p.Call, cancelled: p.Cancelled})

	stdin := p.Stdin
	switch stdin.(type) {
	case nil:
		stdin = bytes.NewReader(nil)
	case *bytes.Reader, *strings.Reader:
	default:
		stdin = &ctxReader{ctx: ctx, r: stdin}
	}
	stdout := p.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithArgs(p.Args...).
		WithStdin(stdin).WithStdout(stdout).WithStderr(stderr).
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(func(ns int64) { sleep(ctx, ns) }).
		WithRandSource(rand.Reader).
		WithFSConfig(wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(NewRootFS(p.FS), "/"))
	for _, kv := range environ(p.Env, p.Dir) {
		k, v, _ := strings.Cut(kv, "=")
		cfg = cfg.WithEnv(k, v)
	}
	m, err := r.rt.InstantiateModule(ictx, mod, cfg)
	if m != nil {
		_ = m.Close(context.WithoutCancel(ctx))
	}
	var exit *sys.ExitError
	switch {
	case ctx.Err() != nil:
		// Ended by the context (timeout, cap, cancellation), or finished as it ended: either
		// way the context's end is what the caller reports.
		return 1, context.Cause(ctx)
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		if exit.ExitCode() != 0 && mem.hit.Load() {
			return int(exit.ExitCode()), ErrMemoryLimit
		}
		return int(exit.ExitCode()), nil
	case mem.hit.Load():
		return TrapStatus, ErrMemoryLimit
	default:
		fmt.Fprintf(stderr, "mcp-bash: %s: %v\n", p.Args[0], err)
		return TrapStatus, nil
	}
}

// environ dedupes env (a later entry wins, order of first appearance kept) and sets PWD.
func environ(env []string, dir string) []string {
	if dir != "" {
		env = append(env[:len(env):len(env)], "PWD="+dir)
	}
	idx := map[string]int{}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if i, seen := idx[k]; seen {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// sleep is the guest's nanosleep (and poll_oneoff's clock): it ends early with the context.
func sleep(ctx context.Context, ns int64) {
	if ns <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// ctxReader reads in a goroutine so that a guest blocked on stdin gets EOF when the context
// ends (WithCloseOnContextDone cannot interrupt a host call). Data read after that stays
// unread by the guest.
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	mu      sync.Mutex
	pending chan readResult
	buf     []byte
	err     error
}

type readResult struct {
	b   []byte
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	if len(c.buf) > 0 {
		n := copy(p, c.buf)
		c.buf = c.buf[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.ctx.Err() != nil {
		return 0, io.EOF
	}
	if c.pending == nil {
		ch := make(chan readResult, 1)
		c.pending = ch
		size := max(len(p), 32<<10)
		go func() {
			b := make([]byte, size)
			n, err := c.r.Read(b)
			ch <- readResult{b[:n], err}
		}()
	}
	select {
	case res := <-c.pending:
		c.pending = nil
		n := copy(p, res.b)
		c.buf = res.b[n:]
		if res.err != nil {
			if n == 0 && len(c.buf) == 0 {
				return 0, res.err
			}
			c.err = res.err
		}
		return n, nil
	case <-c.ctx.Done():
		return 0, io.EOF
	}
}
