package wasm

import (
	"context"
	"fmt"
	"slices"
	"sort"
)

// Inspection is what a module will ask of the host, as far as can be told without running it
// (run-tool --dry-run and validate for wasm tools and commands).
type Inspection struct {
	// Imports lists each imported function as module.name, sorted, once each.
	Imports []string `json:"imports"`
	// Unresolved lists the imports neither WASI preview 1 nor the mcp host module provides:
	// instantiating the module fails on them.
	Unresolved []string `json:"unresolved,omitempty"`
	// HasStart reports a `_start` export (a WASI command); without one there is nothing to run.
	HasStart bool `json:"hasStart"`
}

// Inspect compiles the module at path (through the runtime's cache) and lists its imports.
func (r *Runtime) Inspect(ctx context.Context, path string) (*Inspection, error) {
	mod, err := r.Compile(ctx, path)
	if err != nil {
		return nil, err
	}
	in := &Inspection{}
	for _, fn := range mod.ImportedFunctions() {
		module, name, _ := fn.Import()
		in.Imports = append(in.Imports, module+"."+name)
		switch {
		case module == "wasi_snapshot_preview1":
			// wazero implements every preview 1 function (the unsupported ones return ENOSYS).
		case module == HostModule && slices.Contains([]string{"progress", "log", "is_cancelled"}, name): // hostmod.go
		default:
			in.Unresolved = append(in.Unresolved, fmt.Sprintf("%s.%s", module, name))
		}
	}
	sort.Strings(in.Imports)
	in.Imports = slices.Compact(in.Imports)
	_, in.HasStart = mod.ExportedFunctions()["_start"]
	return in, nil
}
