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
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// errSuppressed marks a request whose response must not be sent (cancelled calls).
var errSuppressed = errors.New("response suppressed")

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
	var p callParams
	if !p.scan(r.Params) {
		if err := decodeParams(r.Params, &p); err != nil {
			return nil, err
		}
	}
	if p.Name == nil || *p.Name == "" {
		return nil, invalidParams("Tool name is required")
	}
	tc := ToolCall{Name: *p.Name, Arguments: p.Arguments, Meta: p.Meta, TimeoutSecs: p.TimeoutSecs}
	t, err := srv.tenantFor(s)
	if err != nil {
		return nil, err
	}
	tc.Tenant = t
	tc.Sink = func(token json.RawMessage) CallSink {
		k := newToolSink(ctx, s, token, srv.cfg.ProgressPerMinute, srv.cfg.Settings.LogsPerMinute)
		k.level = func() (Level, bool) { return s.logLevelFor(ctx) }
		return k
	}
	if ri := statelessInfo(ctx); ri != nil {
		return srv.statelessToolsCall(ctx, s, ri, tc, &p)
	}
	srv.askThrough(&tc, s, s.Protocol(), &s.client.caps)
	tc.Roots = func(ctx context.Context) []engine.Root { return s.waitRoots(ctx) }
	if t != nil && s.client.caps.Roots == nil {
		tc.Roots = nil // no client roots: the tenant's, as configured now (a reload may move them)
	}
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
	// Sink makes the progress/log sink for the call's progress token (nil: none).
	Sink func(token json.RawMessage) CallSink
	// Roots returns the roots the call runs in (nil: the server's fallback roots).
	Roots func(ctx context.Context) []engine.Root
	// Tenant is the hosting tenant the call runs for (nil outside hosting mode): its roots
	// bound the call's, its lists bound commands and wasm modules, its limits cap the call's,
	// and the call runs in its own workers.
	Tenant *tenants.Tenant
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
	tool, err := srv.reg.Tool(ctx, tc.Name)
	if err == nil && tc.Tenant != nil && (!tc.Tenant.Visible(tenants.KindTool, tc.Name) || !tenantMayRun(tc.Tenant, tool)) {
		err = registry.ErrNotFound // hidden from the tenant: answered exactly as a missing tool
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
	plan := srv.planOf(tool)
	argsValue, argsOrder := decodeArgs(args)
	if res := srv.checkArguments(tool, plan.input, argsValue); res != nil {
		return res, nil, nil
	}
	if err := srv.inheritRefused(tool); err != nil {
		return nil, nil, err
	}
	kind := plan.engine
	if kind == ExecNative && tc.Tenant != nil {
		// Real bash runs any binary it finds: no tenant's command list could hold.
		return nil, nil, invalidParams(fmt.Sprintf("Tool '%s' runs in the native engine, which hosting mode does not offer tenants; run it sandboxed", tool.Name))
	}
	if kind == ExecNative {
		if err := srv.nativePreflight(tool); err != nil {
			return nil, nil, err
		}
	}
	timeout := srv.toolTimeout(tool, tc.TimeoutSecs)
	runCtx := ctx
	if tc.Tenant != nil {
		timeout = min(timeout, tc.Tenant.Limits().Timeout)
		runCtx = srv.withTenantWorkers(ctx, tc.Tenant)
	}
	job, sink := srv.toolJob(ctx, tc, tool, plan, args, meta, timeout)
	job.Call.ArgsValue, job.Call.ArgsOrder = argsValue, argsOrder
	if tc.Tenant != nil {
		if err := srv.tenantJob(&job, tc.Tenant); err != nil {
			if sink != nil {
				sink.Close()
			}
			return nil, nil, err
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
		return nil, out, errSuppressed
	}
	res, rerr := shapeOutcome(srv, tool, plan.output, out, timeout)
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
func (srv *Server) toolJob(ctx context.Context, tc ToolCall, tool *registry.Tool, plan *callPlan, args, meta json.RawMessage, timeout time.Duration) (engine.Job, CallSink) {
	var roots []engine.Root
	switch {
	case tc.Tenant != nil && tc.Roots == nil:
		roots = tenantRoots(tc.Tenant)
	case tc.Tenant != nil:
		// A client's roots can only narrow the tenant's (the one place every call passes).
		roots = narrowRoots(tc.Tenant, tc.Roots(ctx))
	case tc.Roots != nil:
		roots = tc.Roots(ctx)
	default:
		roots = srv.fallbackRoots()
	}
	call := &engine.Call{
		Tool: tc.Name, ToolPath: tool.Abs, ToolDir: plan.toolDir,
		Args: args, Meta: meta, Metadata: tool.Item, ProgressToken: progressToken(meta),
		Roots: roots, ElicitSupported: tc.ElicitSupported && tc.Elicit != nil, Elicit: tc.Elicit,
		SamplingSupported: tc.SamplingSupported && tc.Sample != nil, Sample: tc.Sample,
		MaxTextBytes: srv.cfg.Settings.MaxTextBytes,
		Download:     srv.download,
	}
	var sink CallSink
	if tc.Sink != nil {
		sink = tc.Sink(call.ProgressToken)
		call.Sink = sink
	}
	policy := srv.toolPolicy(plan.allow, call.ToolDir, roots, timeout)
	// A call starts in the project root when a root covers it, else in the tool's directory.
	dir := call.ToolDir
	for _, rt := range roots {
		if srv.cfg.Dirs.Root == rt.Path || strings.HasPrefix(srv.cfg.Dirs.Root, rt.Path+"/") {
			dir = srv.cfg.Dirs.Root
			break
		}
	}
	return engine.Job{Call: call, Script: tool.Abs, Dir: dir, Policy: policy, ScratchBase: srv.cfg.Settings.TmpRoot,
		Env: srv.callContractEnv(call), Plan: plan.env, Cancelled: func() bool { return ctx.Err() != nil }, Confiner: srv.confiner,
		Network: plan.network, MemoryMiB: plan.memoryMiB, Commands: srv.wasmCommands(ctx, call, plan.wasmDirs, plan.memoryMiB)}, sink
}
