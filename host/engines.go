package host

import (
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/worker"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// The engines a tool runs in, by lookup: every one implements engine.Engine, and CallTool gives
// each the same Job. Adding an engine is an entry here and a case in engineFor.

// engineWasm names the wasm engine in Server.engines (ExecSandbox and ExecNative the others).
const engineWasm = "wasm"

// engineFor is the engine a call of t runs in: wasm for a module, native when the server
// (--exec=native) or the tool's meta ("exec": "native") asks for it, else the sandbox.
func (srv *Server) engineFor(t *registry.Tool) string {
	switch {
	case t.Kind == registry.ToolWasm:
		return engineWasm
	case srv.wantsNative(t):
		return ExecNative
	}
	return ExecSandbox
}

// newEngines builds the engine table: the in-process sandbox (or, with
// MCPBASH_ISOLATION=process, the worker pool in front of it), native bash, and wasm on the
// server's lazily started runtime.
func (srv *Server) newEngines() map[string]engine.Engine {
	engines := map[string]engine.Engine{ExecSandbox: srv.engine, ExecNative: srv.native, engineWasm: &wasm.Engine{Runtime: srv.wasmRuntime}}
	if srv.pool != nil {
		// Workers run scripts, so they compile wasm commands in memory only: they never see
		// the compilation cache or its key (docs/WASM.md).
		engines[ExecSandbox] = &worker.Engine{Pool: srv.pool, Project: srv.cfg.Dirs.Root, CPU: srv.cfg.Settings.Worker.CPU}
	}
	return engines
}
