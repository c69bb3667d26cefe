package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Options configure a Pool.
type Options struct {
	// Argv starts one worker: the binary, Command, and its flags.
	Argv []string
	// Env is the workers' whole environment (nothing of the server's is inherited).
	Env []string
	// Idle is how many started workers may wait for calls (default 1).
	Idle int
	// MaxCalls recycles a worker after this many calls (default 100).
	MaxCalls int
	// MaxRSS recycles a worker whose peak resident memory passed this many bytes (default 512 MiB).
	MaxRSS int64
	// Grace is how long a worker may take to answer after its call was cancelled or its time is
	// up before it is killed (default 200ms): a call answers within its timeout and this, however
	// its script runs away (issue 27: within the timeout + 250 ms).
	Grace time.Duration
	// Logf receives diagnostics (nil: none).
	Logf func(format string, args ...any)
}

// Pool runs calls in worker processes, one call per worker at a time.
type Pool struct {
	opts   Options
	mu     sync.Mutex
	idle   []*proc
	closed bool
	wg     sync.WaitGroup
}

// NewPool returns a pool; workers start on first use and then stay warm.
func NewPool(o Options) *Pool {
	if o.Idle <= 0 {
		o.Idle = 1
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = 100
	}
	if o.MaxRSS <= 0 {
		o.MaxRSS = 512 << 20
	}
	if o.Grace <= 0 {
		o.Grace = 200 * time.Millisecond
	}
	return &Pool{opts: o}
}

// proc is one worker process.
type proc struct {
	cmd    *exec.Cmd
	group  *sandbox.ProcessGroup
	stdin  io.WriteCloser
	frames chan frame // closed when the worker's stdout ends
	stderr *tail
	exited chan struct{}
	calls  int
	// key is the rules of the calls this worker ran ("" while it ran none): a worker that
	// confined itself serves only calls with the same rules.
	key string
	// heap is the heap limit (MiB) the worker was started with (0: the pool's Argv's).
	heap int
}

// tail keeps the last bytes a worker wrote on stderr (panics, runtime fatal errors).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 64<<10 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-32<<10:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func (p *Pool) logf(format string, args ...any) {
	if p.opts.Logf != nil {
		p.opts.Logf(format, args...)
	}
}

// argv is the command line of a worker with heap limit heapMiB (0: Argv as given).
func (p *Pool) argv(heapMiB int) []string {
	a := append([]string(nil), p.opts.Argv...)
	if heapMiB > 0 {
		for i := 0; i+1 < len(a); i++ {
			if a[i] == "--max-heap-mb" {
				a[i+1] = strconv.Itoa(heapMiB)
			}
		}
	}
	return a
}

// spawn starts a worker with heap limit heapMiB (0: the pool's) and waits for its ready frame.
func (p *Pool) spawn(heapMiB int) (*proc, error) {
	argv := p.argv(heapMiB)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = p.opts.Env
	cmd.SysProcAttr = procAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &proc{cmd: cmd, stdin: stdin, frames: make(chan frame, 64), stderr: &tail{}, exited: make(chan struct{}), heap: heapMiB}
	cmd.Stderr = w.stderr
	if w.group, _, err = sandbox.StartGroup(cmd, nil); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(w.frames)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<30)
		for sc.Scan() {
			var f frame
			if json.Unmarshal(sc.Bytes(), &f) == nil {
				w.frames <- f
			}
		}
	}()
	go func() {
		// Wait only after stdout is drained (exec.Cmd's rule), so no last frame is lost.
		<-readDone
		cmd.Wait()
		w.group.Close()
		close(w.exited)
	}()
	f, ok := <-w.frames
	if !ok || f.T != "ready" {
		w.kill()
		<-w.exited
		p.logf("worker did not start:\n%s", lastLines(w.stderr.String(), 8))
		return nil, fmt.Errorf("worker did not start (%s)", Cause(w.cmd.ProcessState, w.stderr.String()))
	}
	return w, nil
}

func (w *proc) kill() {
	if w.group != nil {
		w.group.Kill()
		w.cmd.Process.Kill()
	}
	w.stdin.Close()
}

// get returns an idle worker that can take a call with rules key (one that ran calls with the
// same rules, else a fresh one with the call's heap limit), or starts one.
func (p *Pool) get(key string, heapMiB int) (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("worker pool closed")
	}
	pick := -1
	for i := len(p.idle) - 1; i >= 0; i-- {
		if w := p.idle[i]; w.key == key || (w.key == "" && w.heap == heapMiB && pick < 0) {
			pick = i
			if w.key == key {
				break
			}
		}
	}
	var w *proc
	if pick >= 0 {
		w = p.idle[pick]
		p.idle = append(p.idle[:pick], p.idle[pick+1:]...)
	}
	p.mu.Unlock()
	if w != nil {
		select {
		case <-w.exited: // died while idle
		default:
			return w, nil
		}
	}
	return p.spawn(heapMiB)
}

// refill starts workers in the background until Idle wait, with the heap limit of the one
// that was recycled (a hosting tenant's workers are started with its own).
func (p *Pool) refill(heapMiB int) {
	p.mu.Lock()
	need := p.opts.Idle - len(p.idle)
	p.mu.Unlock()
	for range max(need, 0) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w, err := p.spawn(heapMiB)
			if err != nil {
				p.logf("worker: %v", err)
				return
			}
			p.put(w)
		}()
	}
}

// put returns a worker to the idle list, or ends it when the pool is full or closed.
func (p *Pool) put(w *proc) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < p.opts.Idle {
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	w.stdin.Close() // the worker exits at EOF
	go func() {
		select {
		case <-w.exited:
		case <-time.After(5 * time.Second):
			w.kill()
		}
	}()
}

// Idle is the number of started workers waiting for a call (metrics).
func (p *Pool) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// Close ends every idle worker; running calls finish on their own.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	p.wg.Wait()
	for _, w := range idle {
		w.stdin.Close()
		select {
		case <-w.exited:
		case <-time.After(2 * time.Second):
			w.kill()
		}
	}
}

// Run runs one call in a worker. cancelled reports a client cancellation (ctx ending without it
// is the server's own end). The call's callbacks (Sink, Elicit, Sample, Download) are answered
// here, in the server process.
func (p *Pool) Run(ctx context.Context, spec Spec, call *engine.Call, cancelled func() bool) *engine.Outcome {
	began := time.Now()
	key := rulesKey(&spec)
	w, err := p.get(key, spec.HeapMiB)
	if err != nil {
		return &engine.Outcome{ExitCode: 126, Stderr: []byte("mcp-bash: " + err.Error())}
	}
	send := func(f frame) error {
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		_, err = w.stdin.Write(append(b, '\n'))
		return err
	}
	var sendMu sync.Mutex
	sendLocked := func(f frame) {
		sendMu.Lock()
		defer sendMu.Unlock()
		send(f)
	}
	// The call's scratch tree goes in a directory of ours, removed here even if the worker dies.
	base := sandbox.ScratchBase(spec.ScratchBase)
	dir, err := os.MkdirTemp(base, "mcpbash-call-")
	if err != nil {
		p.put(w)
		return &engine.Outcome{ExitCode: 126, Stderr: []byte("mcp-bash: scratch: " + err.Error())}
	}
	defer os.RemoveAll(dir)
	spec.ScratchRoot, spec.ScratchBase = base, dir
	w.calls++
	w.key = key
	// The engine enforces the call's timeout; the watchdog catches a worker that does not
	// answer by then (a runaway that ignores cancellation, a loop in a library that cannot be
	// stopped): it is killed, and the call answers on time. The call's time starts when it is
	// taken, before a worker is found and the job sent: starting a worker and sending megabytes
	// of arguments are part of it, and the worker's own timer ends at the same Deadline.
	timeout := spec.Limits.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	spec.Deadline = began.Add(timeout)
	watchdog := time.NewTimer(timeout + p.opts.Grace - time.Since(began))
	defer watchdog.Stop()
	if err := send(frame{T: "job", Job: &spec}); err != nil {
		w.kill()
		return p.died(w, "the worker could not take the call")
	}
	var grace <-chan time.Time
	done := ctx.Done()
	callCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	for {
		select {
		case <-done:
			done = nil
			sendLocked(frame{T: "cancel", Client: cancelled != nil && cancelled()})
			grace = time.After(p.opts.Grace)
		case <-grace:
			w.kill()
			return &engine.Outcome{Cancelled: cancelled != nil && cancelled(), TimedOut: cancelled == nil || !cancelled(), ExitCode: 137}
		case <-watchdog.C:
			w.kill()
			// A timeout as the engine reports one: the worker was only late to say so, or ran
			// away past its own end; either way the call answers now and nothing goes on.
			p.logf("worker %d had not answered %v after its call's timeout: killed", w.cmd.Process.Pid, p.opts.Grace)
			return &engine.Outcome{TimedOut: true, ExitCode: 137}
		case f, ok := <-w.frames:
			if !ok {
				<-w.exited
				return p.died(w, "")
			}
			switch f.T {
			case "progress":
				if call.Sink != nil {
					call.Sink.Progress(callCtx, f.Progress, f.Total, f.Message)
				}
			case "log":
				if call.Sink != nil {
					call.Sink.Log(callCtx, f.Level, f.Logger, f.Data)
				}
			case "request":
				go func(f frame) {
					res, rerr := answer(callCtx, call, f)
					reply := frame{T: "reply", ID: f.ID, Result: res}
					if rerr != nil {
						reply.Error = &replyError{Message: rerr.Error()}
						var de *engine.DownloadError
						if errors.As(rerr, &de) {
							reply.Error = &replyError{Message: de.Message, DownloadType: de.Type}
						}
					}
					sendLocked(reply)
				}(f)
			case "outcome":
				out := f.Outcome
				if out == nil {
					out = &engine.Outcome{ExitCode: 126}
				}
				p.release(w)
				return out
			}
		}
	}
}

// answer runs one of the call's callbacks for the worker.
func answer(ctx context.Context, call *engine.Call, f frame) (json.RawMessage, error) {
	switch f.Kind {
	case "elicit":
		var r elicitRequest
		if err := json.Unmarshal(f.Request, &r); err != nil || call.Elicit == nil {
			return nil, errors.New("elicitation is not available")
		}
		res, err := call.Elicit(ctx, engine.ElicitRequest{Mode: r.Mode, Message: r.Message, Schema: r.Schema, URL: r.URL, Timeout: time.Duration(r.TimeoutNS)})
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	case "sample":
		var r engine.SamplingRequest
		if err := json.Unmarshal(f.Request, &r); err != nil || call.Sample == nil {
			return nil, errors.New("sampling is not available")
		}
		return call.Sample(ctx, r)
	case "download":
		var r downloadRequest
		if err := json.Unmarshal(f.Request, &r); err != nil || call.Download == nil {
			return nil, errors.New("downloads are not available")
		}
		data, err := call.Download(ctx, engine.DownloadRequest{URL: r.URL, Allow: r.Allow, Deny: r.Deny, MaxBytes: r.MaxBytes, Timeout: time.Duration(r.TimeoutNS)})
		if err != nil {
			return nil, err
		}
		return json.Marshal(data)
	}
	return nil, fmt.Errorf("unknown request %q", f.Kind)
}

// release recycles a worker after a call: back to the pool, or ended when it served MaxCalls or
// its memory grew past MaxRSS.
func (p *Pool) release(w *proc) {
	if w.calls >= p.opts.MaxCalls || peakRSS(w.cmd.Process.Pid) > p.opts.MaxRSS {
		w.stdin.Close()
		p.refill(w.heap)
		return
	}
	p.put(w)
}

// died builds the outcome of a worker that ended mid-call, naming the cause.
func (p *Pool) died(w *proc, why string) *engine.Outcome {
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
		w.kill()
		<-w.exited
	}
	p.refill(w.heap)
	cause := Cause(w.cmd.ProcessState, w.stderr.String())
	if why != "" {
		cause = why + ": " + cause
	}
	// The worker's last words (a Go traceback, say) are for the operator, not the client.
	p.logf("worker %d died mid-call: %s\n%s", w.cmd.Process.Pid, cause, lastLines(w.stderr.String(), 8))
	out := &engine.Outcome{ExitCode: 1}
	out.SetLimit(engine.LimitWorker, "Tool worker process died: %s", cause)
	return out
}

// Cause names why a worker process ended, from its exit status and the end of its stderr, for
// the operator's log and the result's sentence (the outcome's typed cause is LimitWorker
// whatever this says). A Go runtime that dies of a fatal error (stack overflow, out of memory,
// an unrecovered panic) says which only in words on stderr, all with exit status 2.
func Cause(st *os.ProcessState, stderr string) string {
	switch {
	case strings.Contains(stderr, "CPU time limit exceeded"):
		return "CPU time limit"
	case strings.Contains(stderr, "stack overflow") || strings.Contains(stderr, "stack exceeds"):
		return "stack overflow"
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory"):
		return "out of memory"
	case strings.Contains(stderr, "\npanic: ") || strings.HasPrefix(stderr, "panic: "):
		return "the interpreter panicked (" + firstLine(stderr[strings.Index(stderr, "panic: "):]) + ")"
	}
	if st == nil {
		return "unknown"
	}
	if why := exitCause(st); why != "" {
		return why
	}
	return "exit status " + strconv.Itoa(st.ExitCode())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// peakRSS is a process's VmHWM in bytes (0 when unknown).
func peakRSS(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := strings.Fields(string(rest))
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
