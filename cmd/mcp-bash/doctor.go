package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-bash/mcp-bash/wasm"
)

// doctorRuntime adds to the doctor report what a server for the project would use: the wasm
// compilation cache ({"dir", "exists"}; dir is null when compiled code stays in memory) and the
// roots a call gets without a client (MCPBASH_ROOTS, config/roots.json, or the project).
func doctorRuntime(ctx context.Context, report map[string]any, projectRoot string, getenv func(string) string) {
	var dir string
	roots := []map[string]string{}
	if srv, _, err := cliServer(ctx, projectRoot, getenv); err == nil {
		defer srv.Close()
		dir = srv.WasmCacheDir()
		for _, r := range srv.Roots(nil) {
			roots = append(roots, map[string]string{"path": r.Path, "name": r.Name, "uri": r.URI})
		}
		report["roots"] = roots
	} else {
		// No project: the default location, and no roots.
		switch v := strings.TrimSpace(getenv("MCPBASH_WASM_CACHE_DIR")); v {
		case "off", "none":
		case "":
			dir = wasm.DefaultCacheDir(getenv)
		default:
			dir = v
		}
		report["roots"] = nil
	}
	cache := map[string]any{"dir": nil, "exists": false}
	if dir != "" {
		cache["dir"] = dir
		fi, err := os.Stat(dir)
		cache["exists"] = err == nil && fi.IsDir()
	}
	report["wasmCache"] = cache
}

// doctorText renders one report value for the human-readable doctor output: objects and lists
// as compact JSON, the rest as is.
func doctorText(v any) string {
	switch v.(type) {
	case map[string]any, []map[string]string, []any:
		b, _ := json.Marshal(v)
		return string(b)
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}
