package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/native"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
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

// nativePreflight applies the original's native-mode checks, in its order (after "not found"
// and the allowlist, which every engine shares).
func (srv *Server) nativePreflight(t *registry.Tool) error {
	if mode := srv.envMode(); mode == "inherit" && !envBool(srv.cfg.Getenv("MCPBASH_TOOL_ENV_INHERIT_ALLOW")) {
		return invalidParams(fmt.Sprintf("Tool '%s' blocked: MCPBASH_TOOL_ENV_MODE=inherit requires MCPBASH_TOOL_ENV_INHERIT_ALLOW=true", t.Name))
	}
	if srv.cfg.Exec != ExecNative {
		if _, set := splitList(srv.cfg.Getenv("MCPBASH_TOOL_ALLOWLIST")); !set {
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
	if fi.Mode().Perm()&0o022 != 0 {
		return "tool file is group- or world-writable"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "tool file is owned by another user"
	}
	return ""
}

func (srv *Server) envMode() string {
	switch m := strings.ToLower(strings.TrimSpace(srv.cfg.Getenv("MCPBASH_TOOL_ENV_MODE"))); m {
	case "allowlist", "inherit":
		return m
	default:
		return "minimal"
	}
}

// secretName matches variables that must not reach a tool through the minimal mode's MCP_* /
// MCPBASH_* pass-through (COMPAT §7 #8: the original leaked MCPBASH_REMOTE_TOKEN and similar).
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_KEY($|_)|APIKEY`)
})

// nativeEnv is the native tool's starting environment for the configured mode: the contract
// variables win over anything from the host.
func (srv *Server) nativeEnv(call *sdk.Call, t *registry.Tool) []string {
	var host []string
	if srv.cfg.Environ != nil {
		host = srv.cfg.Environ()
	}
	get := func(name string) (string, bool) {
		for i := len(host) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(host[i], name+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	var env []string
	switch srv.envMode() {
	case "inherit":
		env = append(env, host...)
	default:
		allow, _ := splitList(srv.cfg.Getenv("MCPBASH_TOOL_ENV_ALLOWLIST"))
		allowMode := srv.envMode() == "allowlist"
		for _, kv := range host {
			name, _, _ := strings.Cut(kv, "=")
			switch {
			case allowMode && slices.Contains(allow, name):
				env = append(env, kv)
			case (strings.HasPrefix(name, "MCP_") || strings.HasPrefix(name, "MCPBASH_")) && !secretName().MatchString(name):
				env = append(env, kv)
			}
		}
		for _, name := range []string{"PATH", "HOME", "LANG"} {
			if v, ok := get(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	// PATH, HOME and LANG are kept, and defaulted when unset (HOME to the project root).
	for name, def := range map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": srv.cfg.Dirs.Root, "LANG": "C"} {
		if v, _ := get(name); v == "" {
			env = append(env, name+"="+def)
		}
	}
	for k, v := range srv.contractEnv(call, t) {
		env = append(env, k+"="+v)
	}
	return env
}

// nativeSDKDir is an inherited MCPBASH_HOME's sdk/ when it holds the original's SDK (running the
// original's test suites against this binary), else "" for the embedded one.
func (srv *Server) nativeSDKDir() string {
	home := srv.cfg.Getenv("MCPBASH_HOME")
	if home == "" {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(home, "sdk", "tool-sdk.sh")); err == nil && fi.Mode().IsRegular() {
		return filepath.Join(home, "sdk")
	}
	return ""
}

// runNative runs one native call.
func (srv *Server) runNative(ctx context.Context, call *sdk.Call, t *registry.Tool, policy sandbox.Policy) *sdk.Outcome {
	job := native.Job{
		Call: call, Script: t.Abs, Dir: srv.cfg.Dirs.Root,
		Env:       srv.nativeEnv(call, t),
		Timeout:   policy.Limits.Timeout,
		MaxStdout: policy.Limits.MaxStdoutBytes, MaxStderr: policy.Limits.MaxStderrBytes,
		Roots:     policy.Roots,
		Cancelled: func() bool { return ctx.Err() != nil },
		Spill:     envInt(srv.cfg.Getenv, "MCPBASH_ENV_PAYLOAD_THRESHOLD", 65536, 0, 1<<30),
		SDKDir:    srv.nativeSDKDir(),
		Limits:    srv.nativeLimits(policy.Limits.Timeout),
	}
	rules := sandbox.ConfineRules{Net: toolNetwork(t)}
	for _, r := range policy.Roots {
		if r.Protected {
			continue // Landlock cannot take rights away, and the directory may not exist
		}
		if r.Mode == sandbox.ReadWrite {
			rules.RW = append(rules.RW, r.Path)
		} else {
			rules.RO = append(rules.RO, r.Path)
		}
	}
	// The tool's own directory, the SDK directory, and the binary its jq symlink points to.
	rules.RO = append(rules.RO, call.ToolDir, srv.native.Self)
	if job.SDKDir != "" {
		rules.RO = append(rules.RO, job.SDKDir)
	}
	job.Wrap = func(argv []string, scratch string) ([]string, bool, error) {
		r := rules
		r.RW = append(append([]string(nil), r.RW...), scratch)
		if dir, err := srv.native.SDKDir(); err == nil {
			r.RO = append(append([]string(nil), r.RO...), dir)
		}
		// The confinement wrapper also sets the rlimits (no extra bash start per call).
		r.Limits = job.Limits.Rlimits()
		srv.noteConfinement()
		out, err := srv.confiner.Wrap(r, argv)
		return out, err == nil && len(out) != len(argv), err
	}
	return srv.native.Run(ctx, job)
}

// toolNetwork is the tool's meta sandbox.network: whether its processes (native tools,
// allowlisted commands) may open TCP connections. Default false.
func toolNetwork(t *registry.Tool) bool {
	var sb struct {
		Network bool `json:"network"`
	}
	_ = json.Unmarshal(t.Meta["sandbox"], &sb)
	return sb.Network
}

// noteConfinement says once, in the server log, when processes that leave the sandbox cannot
// be confined by the OS.
func (srv *Server) noteConfinement() {
	srv.confineNote.Do(func() {
		if _, err := sandbox.LandlockStatus(); err != nil {
			if srv.confiner.Required {
				srv.logf("warning: %v; MCPBASH_REQUIRE_CONFINEMENT=true, so native tools and allowlisted commands will refuse to run", err)
			} else {
				srv.logf("warning: %v; native tools and allowlisted commands run without OS confinement", err)
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

// nativePrintEnv is run-tool --print-env in native mode: the environment with per-call paths
// named rather than created.
func (srv *Server) nativePrintEnv(call *sdk.Call, t *registry.Tool) []string {
	env := srv.nativeEnv(call, t)
	sdkDir := srv.nativeSDKDir()
	if sdkDir == "" {
		sdkDir = "(per-process read-only copy of the embedded SDK)"
	}
	env = append(env, "MCP_SDK="+sdkDir, "MCPBASH_JSON_TOOL_BIN=(mcp-bash jq wrapper in MCP_SDK)",
		"TMPDIR=(per-call scratch)", "MCP_TOOL_ERROR_FILE=(per-call)", "MCP_TOOL_RESOURCES_FILE=(per-call)",
		"MCP_PROGRESS_STREAM=(per-call)", "MCP_LOG_STREAM=(per-call)")
	// As exec sees it: the last value of each name wins.
	last := map[string]int{}
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	var out []string
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); last[name] == i {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}

// Close releases what the server holds outside the process (the native SDK directory) and its
// wasm runtime.
func (srv *Server) Close() {
	if srv.native != nil {
		srv.native.Close()
	}
	srv.closeWasm()
	if srv.pool != nil {
		srv.pool.Close()
	}
}

// nativeLimits are a native tool's rlimits: address space (MCPBASH_NATIVE_MAX_AS_MB, 8192: Go
// programs such as the JSON tool reserve ≈1.25 GiB before they allocate), CPU seconds
// (MCPBASH_NATIVE_CPU_SECS, default twice the timeout + 2), open files (MCPBASH_NATIVE_MAX_OPEN_FILES,
// 1024) and file size (MCPBASH_NATIVE_MAX_FILE_MB, 1024). 0 turns one off.
func (srv *Server) nativeLimits(timeout time.Duration) native.Limits {
	get := func(k string, def int) int64 { return int64(envInt(srv.cfg.Getenv, k, def, 0, 1<<30)) }
	return native.Limits{
		AddressSpaceKiB: get("MCPBASH_NATIVE_MAX_AS_MB", 8192) << 10,
		CPUSeconds:      get("MCPBASH_NATIVE_CPU_SECS", int(2*timeout/time.Second)+2),
		OpenFiles:       get("MCPBASH_NATIVE_MAX_OPEN_FILES", 1024),
		FileSizeKiB:     get("MCPBASH_NATIVE_MAX_FILE_MB", 1024) << 10,
	}
}
