package host

// WasmCacheDir is where compiled WebAssembly is cached across processes (MCPBASH_WASM_CACHE_DIR,
// else $XDG_CACHE_HOME/mcp-bash/wazero-<version>); "" when compiled code is kept in memory only.
// `mcp-bash doctor` reports it.
func (srv *Server) WasmCacheDir() string { return srv.wasmCacheDir() }
