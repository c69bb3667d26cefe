package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// ChildOptions configure the worker side.
type ChildOptions struct {
	// Self is this binary (externals re-execute it for Landlock; rules keep it executable).
	Self string
	// Confine, when set, confines the worker itself to the first job's roots with Landlock
	// (and the worker then serves only jobs with the same rules).
	Confine func(sandbox.ConfineRules) error
	// SetCPULimit bounds the CPU seconds the process may have used by the end of the job.
	SetCPULimit func(total time.Duration) error
	// CPUUsed reports the CPU time the process has used so far.
	CPUUsed func() time.Duration
	// Meter is the process's budget for wasm guests' memory, which the heap guard also sees.
	Meter *sandbox.Meter
}

// Serve is the worker: it reads jobs from in and runs them one at a time, writing events and
// outcomes to out, until in ends (the parent closed the pipe) or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, e engine.Engine, o ChildOptions) error {
	c := &child{enc: json.NewEncoder(out), replies: map[int64]chan frame{}, opts: o}
	frames := make(chan frame)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<30)
		for sc.Scan() {
			var f frame
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				readErr <- fmt.Errorf("worker: bad frame: %w", err)
				return
			}
			frames <- f
		}
		readErr <- sc.Err()
	}()
	if err := c.send(frame{T: "ready"}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			c.cancelJob(false)
			return err
		case f := <-frames:
			switch f.T {
			case "job":
				if f.Job == nil || c.running.Load() {
					return errors.New("worker: a job while another runs")
				}
				if err := c.start(ctx, f.Job, e); err != nil {
					c.send(frame{T: "outcome", Outcome: &engine.Outcome{ExitCode: 126, Stderr: []byte("mcp-bash: worker: " + err.Error())}})
				}
			case "cancel":
				c.cancelJob(f.Client)
			case "reply":
				c.mu.Lock()
				ch := c.replies[f.ID]
				delete(c.replies, f.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- f
				}
			}
		}
	}
}

type child struct {
	opts    ChildOptions
	encMu   sync.Mutex
	enc     *json.Encoder
	mu      sync.Mutex
	replies map[int64]chan frame
	nextID  int64
	running atomic.Bool
	cancel  context.CancelFunc
	client  atomic.Bool           // the current job was cancelled by the client
	rules   *sandbox.ConfineRules // the rules this worker is confined to, once it is
	// tenant is the hosting tenant of the first job (nil before it): the worker refuses any
	// other tenant's job, whatever the parent's pool does.
	tenant  *string
	wasmRT  *wasm.Runtime
	wasmErr error
	wasmOne sync.Once
}

func (c *child) send(f frame) error {
	c.encMu.Lock()
	defer c.encMu.Unlock()
	return c.enc.Encode(f)
}

func (c *child) cancelJob(client bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if client {
		c.client.Store(true)
	}
	if c.cancel != nil {
		c.cancel()
	}
}

// rulesOf is what a worker running spec may touch: its roots, the scratch root, the project
// (read-only) and the binary (for confined externals). They do not depend on
// the tool, so one confined worker serves every call with the same roots.
func rulesOf(s *Spec, self string) sandbox.ConfineRules {
	r := sandbox.ConfineRules{Net: s.Network}
	roots := s.Roots
	if s.ConfineRoots != nil {
		roots = s.ConfineRoots
	}
	for _, rt := range roots {
		if rt.Protected {
			continue // inside a read-write root; Landlock cannot take rights away
		}
		r.Physical = append(r.Physical, rt.Path) // T-FS-12
		if rt.ReadOnly {
			r.RO = append(r.RO, rt.Path)
		} else {
			r.RW = append(r.RW, rt.Path)
		}
	}
	if s.ScratchRoot != "" {
		r.RW = append(r.RW, s.ScratchRoot)
	} else {
		r.RW = append(r.RW, sandbox.ScratchBase(s.ScratchBase))
	}
	if s.Layer != "" {
		r.RW = append(r.RW, filepath.Dir(s.Layer))
	}
	if s.Project != "" {
		r.RO = append(r.RO, s.Project)
	} else {
		r.RO = append(r.RO, s.ToolDir, s.Call.ToolDir)
	}
	r.RO = append(r.RO, self)
	if s.Wasm != nil {
		r.RO = append(r.RO, s.Wasm.Dirs...)
	}
	return r
}

// rulesKey identifies the rules a job needs (the parent matches jobs to confined workers by it).
func rulesKey(s *Spec) string {
	b, _ := json.Marshal(struct {
		Tenant  string               `json:"tenant"`
		HeapMiB int                  `json:"heapMiB"`
		Rules   sandbox.ConfineRules `json:"rules"`
	}{s.Tenant, s.HeapMiB, rulesOf(s, "")})
	return string(b)
}

// start runs one job in the background; its outcome is the job's last frame.
func (c *child) start(ctx context.Context, s *Spec, e engine.Engine) error {
	if c.tenant == nil {
		c.tenant = &s.Tenant
	} else if *c.tenant != s.Tenant {
		return errors.New("this worker serves another tenant")
	}
	if c.opts.Confine != nil {
		r := rulesOf(s, c.opts.Self)
		if c.rules == nil {
			if err := c.opts.Confine(r); err != nil {
				return fmt.Errorf("confining the worker: %w", err)
			}
			c.rules = &r
		} else if !sameRules(*c.rules, r) {
			return errors.New("this worker is confined to other roots")
		}
	}
	if c.opts.SetCPULimit != nil && c.opts.CPUUsed != nil {
		// By default a call may burn CPU for its whole wall-clock budget on two cores, and no more.
		budget := s.CPU
		if budget <= 0 {
			budget = 2*s.Limits.WithDefaults().Timeout + 2*time.Second
		}
		if err := c.opts.SetCPULimit(c.opts.CPUUsed() + budget); err != nil {
			return err
		}
	}
	s.Limits.Timeout = s.timeLeft(time.Now())
	jctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	c.client.Store(false)
	c.running.Store(true)
	call := c.call(jctx, s)
	job := engine.Job{Call: call, Script: s.Script, Dir: s.Dir, Policy: s.Policy(), ScratchBase: s.ScratchBase, Env: s.env(),
		Args: s.Args, Spill: s.Spill, Cancelled: func() bool { return c.client.Load() }, Network: s.Network}
	if s.Confine {
		job.Confiner = &sandbox.Confiner{Self: c.opts.Self, Required: s.RequireConfinement}
	}
	if s.Wasm != nil {
		job.Commands = &wasm.Commands{Runtime: c.wasmRuntime, Dirs: s.Wasm.Dirs, Call: call,
			MemoryMiB: s.Wasm.MemoryMiB, Allow: s.Wasm.Allow, Cancelled: func() bool { return c.client.Load() }}
		job.MemoryMiB = s.Wasm.MemoryMiB
	}
	go func() {
		defer cancel()
		out := e.Run(jctx, job)
		c.running.Store(false)
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		c.send(frame{T: "outcome", Outcome: out})
	}()
	return nil
}

func sameRules(a, b sandbox.ConfineRules) bool {
	eq := func(x, y []string) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return a.Net == b.Net && eq(a.RW, b.RW) && eq(a.RO, b.RO)
}

// call rebuilds the engine.Call; its callbacks ask the parent.
func (c *child) call(ctx context.Context, s *Spec) *engine.Call {
	cs := s.Call
	call := &engine.Call{Tool: cs.Tool, ToolPath: cs.ToolPath, ToolDir: cs.ToolDir, Args: cs.Args, Meta: cs.Meta, Metadata: cs.Metadata,
		ProgressToken: cs.ProgressToken, Roots: cs.Roots, ElicitSupported: cs.ElicitSupported, SamplingSupported: cs.SamplingSupported,
		UISupported: cs.UISupported, MaxTextBytes: cs.MaxTextBytes}
	if cs.HasSink {
		call.Sink = sink{c}
	}
	if cs.ElicitSupported {
		call.Elicit = func(ctx context.Context, req engine.ElicitRequest) (engine.ElicitResult, error) {
			var res engine.ElicitResult
			raw, err := c.ask(ctx, "elicit", elicitRequest{Mode: req.Mode, Message: req.Message, Schema: req.Schema, URL: req.URL, TimeoutNS: int64(req.Timeout)})
			if err == nil {
				err = json.Unmarshal(raw, &res)
			}
			return res, err
		}
	}
	if cs.SamplingSupported {
		call.Sample = func(ctx context.Context, req engine.SamplingRequest) (json.RawMessage, error) {
			return c.ask(ctx, "sample", req)
		}
	}
	if cs.HasDownload {
		call.Download = func(ctx context.Context, req engine.DownloadRequest) ([]byte, error) {
			raw, err := c.ask(ctx, "download", downloadRequest{URL: req.URL, Allow: req.Allow, Deny: req.Deny, MaxBytes: req.MaxBytes, TimeoutNS: int64(req.Timeout)})
			if err != nil {
				return nil, err
			}
			var data []byte
			err = json.Unmarshal(raw, &data)
			return data, err
		}
	}
	return call
}

// ask sends a request to the parent and waits for its reply (or the job's end).
func (c *child) ask(ctx context.Context, kind string, req any) (json.RawMessage, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ch := make(chan frame, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.replies[id] = ch
	c.mu.Unlock()
	if err := c.send(frame{T: "request", ID: id, Kind: kind, Request: body}); err != nil {
		return nil, err
	}
	select {
	case f := <-ch:
		if f.Error != nil {
			if f.Error.DownloadType != "" {
				return nil, &engine.DownloadError{Type: f.Error.DownloadType, Message: f.Error.Message}
			}
			return nil, errors.New(f.Error.Message)
		}
		return f.Result, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.replies, id)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

type sink struct{ c *child }

func (s sink) Progress(_ context.Context, progress float64, total *float64, message string) {
	s.c.send(frame{T: "progress", Progress: progress, Total: total, Message: message})
}

func (s sink) Log(_ context.Context, level, logger string, data json.RawMessage) {
	s.c.send(frame{T: "log", Level: level, Logger: logger, Data: data})
}

// wasmRuntime returns the worker's own wasm runtime, started on first use. It compiles in
// memory only (a warm worker keeps what it compiled for its later calls): a process that runs
// scripts never holds the compilation cache's key.
func (c *child) wasmRuntime() (*wasm.Runtime, error) {
	c.wasmOne.Do(func() {
		c.wasmRT, c.wasmErr = wasm.New(context.Background(), wasm.Options{Meter: c.opts.Meter,
			Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "mcp-bash worker: "+format+"\n", args...) }})
	})
	return c.wasmRT, c.wasmErr
}
