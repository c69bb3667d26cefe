package host

import (
	"encoding/json"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// callPlan is what every call of one tool shares, derived once from its registry entry
// (registry.Tool.Prepared) and never changed after: when the tool changes, the registry makes a
// new entry and the next call a new plan. A call then decodes, stats and builds nothing the
// tool alone decides.
type callPlan struct {
	engine    string   // engineFor
	allow     []string // sandbox.allowCommands under the operator's ceiling
	network   bool     // sandbox.network
	memoryMiB int      // sandbox.memoryMiB of its wasm modules
	toolDir   string
	// wasmDirs are where the tool's wasm commands are looked up.
	wasmDirs []string
	// input and output are the compiled inputSchema and outputSchema (output nil: none).
	input, output *schemaPlan
	// env is the contract variables every call gets, and the engines' shared state.
	env *engine.Plan
}

// schemaPlan is a compiled schema (or why it does not compile), with its fast form when it has
// one.
type schemaPlan struct {
	sch  *jsonschema.Schema
	err  error
	fast *fastSchema
}

// planOf returns t's call plan, made on its first call. Calls racing the first may each make
// one; they are equal, and one is kept.
func (srv *Server) planOf(t *registry.Tool) *callPlan {
	if p, ok := t.Prepared.Load().(*callPlan); ok {
		return p
	}
	dir := filepath.Dir(t.Abs)
	p := &callPlan{engine: srv.engineFor(t), allow: srv.allowedCommands(t), network: toolNetwork(t), memoryMiB: wasmMemoryMiB(t),
		toolDir: dir, wasmDirs: []string{dir, filepath.Join(srv.cfg.Dirs.Root, "bin")},
		input: srv.schemas.plan(t.InputSchema), env: &engine.Plan{Env: srv.fixedContractEnv(t)}}
	if t.OutputSchema != nil {
		p.output = srv.schemas.plan(t.OutputSchema)
	}
	t.Prepared.Store(p)
	return p
}

// plan compiles a schema for a call plan.
func (c *schemaCache) plan(raw json.RawMessage) *schemaPlan {
	sch, err := c.get(raw)
	sp := &schemaPlan{sch: sch, err: err}
	if err == nil {
		sp.fast = compileFast(raw)
	}
	return sp
}
