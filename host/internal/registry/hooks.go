package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/hooks"
)

// Vars are the project's locations as hooks see them: MCPBASH_PROJECT_ROOT and the
// MCPBASH_*_DIR variables.
func (d Dirs) Vars() map[string]string {
	return map[string]string{
		"MCPBASH_PROJECT_ROOT": d.Root, "MCPBASH_TOOLS_DIR": d.Tools, "MCPBASH_RESOURCES_DIR": d.Resources,
		"MCPBASH_PROMPTS_DIR": d.Prompts, "MCPBASH_SERVER_DIR": d.Server, "MCPBASH_REGISTRY_DIR": d.Registry,
		"MCPBASH_PROVIDERS_DIR": d.Providers, "MCPBASH_UI_DIR": d.UI, "MCPBASH_COMPLETIONS_DIR": d.Completions,
	}
}

// registerHook is server.d/register.sh: whether it may run, and when it last ran on what.
type registerHook struct {
	path    string
	label   string
	enabled bool // not static mode
	native  bool // MCPBASH_ALLOW_PROJECT_HOOKS: real bash, else the sandbox
	static  bool
	ttl     time.Duration // MCPBASH_REGISTER_TTL
	maxBuf  int64         // MCPBASH_MANUAL_BUFFER_MAX_BYTES
	ran     bool
	sig     string    // content hash of the script last run
	lastRun time.Time // when it last ran
	warned  bool      // the one-time notice about hooks was given
}

func newRegisterHook(o Options, static bool) registerHook {
	p := filepath.Join(o.Dirs.Server, "register.sh")
	label := p
	if rel, err := filepath.Rel(o.Dirs.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		label = filepath.ToSlash(rel)
	}
	ttl := o.Settings.RegisterTTL
	if ttl <= 0 {
		ttl = 5 * time.Second
	}
	return registerHook{path: p, label: label, enabled: !static, native: o.Settings.AllowProjectHooks, static: static,
		ttl: ttl, maxBuf: o.Settings.ManualBufferMaxBytes}
}

// hookActive reports whether register.sh takes part (it exists and is not skipped). The first
// time it exists, a warning says how it runs (or why it does not).
func (r *Registry) hookActive() bool {
	h := &r.hook
	if _, err := os.Lstat(h.path); err != nil {
		return false
	}
	if !h.warned {
		h.warned = true
		msg := h.label + " runs as real bash on this host (MCPBASH_ALLOW_PROJECT_HOOKS is on); it must be trusted"
		switch {
		case h.static:
			msg = h.label + " is skipped in static registry mode (MCPBASH_STATIC_REGISTRY)"
		case !h.native:
			msg = h.label + " runs in the sandbox because project hooks are off (the project read-only, only the sandbox's commands); " + hooks.EnableHint
		}
		r.opts.Warn(Warning{Kind: KindTools, Path: h.label, Message: msg})
	}
	return h.enabled
}

// reloadRegisterSh re-runs register.sh when its content changed or MCPBASH_REGISTER_TTL has
// passed since the last run, and adopts the result when it differs from the last one. Called
// with r.mu held; the run is bounded by hooks.DefaultTimeout.
func (r *Registry) reloadRegisterSh() error {
	h := &r.hook
	now := r.opts.Now()
	sig := contentSig(h.path)
	if h.ran && sig == h.sig && now.Sub(h.lastRun) < h.ttl && strings.HasPrefix(r.manualFP, "register.sh") {
		return r.manualErr
	}
	h.ran, h.sig, h.lastRun = true, sig, now
	m, err := r.runRegisterSh()
	fp := "register.sh:" + manualHash(m)
	if err != nil {
		fp = "register.sh error:" + err.Error()
	}
	if fp == r.manualFP {
		r.manualErr = err
		return err
	}
	r.manualFP = fp
	return r.adoptManual(m, err)
}

func (r *Registry) runRegisterSh() (*manual, error) {
	d := r.opts.Dirs
	res, err := hooks.RunRegister(context.Background(), hooks.Options{
		Root: d.Root, Script: r.hook.path, Allowed: r.hook.native, Sandbox: r.opts.HookSandbox, Env: r.opts.HookEnv, Bash: r.opts.HookBash,
		Environ: r.opts.HookEnviron, Passthrough: r.opts.HookPassthrough, Vars: d.Vars(),
		MaxOutput: r.manualMax, MaxRegistrations: r.hook.maxBuf, TmpDir: r.opts.TmpRoot,
	})
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		r.opts.Warn(Warning{Kind: KindTools, Path: r.hook.label, Message: w})
	}
	byName := map[string]bool{}
	for k := range res.Functions {
		byName[k] = true
	}
	return buildManual("register.sh", func(key string) (json.RawMessage, bool) {
		if entries, ok := res.Functions[key]; ok {
			return mustJSON(entries), true
		}
		raw, ok := res.Output[key]
		return raw, ok
	}, byName)
}

// contentSig is the SHA-256 of a file's content ("" when unreadable).
func contentSig(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// manualHash identifies a registration's content, so that an unchanged re-run keeps every
// kind (and its cursors) as it is.
func manualHash(m *manual) string {
	if m == nil {
		return ""
	}
	h := sha256.New()
	for _, kind := range []*[]json.RawMessage{m.tools, m.resources, m.templates, m.prompts} {
		if kind == nil {
			h.Write([]byte("discover\n"))
			continue
		}
		h.Write(mustJSON(*kind))
		h.Write([]byte{'\n'})
	}
	h.Write(mustJSON(m.completions))
	return hex.EncodeToString(h.Sum(nil))
}
