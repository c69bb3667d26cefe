package wasm

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
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
	// Memory is the call's memory budget, shared by every instance of the call (nil: a budget
	// of MemoryMiB for this run alone).
	Memory *CallMemory
	// MemoryMiB is the budget when Memory is nil (0: DefaultMemoryMiB).
	MemoryMiB int
	// Call, when set, is what the `mcp` host functions report to.
	Call *engine.Call
	// Cancelled reports a client cancellation (is_cancelled).
	Cancelled func() bool
}

// Run instantiates the module anonymously, runs its _start and returns the exit status. The
// error is nil for any exit the guest chose; ErrMemoryLimit or ErrProcessMemory when it failed
// for lack of memory (or declares more than its budget); the context's error when the context
// ended the run; a module or compile error (status 126). A panic anywhere in it becomes
// TrapStatus with a short cause on stderr (the stack goes to the server's log only).
func (r *Runtime) Run(ctx context.Context, p Program) (status int, err error) {
	stderr := p.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if len(p.Args) == 0 {
		p.Args = []string{filepath.Base(p.Module)}
	}
	var mem *limitedMemory
	defer func() {
		if v := recover(); v != nil {
			if mem != nil && mem.unmapped {
				// wazero cannot fail the allocation of a memory's minimum: it panics.
				fmt.Fprintf(stderr, "mcp-bash: %s: no address space left to map its memory\n", p.Args[0])
				status, err = 126, ErrProcessMemory
				return
			}
			r.opts.logf("panic running %s: %v\n%s", p.Module, v, debug.Stack())
			fmt.Fprintf(stderr, "mcp-bash: %s: the WebAssembly runtime failed unexpectedly (the server's log has details)\n", p.Args[0])
			status, err = TrapStatus, errRuntimePanic
		}
	}()
	if p.FS == nil {
		fmt.Fprintf(stderr, "mcp-bash: %s: no filesystem\n", p.Args[0])
		return 126, errors.New("wasm: Program.FS is nil")
	}
	c, err := r.load(ctx, p.Module)
	if err != nil {
		if ctx.Err() != nil {
			return 1, context.Cause(ctx)
		}
		fmt.Fprintf(stderr, "mcp-bash: %v\n", err)
		return 126, err
	}
	budget := p.Memory
	if budget == nil {
		budget = NewCallMemory(p.MemoryMiB, r.opts.Meter)
	}
	// What instantiation takes at once is reserved before it: wazero cannot fail an
	// allocation of a memory's minimum or a table (it would panic).
	var minMem int64
	if c.info.memory != nil {
		minMem = int64(c.info.memory.min) * pageSize
	}
	tables := int64(c.info.tableBytes())
	if minMem+tables > budget.Limit() {
		fmt.Fprintf(stderr, "mcp-bash: %s: the module needs %d MiB of memory and tables at start, more than the call's memory limit (%d MiB, sandbox.memoryMiB)\n",
			p.Args[0], (minMem+tables+(1<<20)-1)>>20, budget.Limit()>>20)
		return 126, ErrMemoryLimit
	}
	if !budget.reserve(tables, false) {
		fmt.Fprintf(stderr, "mcp-bash: %s: not enough of the call's memory limit left for its tables\n", p.Args[0])
		return 126, budget.err()
	}
	defer budget.release(tables, false)
	if !budget.reserve(minMem, true) {
		fmt.Fprintf(stderr, "mcp-bash: %s: not enough memory left for its %d MiB at start\n", p.Args[0], minMem>>20)
		return 126, budget.err()
	}
	mem = &limitedMemory{call: budget, charged: minMem}
	defer mem.free()
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
	m, err := r.rt.InstantiateModule(ictx, c.mod, cfg)
	if m != nil {
		_ = m.Close(context.WithoutCancel(ctx))
	}
	var exit *sys.ExitError
	memErr := budget.err()
	switch {
	case ctx.Err() != nil:
		// Ended by the context (timeout, cap, cancellation), or finished as it ended: either
		// way the context's end is what the caller reports.
		return 1, context.Cause(ctx)
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		if exit.ExitCode() != 0 && memErr != nil {
			return int(exit.ExitCode()), memErr
		}
		return int(exit.ExitCode()), nil
	case memErr != nil:
		return TrapStatus, memErr
	default:
		fmt.Fprintf(stderr, "mcp-bash: %s: %s\n", p.Args[0], r.guestError(p.Module, err))
		return TrapStatus, nil
	}
}

// panicText is the first line of a recovered panic value.
func panicText(p any) string {
	msg, _, _ := strings.Cut(fmt.Sprint(p), "\n")
	return msg
}

// errRuntimePanic reports a run that ended in a recovered panic.
var errRuntimePanic = errors.New("wasm: runtime panic")

// goTrace starts the Go stack wazero appends to a panic it recovered inside a host function
// or itself (wasmdebug.GoRuntimeErrorTracePrefix).
const goTrace = "Go runtime stack trace:"

// guestError is what the guest's stderr may show of an instantiation error: a trap and the
// guest's own stack are the guest's business; a Go panic wazero recovered shows only its first
// line (its stack, with the server's addresses, goes to the server's log).
func (r *Runtime) guestError(module string, err error) string {
	msg := err.Error()
	if i := strings.Index(msg, goTrace); i >= 0 {
		r.opts.logf("wasm %s: %s", module, msg)
		first, _, _ := strings.Cut(msg, "\n")
		first = strings.TrimSuffix(strings.TrimSpace(first), "(recovered by wazero)")
		return strings.TrimSpace(first) + " (an internal error; the server's log has details)"
	}
	return msg
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
			defer func() {
				// A reader that panics must not end the server: the guest reads an error.
				if p := recover(); p != nil {
					ch <- readResult{nil, fmt.Errorf("stdin failed: %s", panicText(p))}
				}
			}()
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
