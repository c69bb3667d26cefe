package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// errRunEnded is the cause of a frame's context once its run has ended.
var errRunEnded = errors.New("run ended")

// ErrTimedOut is the cause of a frame's context when the call's timeout passed; it is a
// context.DeadlineExceeded.
var ErrTimedOut = fmt.Errorf("call timed out: %w", context.DeadlineExceeded)

// Frame is what an in-process engine (the sandbox, wasm) runs one call in: the filesystem over
// the Job's roots and scratch directory with its access record, the output buffers with their
// caps, and a context that ends at the timeout, an output cap or Stop. Both engines share it so
// that the limits, the order of causes and the access record are the same in each. The run has
// one context and one timer: the timeout stops the context with ErrTimedOut, as a cap stops it
// with its own cause (a second context for the deadline cost as much as the rest of the frame).
type Frame struct {
	// Ctx is the run's context; Stop ends it with a cause.
	Ctx    context.Context
	Limits sandbox.Limits
	FS     *sandbox.FS
	Record *sandbox.Record
	Stdout *sandbox.HeadBuffer
	Stderr *sandbox.TailBuffer
	// Cancelled is the Job's Cancelled (never nil).
	Cancelled func() bool

	parent context.Context
	stop   context.CancelCauseFunc
	timer  *time.Timer

	// The record and the output buffers live in the frame (one allocation per run instead of
	// four); Record, Stdout and Stderr point at them.
	rec    sandbox.Record
	stdout sandbox.HeadBuffer
	stderr sandbox.TailBuffer
}

// BeginFrame starts a run of job in ctx over scratch (the call's scratch root). On error (a
// root that cannot be opened) nothing needs closing.
func BeginFrame(ctx context.Context, job *Job, scratch sandbox.Scratch) (*Frame, error) {
	f := &Frame{Limits: job.Policy.Limits.WithDefaults(), Cancelled: job.Cancelled, parent: ctx}
	f.Record = &f.rec
	var err error
	if f.FS, err = sandbox.NewFS(job.Policy, scratch, f.Record); err != nil {
		return nil, err
	}
	if f.Cancelled == nil {
		f.Cancelled = func() bool { return false }
	}
	runCtx, stop := context.WithCancelCause(ctx)
	f.Ctx, f.stop = runCtx, stop
	f.timer = time.AfterFunc(f.Limits.Timeout, func() { stop(ErrTimedOut) })
	// A write past the call's bytes-written budget ends the call, as output past its cap does:
	// a script that ignores the write error must not pass for a success. Each limit stops the
	// run with its own cause (no closure of its own).
	f.FS.OnWriteLimit(stop)
	f.Record.OnFull(stop)
	f.stdout = sandbox.HeadBuffer{Max: f.Limits.MaxStdoutBytes, OnFull: stop}
	f.stderr = sandbox.TailBuffer{Keep: 4096, Max: f.Limits.MaxStderrBytes, OnFull: stop}
	f.Stdout, f.Stderr = &f.stdout, &f.stderr
	return f, nil
}

// Stop ends the run's context with cause (the first cause wins).
func (f *Frame) Stop(cause error) { f.stop(cause) }

// End ends the run's context: nothing started in it may go on. Finish and Close call it.
func (f *Frame) End() {
	f.timer.Stop()
	f.stop(errRunEnded)
}

// Close ends the run and closes its filesystem.
func (f *Frame) Close() {
	f.End()
	f.FS.Close()
}

// Finish ends the run and fills out with what is common to the in-process engines: stdout,
// the exit status, the first cause that ended the run (a client cancellation, the output caps,
// then the engine's own, which own sets and reports, then the timeout) and the stderr tail. It
// reports whether a cause was found. The engine calls Report last, once nothing
// more is read through FS.
func (f *Frame) Finish(out *Outcome, status int, own func(cause error) bool) bool {
	f.End()
	out.Stdout = f.Stdout.Bytes()
	out.ExitCode = status
	cause := context.Cause(f.Ctx)
	found := true
	switch {
	case f.Cancelled():
		out.Cancelled = true
	case errors.Is(cause, sandbox.ErrStdoutLimit):
		out.SetLimit(LimitStdout, "Tool output exceeded %d bytes", f.Limits.MaxStdoutBytes)
	case errors.Is(cause, sandbox.ErrStderrLimit):
		out.SetLimit(LimitStderr, "Tool stderr exceeded %d bytes", f.Limits.MaxStderrBytes)
	case errors.Is(cause, sandbox.ErrRecordFull):
		out.SetLimit(LimitRecord, "Tool made more than %d distinct writes, refusals and commands (the access record keeps every one)", sandbox.MaxKeptEntries)
	case errors.As(cause, new(sandbox.ErrWriteBudget)):
		out.SetLimit(LimitBytesWritten, "Tool wrote more than %d bytes (its tenant's bytesWritten, else MCPBASH_MAX_BYTES_WRITTEN_PER_CALL)", f.Limits.MaxBytesWritten)
	case own != nil && own(cause):
	case errors.Is(cause, ErrTimedOut) && f.parent.Err() == nil:
		out.TimedOut = true
	default:
		found = false
	}
	out.Stderr = f.Stderr.Tail()
	return found
}

// Report sets what the run left for the host: the access record and, in review mode, the
// manifest of the layer holding its writes. Engines call it last, once nothing more is read or
// written through FS.
func (f *Frame) Report(out *Outcome) {
	out.Access = f.AccessJSON()
	out.Review = f.FS.Review()
}

// NoAccess is the access record of a run that accessed nothing.
const NoAccess = `{"entries":[]}`

// AccessJSON is the access record as the outcome carries it: {"entries":[...]}, with
// "truncated" the number of allowed reads left out (writes, refusals and commands never are).
func (f *Frame) AccessJSON() json.RawMessage { return AccessJSON(f.Record) }

// AccessJSON is rec as an outcome carries it (Frame.AccessJSON; engines without a frame, such
// as the native engine, record what they did in a Record of their own).
func AccessJSON(rec *sandbox.Record) json.RawMessage {
	entries, truncated := rec.Entries()
	if len(entries) == 0 && truncated == 0 {
		return json.RawMessage(NoAccess) // most calls touch no file
	}
	if entries == nil {
		entries = []sandbox.Access{}
	}
	acc := map[string]any{"entries": entries}
	if truncated > 0 {
		acc["truncated"] = truncated
	}
	b, _ := json.Marshal(acc)
	return b
}
