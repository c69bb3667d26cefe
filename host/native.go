package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/native"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Native mode (COMPAT §4): a tool runs as a real bash process with the original's file and
// environment contract. It is opt-in twice over, as in the original: the tool (meta
// "exec": "native") or the server (--exec=native) asks for it, and the operator allows it
// (MCPBASH_TOOL_ALLOWLIST names the tool, or the server was started with --exec=native).

// wantsNative reports whether a call of t runs in native mode.
func (srv *Server) wantsNative(t *registry.Tool) bool {
	if t.Kind == registry.ToolWasm {
		return false
	}
	return srv.cfg.Exec == ExecNative || metaString(t.Meta, "exec") == "native"
}

// inheritRefused is the original's first check of a call: MCPBASH_TOOL_ENV_MODE=inherit (from
// the environment or the project's server.meta.json) without the operator's consent refuses
// every call, whatever its engine.
func (srv *Server) inheritRefused(t *registry.Tool) error {
	if n := srv.cfg.Settings.Native; n.EnvMode == "inherit" && !n.EnvInheritAllow {
		return invalidParams(fmt.Sprintf("Tool '%s' blocked: MCPBASH_TOOL_ENV_MODE=inherit requires MCPBASH_TOOL_ENV_INHERIT_ALLOW=true", t.Name))
	}
	return nil
}

// nativePreflight applies the original's native-mode checks, in its order (after "not found",
// the allowlist and inheritRefused, which every engine shares).
func (srv *Server) nativePreflight(t *registry.Tool) error {
	if srv.cfg.Exec != ExecNative {
		if srv.cfg.Settings.ToolAllowlist == nil {
			return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy. Set MCPBASH_TOOL_ALLOWLIST in your MCP client config.", t.Name))
		}
	}
	if why := toolPathProblem(srv.cfg.Dirs.Tools, t.Abs); why != "" {
		return invalidParams("Tool path rejected by policy: " + why)
	}
	return nil
}

// toolPathProblem checks that a native tool's file is one the operator controls: inside the
// tools directory once symlinks are resolved, owned by us, not group/world-writable.
func toolPathProblem(toolsDir, file string) string {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "tool file is missing"
	}
	dir := sandbox.Physical(toolsDir)
	if !strings.HasPrefix(real, dir+string(filepath.Separator)) {
		return "tool file resolves outside the tools directory"
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "tool file is not a regular file"
	}
	// Windows has no group or world bits (Go reports 0666 for every writable file; who may
	// write a file is its ACL, which is not read here: docs/SANDBOX.md, Platforms).
	if fi.Mode().Perm()&0o022 != 0 && runtime.GOOS != "windows" {
		return "tool file is group- or world-writable"
	}
	if st := sandbox.StatOf(fi); st.Owned && int(st.Uid) != os.Getuid() {
		return "tool file is owned by another user"
	}
	return ""
}

// nativeSDKDir is an inherited MCPBASH_HOME's sdk/ when it holds the original's SDK (running the
// original's test suites against this binary), else "" for the embedded one.
func (srv *Server) nativeSDKDir() string {
	home := srv.cfg.Settings.Home
	if home == "" {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(home, "sdk", "tool-sdk.sh")); err == nil && fi.Mode().IsRegular() {
		return filepath.Join(home, "sdk")
	}
	return ""
}

// toolNetwork is the tool's meta sandbox.network: whether its processes (native tools,
// allowlisted commands) may open TCP connections. Default false.
func toolNetwork(t *registry.Tool) bool { return sandboxNetwork(t.Meta["sandbox"]) }

// sandboxNetwork is network of a metadata "sandbox" object.
func sandboxNetwork(sandboxMeta json.RawMessage) bool {
	var sb struct {
		Network bool `json:"network"`
	}
	_ = json.Unmarshal(sandboxMeta, &sb)
	return sb.Network
}

// noteConfinement says once, in the server log, when processes that leave the sandbox cannot
// be confined by the OS.
func (srv *Server) noteConfinement() {
	srv.confineNote.Do(func() {
		if s := sandbox.Confinement(); !s.Files {
			if srv.confiner.Required {
				srv.logf("warning: %v; MCPBASH_REQUIRE_CONFINEMENT=true, so native tools and allowlisted commands will refuse to run", s.Err)
			} else {
				srv.logf("warning: %v; native tools and allowlisted commands run without OS confinement", s.Err)
			}
		}
	})
}

// selfBinary is the mcp-bash binary processes re-execute (jq, __confine).
func selfBinary(cfg Config) string {
	if cfg.Self != "" {
		return cfg.Self
	}
	self, _ := os.Executable()
	if real, err := filepath.EvalSymlinks(self); err == nil {
		return real
	}
	return self
}

// Close releases what the server holds outside the process (the native SDK directory, the
// scratch trees of answered calls) and its wasm runtime.
func (srv *Server) Close() {
	if srv.engine != nil {
		srv.engine.Wait()
	}
	if srv.native != nil {
		srv.native.Close()
	}
	if srv.scriptNative != nil {
		srv.scriptNative.Close()
	}
	srv.closeWasm()
	if srv.pool != nil {
		srv.pool.Close()
	}
	srv.closeReview()
}

// nativeEngine is the native engine with the server's configuration: the environment mode, the
// payload spill threshold, the SDK, and the rlimits: address space (MCPBASH_NATIVE_MAX_AS_MB,
// 8192: Go programs such as the JSON tool reserve ≈1.25 GiB before they allocate), CPU seconds
// (MCPBASH_NATIVE_CPU_SECS, default twice the timeout + 2), open files
// (MCPBASH_NATIVE_MAX_OPEN_FILES, 1024) and file size (MCPBASH_NATIVE_MAX_FILE_MB, 1024). 0
// turns one off.
func (srv *Server) nativeEngine(self string) *native.Engine {
	n := srv.cfg.Settings.Native
	bash, bashErr := findBash(srv.cfg.Settings.Bash, srv.cfg.Getenv)
	return &native.Engine{Self: self, Bash: bash, BashErr: bashErr, Base: srv.cfg.Settings.TmpRoot, Project: srv.cfg.Dirs.Root,
		Env:    native.EnvPolicy{Environ: srv.cfg.Environ, Mode: n.EnvMode, Allow: n.EnvAllowlist},
		Spill:  n.PayloadThreshold,
		SDKDir: srv.nativeSDKDir(),
		Limits: native.Limits{
			AddressSpaceKiB: int64(n.MaxASMiB) << 10,
			CPUSeconds:      int64(n.CPUSeconds),
			OpenFiles:       int64(n.MaxOpenFiles),
			FileSizeKiB:     int64(n.MaxFileMiB) << 10,
		},
		BeforeConfine: srv.noteConfinement,
		Hide:          srv.changesHide(),
	}
}
