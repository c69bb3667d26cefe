package host

// tools/call: the request handler and CallTool, which takes a call from its arguments through
// the policy, the engine and back to a result. Each step lives in a file of its own:
// callargs.go (arguments, timeout), toolpolicy.go (who may run what), toolenv.go (the tool
// contract's variables), engines.go (which engine), results.go (the answer), sink.go
// (progress and logs), client.go (questions to the client).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// errSuppressed marks a request whose response must not be sent (cancelled calls).
var errSuppressed = errors.New("response suppressed")

// errHeld marks a request answered later, not now (an open subscriptions/listen stream): no
// response is sent yet, and the request succeeded.
var errHeld = fmt.Errorf("%w: the answer comes when the stream ends", errSuppressed)

type callParams struct {
	Name        *string         `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Meta        json.RawMessage `json:"_meta"`
	TimeoutSecs json.RawMessage `json:"timeoutSecs"`
	// Multi round-trip retries (2026-07-28).
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   string          `json:"requestState"`
}

// scan reads raw (valid JSON: the envelope was checked) as json.Unmarshal into p would, for
// the usual shapes; false, with p untouched, sends it to json.Unmarshal (any other shape, and
// its errors).
func (p *callParams) scan(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return true
	}
	var q callParams
	plain := true
	// encoding/json matches a field's name case-insensitively, and the last member wins.
	ok := jsonrpc.Members(raw, func(k, v []byte) {
		switch {
		case bytes.EqualFold(k, []byte("name")):
			if string(v) == "null" {
				q.Name = nil
			} else if s, ok := jsonrpc.PlainString(v); ok {
				name := string(s)
				q.Name = &name
			} else {
				plain = false
			}
		case bytes.EqualFold(k, []byte("arguments")):
			q.Arguments = v
		case bytes.EqualFold(k, []byte("_meta")):
			q.Meta = v
		case bytes.EqualFold(k, []byte("timeoutSecs")):
			q.TimeoutSecs = v
		case bytes.EqualFold(k, []byte("inputResponses")):
			q.InputResponses = v
		case bytes.EqualFold(k, []byte("requestState")):
			if s, ok := jsonrpc.PlainString(v); ok {
				q.RequestState = string(s)
			} else if string(v) != "null" {
				plain = false
			}
		}
	})
	if !ok || !plain {
		return false
	}
	*p = q
	return true
}

// toolsCall answers tools/call for a session.
func (srv *Server) toolsCall(ctx context.Context, s *Session, r *Request) (any, error) {
	// The params as the pipeline decoded them: the tool authorized is the tool that runs.
	p := r.call
	if r.callErr != nil {
		return nil, r.callErr
	}
	if p.Name == nil || *p.Name == "" {
		return nil, invalidParams("Tool name is required")
	}
	tc := ToolCall{Name: *p.Name, Arguments: p.Arguments, Meta: p.Meta, TimeoutSecs: p.TimeoutSecs, scope: r.scope, Anonymous: s.anonymous()}
	tc.Session, tc.Subject, tc.Client = s.reviewID(), s.subject, s.clientName()
	tc.Sink = func(token json.RawMessage) CallSink {
		k := newToolSink(ctx, s, token, srv.cfg.ProgressPerMinute, srv.cfg.Settings.LogsPerMinute)
		k.level = func() (Level, bool) { return s.logLevelFor(ctx) }
		return k
	}
	if ri := statelessInfo(ctx); ri != nil {
		return srv.statelessToolsCall(ctx, s, ri, tc, p)
	}
	srv.askThrough(&tc, s, s.Protocol(), &s.client.caps)
	// The session's roots: the client's, or (without the roots capability) the fallback it
	// computed once; a scope that must not take a fallback from the past (a tenant's, which a
	// reload may move) computes its own when they are not the client's.
	tc.Roots = func(ctx context.Context) []engine.Root { return s.waitRoots(ctx) }
	tc.clientRoots = s.client.caps.Roots != nil
	return answer(srv.CallTool(ctx, tc))
}

// answer is a handler's answer from CallTool's: no result (a nil interface, not a nil
// pointer in one) when it failed.
func answer(res *CallToolResult, _ *engine.Outcome, err error) (any, error) {
	if err != nil || res == nil {
		return nil, err
	}
	return res, nil
}

// ToolCall is one tool invocation, from a session's tools/call or from `mcp-bash run-tool`.
type ToolCall struct {
	Name            string
	Arguments, Meta json.RawMessage
	TimeoutSecs     json.RawMessage
	ElicitSupported bool
	Elicit          func(context.Context, engine.ElicitRequest) (engine.ElicitResult, error)
	// SamplingSupported and Sample: the client's sampling/createMessage (nil: none).
	SamplingSupported bool
	Sample            func(context.Context, engine.SamplingRequest) (json.RawMessage, error)
	// UISupported: the client offered the MCP Apps extension.
	UISupported bool
	// Sink makes the progress/log sink for the call's progress token (nil: none).
	Sink func(token json.RawMessage) CallSink
	// Roots returns the roots the call runs in (nil: the server's fallback roots).
	Roots func(ctx context.Context) []engine.Root
	// clientRoots says Roots are the roots a client named (a session's may be its fallback).
	clientRoots bool
	// scope is who the call runs for (nil: the operator, as for run-tool): its roots bound
	// the call's, it sees and may run tools, it caps the timeout and applies its limits,
	// commands and workers to the job, and it may ask for review mode (pipeline.go).
	scope scope
	// Session identifies the session the call belongs to and Subject its principal (review
	// mode: change sets wait per session, and the audit log says whose they were); Client
	// names who answers its elicitations ("" for run-tool).
	Session, Subject, Client string
	// stateless: a 2026-07-28 call, re-run on every round, so that the change set a person
	// would approve could differ from the one committed: review mode keeps it waiting instead.
	stateless bool
	// Anonymous: the client named no clientInfo; under MCPBASH_TOOL_ERRORS=auto its failures
	// are answered as the original's JSON-RPC errors.
	Anonymous bool
}

// CallSink receives a running call's progress and logs; Close is called when the call ends,
// after which nothing more may be forwarded.
type CallSink interface {
	engine.Sink
	Close()
}

// CallTool runs a tool and shapes its outcome as the original framework does (COMPAT.md §4).
// The outcome is nil when the call never reached an engine.
func (srv *Server) CallTool(ctx context.Context, tc ToolCall) (*CallToolResult, *engine.Outcome, error) {
	if tc.Name == "" {
		return nil, nil, invalidParams("Tool name is required")
	}
	args, meta, err := callArguments(tc)
	if err != nil {
		return nil, nil, err
	}
	meta = srv.withoutRemoteToken(meta)
	if tc.scope == nil {
		tc.scope = operatorScope{srv}
	}
	sc := tc.scope
	tool, err := srv.reg.Tool(ctx, tc.Name)
	if err == nil && !sc.toolAllowed(tool) {
		err = registry.ErrNotFound // hidden from the scope: answered exactly as a missing tool
	}
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return nil, nil, invalidParams(fmt.Sprintf("Tool '%s' not found", tc.Name))
	case err != nil:
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Unable to load tool registry", err.Error())
	}
	if err := srv.checkPolicy(ctx, tool); err != nil {
		return nil, nil, err
	}
	jr := srv.jsonrpcToolErrors(tc.Anonymous)
	plan := srv.planOf(tool)
	argsValue, argsOrder := decodeArgs(args)
	if res := srv.checkArguments(tool, plan.input, argsValue, jr); res != nil {
		return res, nil, nil
	}
	if err := srv.inheritRefused(tool); err != nil {
		return nil, nil, err
	}
	kind := plan.engine
	if err := sc.engineAllowed(tool, kind); err != nil {
		return nil, nil, err
	}
	if kind == ExecNative {
		if err := srv.nativePreflight(tool); err != nil {
			return nil, nil, err
		}
	}
	timeout := sc.timeout(srv.toolTimeout(tool, tc.TimeoutSecs))
	job, sink := srv.toolJob(ctx, sc, tc, tool, plan, args, meta, timeout)
	job.Call.ArgsValue, job.Call.ArgsOrder = argsValue, argsOrder
	job, runCtx, err := sc.prepare(ctx, job)
	if err != nil {
		if sink != nil {
			sink.Close()
		}
		return nil, nil, err
	}
	var review *reviewCall
	if srv.writeMode(tool, sc) == WriteReview {
		var refused *CallToolResult
		if review, refused, err = srv.startReview(ctx, tc, tool, kind, &job); review == nil {
			if sink != nil {
				sink.Close()
			}
			return refused, nil, err
		}
	}
	out := srv.engines[kind].Run(runCtx, job)
	if kind != ExecSandbox {
		// The sandbox engine adds these itself (in its worker too); native and wasm output is
		// the program's own.
		for _, note := range sdk.NotUTF8Notes(out.Stdout, out.Stderr) {
			out.Stderr = append(append(out.Stderr, note...), '\n')
		}
	}
	if rec := recordOf(ctx); rec != nil {
		rec.outcome = out
	}
	if sink != nil {
		sink.Close()
	}
	if out.Cancelled {
		if review != nil {
			srv.finishReview(ctx, review, tc, tool, out, nil)
		}
		return nil, out, errSuppressed
	}
	res, rerr := shapeOutcome(srv, tool, plan.output, out, timeout, jr)
	if review != nil {
		srv.finishReview(ctx, review, tc, tool, out, res)
	}
	if rerr != nil {
		return nil, out, rerr
	}
	if srv.wantsAccessMeta(meta) {
		res.meta()["mcpbash/access"] = out.Access
	}
	// Progress and log lines over the rate limit were dropped: the result says how many.
	if d, ok := sink.(interface{ Dropped() int }); ok && d.Dropped() > 0 {
		res.meta()["mcpbash/notificationsDropped"] = d.Dropped()
		srv.logf("tool %s: %d progress/log notifications over MCPBASH_MAX_PROGRESS_PER_MIN / MCPBASH_MAX_LOGS_PER_MIN were dropped", tool.Name, d.Dropped())
	}
	return res, out, nil
}

// toolJob is the engine Job of a call of tool: the SDK call (roots, client callbacks, sink),
// the sandbox policy and the tool contract's variables. The sink, if any, is closed by the
// caller when the run ends.
func (srv *Server) toolJob(ctx context.Context, sc scope, tc ToolCall, tool *registry.Tool, plan *callPlan, args, meta json.RawMessage, timeout time.Duration) (engine.Job, CallSink) {
	roots := sc.roots(ctx, tc.Roots, tc.clientRoots)
	call := &engine.Call{
		Tool: tc.Name, ToolPath: tool.Abs, ToolDir: plan.toolDir,
		Args: args, Meta: meta, Metadata: tool.Item, ProgressToken: progressToken(meta),
		Roots: roots, ElicitSupported: tc.ElicitSupported && tc.Elicit != nil, Elicit: tc.Elicit,
		SamplingSupported: tc.SamplingSupported && tc.Sample != nil, Sample: tc.Sample,
		UISupported:  tc.UISupported,
		MaxTextBytes: srv.cfg.Settings.MaxTextBytes,
		Download:     srv.download,
	}
	var sink CallSink
	if tc.Sink != nil {
		sink = tc.Sink(call.ProgressToken)
		call.Sink = sink
	}
	policy := srv.toolPolicy(plan.allow, call.ToolDir, roots, timeout)
	// Every call starts in the project root, as in the original: a tool reads data/x.txt
	// relative to it whatever its roots. The directory need not be inside a root; what the
	// tool opens there is checked against its roots like any other path.
	dir := srv.cfg.Dirs.Root
	own, session := srv.callContractEnv(call, tool)
	cancelled := func() bool { return ctx.Err() != nil } // one closure for the job and its wasm commands
	return engine.Job{Call: call, Script: tool.Abs, Dir: dir, Policy: policy, ScratchBase: srv.cfg.Settings.TmpRoot,
		Env: own, Session: session, Plan: plan.env, Cancelled: cancelled, Confiner: srv.confiner, Spill: srv.cfg.Settings.Native.PayloadThreshold,
		Network: plan.network, MemoryMiB: plan.memoryMiB, Commands: srv.wasmCommands(cancelled, call, plan.wasmDirs, plan.memoryMiB)}, sink
}
