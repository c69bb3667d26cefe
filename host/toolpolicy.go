package host

// Who may run what: the operator's and the project's policy, the commands a tool may run, and
// the sandbox policy of a call.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/hooks"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// policyHook runs server.d/policy.sh for a call of t.
func (srv *Server) policyHook(ctx context.Context, t *registry.Tool, script string, allowed bool) error {
	d := srv.cfg.Dirs
	err := hooks.PolicyCheck(ctx, hooks.Options{Root: d.Root, Script: script, Allowed: allowed, Sandbox: srv.engine, Bash: srv.hookBash(),
		Env: srv.cfg.Getenv, Environ: srv.cfg.Environ, Passthrough: srv.cfg.Settings.Passthrough, Vars: d.Vars(), TmpDir: srv.cfg.Settings.TmpRoot,
		Warn: func(msg string) { srv.logf("warning: %s", msg) }}, t.Name, t.Item)
	if err == nil {
		return nil
	}
	var denial *hooks.Denial
	if errors.As(err, &denial) {
		return &jsonrpc.Error{Code: denial.Code, Message: denial.Message, Data: denial.Data}
	}
	return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (%v)", t.Name, err))
}

// checkPolicy applies MCPBASH_TOOL_ALLOWLIST (when set), then server.d/policy.sh (with
// MCPBASH_ALLOW_PROJECT_HOOKS) and server.d/policy.json (when present), which can only restrict.
// Sandboxed tools run by default (COMPAT §7 #15).
func (srv *Server) checkPolicy(ctx context.Context, t *registry.Tool) error {
	if list := srv.cfg.Settings.ToolAllowlist; list != nil {
		if !slices.Contains(list, "*") && !slices.Contains(list, t.Name) {
			return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (not in MCPBASH_TOOL_ALLOWLIST)", t.Name))
		}
	}
	// server.d/policy.sh (after the allowlist, so it can only restrict: COMPAT §7 #11), in real
	// bash with MCPBASH_ALLOW_PROJECT_HOOKS, else in the sandbox.
	d := srv.cfg.Dirs
	// Most projects have neither file: server.d's identity, unchanged since both were seen
	// missing, says so with one stat (policyFiles).
	if srv.policyFiles.absent(d.Server) {
		return nil
	}
	script := filepath.Join(d.Server, "policy.sh")
	allowed := srv.cfg.Settings.Registry.AllowProjectHooks
	if !allowed {
		srv.policyNote.Do(func() {
			if _, err := os.Lstat(script); err == nil {
				srv.logf("warning: server.d/policy.sh runs in the sandbox because project hooks are off (the project read-only, only the sandbox's commands); %s", hooks.EnableHint)
			}
		})
	}
	// Look before building the hook's options (a map and closures per call otherwise).
	// PolicyCheck looks again, so a race only costs a stat.
	if _, err := os.Lstat(script); !errors.Is(err, os.ErrNotExist) {
		if err := srv.policyHook(ctx, t, script, allowed); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(filepath.Join(srv.cfg.Dirs.Server, "policy.json"))
	if errors.Is(err, os.ErrNotExist) {
		srv.policyFiles.sawAbsent(d.Server)
		return nil
	}
	var pol struct {
		Allow *[]string `json:"allow"`
		Deny  []string  `json:"deny"`
	}
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(&pol)
	}
	if err != nil {
		// Fail closed: a broken policy must not silently allow everything.
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (server.d/policy.json is invalid: %v)", t.Name, err))
	}
	if slices.Contains(pol.Deny, t.Name) || slices.Contains(pol.Deny, "*") {
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (denied in server.d/policy.json)", t.Name))
	}
	if pol.Allow != nil && !slices.Contains(*pol.Allow, t.Name) && !slices.Contains(*pol.Allow, "*") {
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (not allowed in server.d/policy.json)", t.Name))
	}
	return nil
}

// policyFiles remembers that server.d holds neither policy.sh nor policy.json, with the
// directory's identity when both were seen missing: creating, removing or renaming an entry of
// a directory changes its modification time, so while the identity is the same the answer is,
// and a call needs one stat of the directory instead of two failed lookups. A directory
// changed within the last policySettle is not remembered (its timestamps may be coarser than
// the changes: the same check git makes for racily clean files). A policy.sh or policy.json
// that exists is read by every call, as before.
type policyFiles struct {
	mu   sync.Mutex
	seen dirIdentity // server.d when both files were missing (zero: nothing remembered)
}

// policySettle is how old server.d's last change must be before its identity is trusted.
const policySettle = 2 * time.Second

// absent reports whether server (server.d) is known to hold neither policy file: it does not
// exist, or its identity is the one remembered.
func (p *policyFiles) absent(server string) bool {
	id, err := identityOf(server)
	if errors.Is(err, os.ErrNotExist) {
		return true // no directory, no files in it
	}
	if err != nil {
		return false
	}
	p.mu.Lock()
	seen := p.seen
	p.mu.Unlock()
	return seen.equal(id)
}

// sawAbsent records server's identity after both files were found missing in it (a stat after
// the lookups: a change racing them makes the directory's time recent, so it is not trusted).
func (p *policyFiles) sawAbsent(server string) {
	id, err := identityOf(server)
	if err != nil || time.Since(time.Unix(0, id.mtime)) < policySettle {
		return
	}
	p.mu.Lock()
	p.seen = id
	p.mu.Unlock()
}

// allowedCommands is the tool's sandbox.allowCommands, cut down to the operator's ceiling
// MCPBASH_SANDBOX_ALLOW_COMMANDS when that is set.
func (srv *Server) allowedCommands(t *registry.Tool) []string {
	return srv.allowedCommandsOf(t.Meta["sandbox"])
}

// allowedCommandsOf is allowCommands of a metadata "sandbox" object, cut down to the
// operator's ceiling.
func (srv *Server) allowedCommandsOf(sandboxMeta json.RawMessage) []string {
	var sb struct {
		AllowCommands []string `json:"allowCommands"`
	}
	_ = json.Unmarshal(sandboxMeta, &sb)
	ceiling := srv.cfg.Settings.SandboxAllowCommands
	set := ceiling != nil
	var out []string
	for _, c := range sb.AllowCommands {
		if c == "" || strings.ContainsAny(c, "/ \t") {
			continue
		}
		if set && !slices.Contains(ceiling, c) && !slices.Contains(ceiling, "*") {
			continue
		}
		out = append(out, c)
	}
	return out
}

// protectedRoots returns read-only roots for the project directories that decide what later calls
// may do (tools and their meta, server.d, providers, config, the registry cache ...), for those a
// read-write root contains: a tool must not widen its own sandbox by rewriting its meta (T-FS-5).
// Roots that are exactly one of these directories were chosen by the client and stay writable.
func (srv *Server) protectedRoots(roots []sandbox.Root) []sandbox.Root {
	var out []sandbox.Root
	for _, dir := range srv.protected {
		for _, r := range roots {
			p := strings.TrimSuffix(r.Path, "/")
			if r.Mode == sandbox.ReadWrite && r.Path != dir && len(dir) > len(p) && dir[len(p)] == '/' && strings.HasPrefix(dir, p) {
				// Also when it does not exist yet: a tool must not create config/roots.json.
				out = append(out, sandbox.Root{Path: dir, Name: "project", Mode: sandbox.ReadOnly, Protected: true})
				break
			}
		}
	}
	return out
}

// protectedDirs lists the project's own directories that tools may read but never change: what
// the server loads (tools, prompts, server.d, providers, config, ...), what it runs (bin/*.wasm
// commands) and what the operator's own tools trust (.git, every hidden entry of the project
// root: sandbox.HiddenEntries).
func protectedDirs(d registry.Dirs) []string {
	var out []string
	for _, dir := range []string{d.Tools, d.Prompts, d.Server, d.Registry, d.Providers, d.UI, d.Completions,
		filepath.Join(d.Root, "config"), filepath.Join(d.Root, "lib"), filepath.Join(d.Root, "bin"),
		filepath.Join(d.Root, sandbox.HiddenEntries)} {
		if dir != "" {
			out = append(out, filepath.Clean(dir))
		}
	}
	return out
}

// toolPolicy is the sandbox policy of a call of a tool: its roots read-write, except the project root
// given by default (with the project's own directories inside read-write roots read-only), its
// directory, its allowed commands (allow) and its limits.
func (srv *Server) toolPolicy(allow []string, toolDir string, roots []engine.Root, timeout time.Duration) sandbox.Policy {
	policy := sandbox.Policy{ToolDir: toolDir, Allow: slices.Clip(allow), // shared by the calls of a plan: an append copies it
		Limits: sandbox.Limits{
			Timeout:         timeout,
			MaxStdoutBytes:  srv.cfg.Settings.MaxToolOutput,
			MaxStderrBytes:  srv.cfg.Settings.MaxToolStderr,
			MaxOpenFiles:    srv.cfg.Settings.MaxOpenFilesPerCall,
			MaxBytesWritten: srv.cfg.Settings.MaxBytesWrittenPerCall,
			MaxUtilityBytes: srv.cfg.Settings.UtilityBudget(),
		}}
	policy.Roots = srv.sandboxRoots(roots)
	return policy
}

// policyRootsMemo is the sandbox roots made of one list of call roots: a session's calls run
// in the same roots, so the list with its protected directories (a dozen roots for a project
// root) is built when the roots change, not on every call.
type policyRootsMemo struct {
	in  []engine.Root
	out []sandbox.Root
}

// sandboxRoots are the sandbox roots of a call in roots: each root read-write unless read-only,
// then the protected directories inside read-write ones (protectedRoots), prepared for NewFS.
// The result is shared by the calls in the same roots and never changed in place: its length
// is its capacity, so an append copies it.
func (srv *Server) sandboxRoots(roots []engine.Root) []sandbox.Root {
	if m := srv.policyRoots.Load(); m != nil && slices.Equal(m.in, roots) {
		return m.out
	}
	var out []sandbox.Root
	for _, rt := range roots {
		mode := sandbox.ReadWrite
		if rt.ReadOnly {
			mode = sandbox.ReadOnly
		}
		out = append(out, sandbox.Root{Path: rt.Path, Name: rt.Name, Mode: mode})
	}
	out = sandbox.PrepareRoots(append(out, srv.protectedRoots(out)...))
	srv.policyRoots.Store(&policyRootsMemo{in: slices.Clone(roots), out: out})
	return out
}
