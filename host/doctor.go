package host

// WasmCacheDir is where compiled WebAssembly is cached across processes (MCPBASH_WASM_CACHE_DIR,
// else $XDG_CACHE_HOME/mcp-bash/wazero-<version>); "" when compiled code is kept in memory only.
// `mcp-bash doctor` reports it.
// The roots are vetted first: one that reaches the cache turns it off.
func (srv *Server) WasmCacheDir() string {
	srv.fallbackRoots()
	dir, _ := srv.wasmCachePaths()
	return dir
}
