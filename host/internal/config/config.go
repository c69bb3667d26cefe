// Package config is the server's configuration: every setting it reads from its environment,
// parsed once at start-up into typed values. A malformed value is an error naming the variable
// (the server refuses to start), never a silent fall back to the default. The settings are one
// table (settings, below): adding one is a Config field, one entry there, and one line in
// docs/CONFIG.md, which TestEveryVariableIsDocumented holds to the table in both directions.
//
// These are settings of the server, given by its operator. The variables of the tool contract
// (MCP_TOOL_NAME, MCP_ROOTS_JSON, MCPBASH_PROJECT_ROOT as a tool sees it ...) are what the
// server gives to tools; they are not read here.
package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Config is every setting, parsed.
type Config struct {
	// Project location: MCPBASH_PROJECT_ROOT and the MCPBASH_*_DIR overrides (raw; relative
	// values are taken from the root).
	ProjectRoot string
	Dirs        Dirs

	// LogLevel is MCPBASH_LOG_LEVEL as a level name ("" when unset: info, or debug with
	// server.d/.debug).
	LogLevel        string
	MaxConcurrent   int
	MaxLineBytes    int
	MaxQueueBytes   int
	CompatBatches   bool
	ShutdownTimeout time.Duration
	// ProgressPerMinute and LogsPerMinute are each call's budgets of progress and log
	// notifications per minute (MCPBASH_MAX_PROGRESS_PER_MIN, MCPBASH_MAX_LOGS_PER_MIN; the
	// older MCPBASH_PROGRESS_PER_MINUTE sets both when those are unset).
	ProgressPerMinute int
	LogsPerMinute     int
	progressAlias     int
	// ForceMinimal is MCPBASH_FORCE_MINIMAL: serve logging only, as the original does without a
	// JSON tool.
	ForceMinimal bool
	// ToolErrors is MCPBASH_TOOL_ERRORS: "result" (failures are isError results, as MCP
	// 2025-11-25 asks), "jsonrpc" (the original's -32603 errors) or "auto" (jsonrpc for a
	// session whose initialize named no clientInfo, result otherwise).
	ToolErrors string
	// DebugErrors is MCPBASH_DEBUG_ERRORS: tool failures carry the tool's name, exit code and
	// whether a trace exists.
	DebugErrors bool

	Registry Registry

	// ToolAllowlist is MCPBASH_TOOL_ALLOWLIST (nil when unset: every tool runs).
	ToolAllowlist []string
	// Exec is MCPBASH_EXEC (or --exec): "", "sandbox" or "native".
	Exec string
	// SandboxAllowCommands is the ceiling on tools' sandbox.allowCommands (nil: none).
	SandboxAllowCommands []string
	DefaultToolTimeout   time.Duration
	MaxToolOutput        int64
	MaxToolStderr        int64
	MaxTextBytes         int
	MaxHeapMiB           int
	// MaxOpenFilesPerCall bounds the files one call holds open through its sandbox FS.
	MaxOpenFilesPerCall int
	// MaxBytesWrittenPerCall bounds the bytes one call writes through its sandbox FS, roots and
	// scratch together (0: no bound; a tenant's bytesWritten replaces it). Scratch is on tmpfs
	// by default: what a call writes there is the host's memory.
	MaxBytesWrittenPerCall int64
	// UtilityMemoryMiB is MCPBASH_UTILITY_MEMORY_MB, a call's budget for what its utilities hold
	// (0: the default, UtilityBudget).
	UtilityMemoryMiB int
	// ProjectRootWritable makes the project root, the default root when nobody names roots,
	// read-write (as in the original); false locks it. Protected directories stay read-only.
	ProjectRootWritable bool
	// RunToolSourceServerEnv makes run-tool source server.d/env.sh, as --with-server-env does.
	RunToolSourceServerEnv bool
	// RegistryURL and RegistryToken are where `publish` uploads bundles, and its credential (a
	// secret).
	RegistryURL, RegistryToken string
	AccessMeta                 bool
	// Roots is MCPBASH_ROOTS, split on ':' (on Windows ';', or Git-Bash's /c/a:/d/b) (nil when unset).
	Roots   []string
	TmpRoot string
	// WasmCacheDir is MCPBASH_WASM_CACHE_DIR: "" (the default location), "off", or an absolute path.
	WasmCacheDir       string
	ElicitationTimeout time.Duration
	SamplingTimeout    time.Duration
	RequireConfinement bool
	// NativeUnconfined is MCPBASH_NATIVE_UNCONFINED: the operator's consent to run native tools
	// and allowlisted commands without OS confinement on a platform that has none (Windows).
	NativeUnconfined bool
	// Bash is MCPBASH_BASH: the bash of native tools and hooks ("" = found: bash on PATH; on
	// Windows Git-Bash's bash.exe).
	Bash string

	Isolation string // "inproc" or "process"
	Worker    Worker
	Native    Native

	// ResourcesRoots is MCP_RESOURCES_ROOTS, split on ':' (nil when unset).
	ResourcesRoots        []string
	MaxResourceBytes      int64
	ResourcesPollInterval time.Duration
	HealthTimeout         time.Duration

	// Home is MCPBASH_HOME (a checkout of the original framework: its sdk/ for native tools).
	Home string
	// RemoteToken is MCPBASH_REMOTE_TOKEN, a secret: redacted from payload logs and --show; the
	// _meta keys it is presented under and the failures allowed per minute (0: no limit).
	RemoteToken            string
	RemoteTokenKey         string
	RemoteTokenFallbackKey string
	RemoteTokenMaxFailures int
	HTTPS                  HTTPS
	Git                    Git

	// HTTP are the Streamable HTTP transport's settings (`serve --http`).
	HTTP HTTP
	// StateKeyFile is MCPBASH_STATE_KEY_FILE: the key that signs 2026-07-28 requestState
	// ("": a random key per process).
	StateKeyFile string
	// Hosting mode: the authorization and tenants files ("" when unset: server.d/auth.json and
	// server.d/tenants.json, used when present) and the audit log sink.
	AuthFile, TenantsFile, AuditLog string
	// CallSlots is MCPBASH_CALL_SLOTS: calls running at once across all tenants (hosting
	// mode's admission; each tenant holds at most its concurrentCalls of them).
	CallSlots int
	// StateTTL is MCPBASH_STATE_TTL_SECS: how long a 2026-07-28 requestState is accepted.
	StateTTL time.Duration
	// MaxListens and MaxSubscriptions are what one client (one tenant with a tenants file,
	// which has its own limits) may hold open at once: subscriptions/listen streams, and
	// resources watched across them and its sessions.
	MaxListens, MaxSubscriptions int
	// MetricsAddr is MCPBASH_METRICS_ADDR: a listener of its own for /metrics ("": none);
	// MetricsTokenFile is MCPBASH_METRICS_TOKEN_FILE: the bearer token /metrics requires ("":
	// none).
	MetricsAddr, MetricsTokenFile string

	// Review mode (docs/REVIEW.md): WriteMode is MCPBASH_WRITE_MODE, the operator's floor for
	// every tool ("direct" or "review"); ChangesDir is MCPBASH_CHANGES_DIR, where change sets
	// wait ("": $XDG_STATE_HOME/mcp-bash/changes); ChangesTTL how long they wait;
	// ChangesMaxPending how many may wait per session (per tenant in hosting mode).
	WriteMode         string
	ChangesDir        string
	ChangesTTL        time.Duration
	ChangesMaxPending int
	// OperatorToken is MCPBASH_OPERATOR_TOKEN, a secret: the bearer credential of hosting
	// mode's operator endpoints (/changes), which no tenant's credential opens.
	OperatorToken string

	// Passthrough are the raw values (set ones only) of the variables project hooks see, as the
	// original's hooks saw them (hookVars).
	Passthrough map[string]string
}

// Dirs are the MCPBASH_*_DIR overrides ("" for the default under the root), and
// MCPBASH_SERVER_NAME, the project's name when server.meta.json gives none ("" for the root
// directory's name).
type Dirs struct {
	Tools, Resources, Prompts, Server, Registry, Providers, UI, Completions string
	ServerName                                                              string
}

// Registry are the settings of the project model and its register.sh hook.
type Registry struct {
	// TTL of each registry's change checks: tools, resources, resource templates, prompts.
	ToolsTTL, ResourcesTTL, TemplatesTTL, PromptsTTL time.Duration
	Static                                           bool
	ReadOnly                                         bool
	MaxBytes                                         int64
	ManualMaxBytes                                   int64
	ManualBufferMaxBytes                             int64
	RegisterTTL                                      time.Duration
	AllowProjectHooks                                bool
}

// Worker are the process-isolation settings (MCPBASH_ISOLATION=process).
type Worker struct {
	Idle      int
	MaxCalls  int
	MaxRSSMiB int
	// MaxASMiB is the address-space rlimit (0: the heap limit + 2048).
	MaxASMiB     int
	MaxOpenFiles int
	MaxFileMiB   int
	MaxProcs     int
	// CPU is one call's CPU time in its worker (0: twice its timeout + 2 s).
	CPU time.Duration
}

// Native are native tools' settings.
type Native struct {
	// EnvMode is MCPBASH_TOOL_ENV_MODE: "minimal", "allowlist" or "inherit".
	EnvMode         string
	EnvAllowlist    []string
	EnvInheritAllow bool
	// ProviderEnvMode is MCPBASH_PROVIDER_ENV_MODE for resource providers and completion
	// scripts: "isolate" (the minimal set), "allowlist" or "inherit"; with its allowlist and
	// inherit consent.
	ProviderEnvMode         string
	ProviderEnvAllowlist    []string
	ProviderEnvInheritAllow bool
	PayloadThreshold        int
	MaxASMiB                int
	// CPUSeconds is the CPU-time rlimit (-1: twice the call's timeout + 2; 0: none).
	CPUSeconds   int
	MaxOpenFiles int
	MaxFileMiB   int
}

// HTTPS are the https resource provider's settings (0: the provider's defaults).
type HTTPS struct {
	AllowHosts, DenyHosts []string
	AllowAll              bool
	MaxBytes              int64
	Timeout               time.Duration
}

// HTTP are the Streamable HTTP transport's settings.
type HTTP struct {
	// AllowedOrigins are the Origin values accepted besides loopback ones ("*": any).
	AllowedOrigins []string
	MaxSessions    int
	SessionIdle    time.Duration
	// StreamBuffer bounds the bytes one SSE stream keeps for replay, and those waiting for a
	// slow or absent reader.
	StreamBuffer int
	KeepAlive    time.Duration
	// MaxBufferedBytes bounds the bytes of SSE events held across all streams for readers
	// that are not attached; past it the backlogs nobody reads are evicted.
	MaxBufferedBytes int64
}

// Git are the git resource provider's settings (0: the provider's defaults).
type Git struct {
	Enabled               bool
	AllowHosts, DenyHosts []string
	MaxBytes              int64
	Timeout               time.Duration
}

// Load parses every setting from getenv. Each malformed value is an error naming its variable;
// all of them are returned together.
func Load(getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := &Config{Passthrough: map[string]string{}}
	var errs Errors
	for _, s := range c.settings() {
		if s.reset != nil {
			s.reset()
		}
		v := strings.TrimSpace(getenv(s.name))
		if v == "" || s.set == nil {
			continue
		}
		if err := s.set(v); err != nil {
			shown := strconv.Quote(v)
			if s.secret {
				shown = "(redacted)"
			}
			errs = append(errs, fmt.Errorf("%s=%s: %v", s.name, shown, err))
		}
	}
	for _, name := range hookVars {
		if v := getenv(name); v != "" {
			c.Passthrough[name] = v
		}
	}
	// The original's two budgets; MCPBASH_PROGRESS_PER_MINUTE (one budget for both) still works.
	if c.ProgressPerMinute == 0 {
		c.ProgressPerMinute = c.progressAlias
	}
	if c.LogsPerMinute == 0 {
		c.LogsPerMinute = c.progressAlias
	}
	if c.ProgressPerMinute == 0 {
		c.ProgressPerMinute = 100
	}
	if c.LogsPerMinute == 0 {
		c.LogsPerMinute = c.ProgressPerMinute
	}
	if c.OperatorToken != "" && len(c.OperatorToken) < 32 {
		errs = append(errs, errors.New("MCPBASH_OPERATOR_TOKEN=(redacted): must be at least 32 characters; refusing a weak operator credential"))
	}
	if len(errs) > 0 {
		return c, errs
	}
	return c, nil
}

// Errors are the malformed settings, all of them, said on one line.
type Errors []error

func (e Errors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return "invalid configuration: " + strings.Join(msgs, "; ")
}

// hookVars are the variables project hooks see as the original's hooks (sourced into the
// server's shell) saw them: settings and pass-throughs, never secrets such as
// MCPBASH_REMOTE_TOKEN.
var hookVars = []string{
	"MCPBASH_HOME", "MCPBASH_ALLOW_PROJECT_HOOKS", "MCPBASH_TOOL_ALLOWLIST", "MCPBASH_TOOL_ALLOW_DEFAULT",
	"MCPBASH_LOG_LEVEL", "MCPBASH_LOG_VERBOSE", "MCPBASH_TMP_ROOT", "MCPBASH_STATE_DIR", "MCPBASH_REGISTER_TTL",
	"MCPBASH_STATIC_REGISTRY", "MCPBASH_ROOTS", "MCPBASH_CI_MODE", "MCPBASH_DEBUG_LOG",
	"MCPBASH_JSON_TOOL", "MCPBASH_JSON_TOOL_BIN", "MCPBASH_MODE",
}

// Entry is one setting as `mcp-bash config --show` prints it.
type Entry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Set is true when the environment sets it (else Value is the default).
	Set bool `json:"set"`
}

// Show lists every setting with its effective value, secrets redacted; getenv says which are
// set.
func (c *Config) Show(getenv func(string) string) []Entry {
	var out []Entry
	for _, s := range c.settings() {
		e := Entry{Name: s.name, Set: strings.TrimSpace(getenv(s.name)) != ""}
		switch {
		case s.secret && e.Set:
			e.Value = "(set, redacted)"
		case s.passthrough:
			e.Value = c.Passthrough[s.name]
		default:
			e.Value = s.show()
			if s.unset != "" && (e.Value == "" || e.Value == "0") {
				e.Value = s.unset
			}
		}
		out = append(out, e)
	}
	return out
}

// Names lists every variable the table knows (settings and hook pass-throughs), in order.
func Names() []string {
	var out []string
	for _, s := range (&Config{}).settings() {
		out = append(out, s.name)
	}
	return out
}

// setting is one variable of the table.
type setting struct {
	name string
	// reset puts the default into the Config (nil: the zero value is the default); set parses a
	// non-empty (trimmed) value into it; show is the effective value.
	reset func()
	set   func(v string) error
	show  func() string
	// secret values are never shown; passthrough ones are not parsed, only handed to hooks.
	secret, passthrough bool
	// unset says what an empty or zero value means ("" when it means itself).
	unset string
}

// meaning sets what an empty or zero value of s means, for --show.
func meaning(s setting, unset string) setting {
	s.unset = unset
	return s
}

// The kinds of value. Each binds a Config field, sets its default, and parses and shows it.

func str(name string, p *string, def string) setting {
	return setting{name: name, reset: func() { *p = def }, set: func(v string) error { *p = v; return nil }, show: func() string { return *p }}
}

func secret(name string, p *string) setting {
	s := str(name, p, "")
	s.secret = true
	return s
}

func passthrough(name string) setting { return setting{name: name, passthrough: true} }

// oneOf is a lower-cased word from a fixed list ("" stays the default).
func oneOf(name string, p *string, def string, words ...string) setting {
	return setting{name: name, reset: func() { *p = def }, show: func() string { return *p }, set: func(v string) error {
		v = strings.ToLower(v)
		for _, w := range words {
			if v == w {
				*p = v
				return nil
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(words, ", "))
	}}
}

func boolean(name string, p *bool) setting {
	return setting{name: name, show: func() string { return strconv.FormatBool(*p) }, set: func(v string) error {
		switch strings.ToLower(v) {
		case "true", "1", "yes", "on":
			*p = true
		case "false", "0", "no", "off":
			*p = false
		default:
			return errors.New("want true, 1, yes, on, false, 0, no or off")
		}
		return nil
	}}
}

// booleanOn is a boolean setting that is on unless the environment turns it off.
func booleanOn(name string, p *bool) setting {
	s := boolean(name, p)
	s.reset = func() { *p = true }
	return s
}

func integer(name string, p *int, def, lo, hi int) setting {
	return setting{name: name, reset: func() { *p = def }, show: func() string { return strconv.Itoa(*p) }, set: func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("want an integer from %d to %d", lo, hi)
		}
		*p = n
		return nil
	}}
}

func bytes(name string, p *int64, def, lo, hi int64) setting {
	return setting{name: name, reset: func() { *p = def }, show: func() string { return strconv.FormatInt(*p, 10) }, set: func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("want a number of bytes from %d to %d", lo, hi)
		}
		*p = n
		return nil
	}}
}

// seconds is a whole number of seconds.
func seconds(name string, p *time.Duration, def, lo, hi int) setting {
	return setting{name: name, reset: func() { *p = time.Duration(def) * time.Second }, show: func() string { return strconv.Itoa(int(*p / time.Second)) }, set: func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("want whole seconds from %d to %d", lo, hi)
		}
		*p = time.Duration(n) * time.Second
		return nil
	}}
}

// fracSeconds is seconds with an optional fraction (the registries' TTLs).
func fracSeconds(name string, p *time.Duration, def time.Duration) setting {
	return setting{name: name, reset: func() { *p = def }, show: func() string { return strconv.FormatFloat(p.Seconds(), 'f', -1, 64) }, set: func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 86400 {
			return errors.New("want seconds from 0 to 86400")
		}
		*p = time.Duration(f * float64(time.Second))
		return nil
	}}
}

// list is names separated by commas, spaces, colons or newlines (nil when unset).
func list(name string, p *[]string) setting { return splitting(name, p, ",: \t\n\r") }

// hosts is host names separated by commas, spaces or newlines (not colons: IPv6).
func hosts(name string, p *[]string) setting { return splitting(name, p, ", \t\n\r") }

func splitting(name string, p *[]string, seps string) setting {
	return setting{name: name, show: func() string { return strings.Join(*p, ",") }, set: func(v string) error {
		*p = strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(seps, r) })
		if *p == nil {
			*p = []string{}
		}
		return nil
	}}
}

// paths is a colon-separated list of paths (nil when unset).
func paths(name string, p *[]string) setting {
	return setting{name: name, show: func() string { return strings.Join(*p, string(filepath.ListSeparator)) }, set: func(v string) error {
		*p = append(*p, sandbox.SplitPathList(v)...)
		return nil
	}}
}

func logLevel(name string, p *string) setting {
	levels := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	return setting{name: name, show: func() string { return *p }, set: func(v string) error {
		switch v = strings.ToLower(v); v {
		case "true", "1":
			*p = "debug"
			return nil
		case "false", "0":
			*p = "info"
			return nil
		case "warn":
			*p = "warning"
			return nil
		}
		for _, l := range levels {
			if v == l {
				*p = v
				return nil
			}
		}
		return fmt.Errorf("want one of %s (or true/1 for debug)", strings.Join(levels, ", "))
	}}
}

func cacheDir(name string, p *string) setting {
	return setting{name: name, show: func() string { return *p }, set: func(v string) error {
		switch {
		case v == "off" || v == "none":
			*p = "off"
		case !filepath.IsAbs(v):
			return errors.New("want an absolute directory, or off")
		default:
			*p = filepath.Clean(v)
		}
		return nil
	}}
}

// absDir is an absolute directory ("" when unset).
func absDir(name string, p *string) setting {
	return setting{name: name, show: func() string { return *p }, set: func(v string) error {
		if !filepath.IsAbs(v) {
			return errors.New("want an absolute directory")
		}
		*p = filepath.Clean(v)
		return nil
	}}
}

// nativeCPU is MCPBASH_NATIVE_CPU_SECS: unset means twice the call's timeout + 2 (-1).
func nativeCPU(name string, p *int) setting {
	s := integer(name, p, -1, 0, 1<<30)
	s.show = func() string {
		if *p < 0 {
			return "twice the call's timeout + 2"
		}
		return strconv.Itoa(*p)
	}
	return s
}

// settings is the table: every variable the server reads, with its kind, default and range.
func (c *Config) settings() []setting {
	r, w, n := &c.Registry, &c.Worker, &c.Native
	return []setting{
		meaning(str("MCPBASH_PROJECT_ROOT", &c.ProjectRoot, ""), "the nearest parent with server.d/server.meta.json"),
		meaning(str("MCPBASH_TOOLS_DIR", &c.Dirs.Tools, ""), "under the root"),
		meaning(str("MCPBASH_RESOURCES_DIR", &c.Dirs.Resources, ""), "under the root"),
		meaning(str("MCPBASH_PROMPTS_DIR", &c.Dirs.Prompts, ""), "under the root"),
		meaning(str("MCPBASH_SERVER_DIR", &c.Dirs.Server, ""), "under the root"),
		meaning(str("MCPBASH_REGISTRY_DIR", &c.Dirs.Registry, ""), "under the root"),
		meaning(str("MCPBASH_PROVIDERS_DIR", &c.Dirs.Providers, ""), "under the root"),
		meaning(str("MCPBASH_UI_DIR", &c.Dirs.UI, ""), "under the root"),
		meaning(str("MCPBASH_COMPLETIONS_DIR", &c.Dirs.Completions, ""), "under the root"),
		meaning(str("MCPBASH_SERVER_NAME", &c.Dirs.ServerName, ""), "the project root's directory name"),
		meaning(logLevel("MCPBASH_LOG_LEVEL", &c.LogLevel), "info (debug with server.d/.debug)"),
		integer("MCPBASH_MAX_CONCURRENT_REQUESTS", &c.MaxConcurrent, 16, 1, 100000),
		integer("MCPBASH_MAX_LINE_BYTES", &c.MaxLineBytes, 16<<20, 1024, 1<<30),
		integer("MCPBASH_MAX_OUTPUT_QUEUE_BYTES", &c.MaxQueueBytes, 64<<20, 1<<20, 1<<30),
		oneOf("MCPBASH_ISOLATION", &c.Isolation, "inproc", "inproc", "process"),
		integer("MCPBASH_WORKERS_IDLE", &w.Idle, 2, 1, 64),
		integer("MCPBASH_WORKER_MAX_CALLS", &w.MaxCalls, 100, 1, 1<<20),
		integer("MCPBASH_WORKER_MAX_RSS_MB", &w.MaxRSSMiB, 512, 16, 1<<20),
		meaning(integer("MCPBASH_WORKER_MAX_AS_MB", &w.MaxASMiB, 0, 1536, 1<<22), "the heap limit + 2048"),
		integer("MCPBASH_WORKER_MAX_OPEN_FILES", &w.MaxOpenFiles, 1024, 64, 1<<20),
		meaning(seconds("MCPBASH_WORKER_CPU_SECS", &w.CPU, 0, 0, 1<<20), "twice the call's timeout + 2"),
		meaning(integer("MCPBASH_WORKER_MAX_PROCS", &w.MaxProcs, 0, 0, 1<<22), "off"),
		integer("MCPBASH_WORKER_MAX_FILE_MB", &w.MaxFileMiB, 1024, 1, 1<<20),
		boolean("MCPBASH_COMPAT_BATCHES", &c.CompatBatches),
		seconds("MCPBASH_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout, 5, 0, 3600),
		fracSeconds("MCP_TOOLS_TTL", &r.ToolsTTL, 5*time.Second),
		fracSeconds("MCP_RESOURCES_TTL", &r.ResourcesTTL, 5*time.Second),
		fracSeconds("MCP_RESOURCES_TEMPLATES_TTL", &r.TemplatesTTL, 5*time.Second),
		fracSeconds("MCP_PROMPTS_TTL", &r.PromptsTTL, 5*time.Second),
		boolean("MCPBASH_STATIC_REGISTRY", &r.Static),
		bytes("MCPBASH_REGISTRY_MAX_BYTES", &r.MaxBytes, 100<<20, 1, 1<<40),
		boolean("MCPBASH_REGISTRY_READONLY", &r.ReadOnly),
		bytes("MCPBASH_MAX_MANUAL_REGISTRY_BYTES", &r.ManualMaxBytes, 1<<20, 1, 1<<40),
		boolean("MCPBASH_ALLOW_PROJECT_HOOKS", &r.AllowProjectHooks),
		seconds("MCPBASH_REGISTER_TTL", &r.RegisterTTL, 5, 1, 1<<20),
		bytes("MCPBASH_MANUAL_BUFFER_MAX_BYTES", &r.ManualBufferMaxBytes, 1<<20, 1, 1<<40),
		list("MCPBASH_TOOL_ALLOWLIST", &c.ToolAllowlist),
		meaning(oneOf("MCPBASH_EXEC", &c.Exec, "", "sandbox", "native"), "sandbox (a tool's meta may ask for native)"),
		oneOf("MCPBASH_TOOL_ENV_MODE", &n.EnvMode, "minimal", "minimal", "allowlist", "inherit"),
		integer("MCPBASH_NATIVE_MAX_AS_MB", &n.MaxASMiB, 8192, 0, 1<<30),
		nativeCPU("MCPBASH_NATIVE_CPU_SECS", &n.CPUSeconds),
		integer("MCPBASH_NATIVE_MAX_OPEN_FILES", &n.MaxOpenFiles, 1024, 0, 1<<30),
		integer("MCPBASH_NATIVE_MAX_FILE_MB", &n.MaxFileMiB, 1024, 0, 1<<30),
		list("MCPBASH_TOOL_ENV_ALLOWLIST", &n.EnvAllowlist),
		boolean("MCPBASH_TOOL_ENV_INHERIT_ALLOW", &n.EnvInheritAllow),
		oneOf("MCPBASH_PROVIDER_ENV_MODE", &n.ProviderEnvMode, "isolate", "isolate", "allowlist", "inherit"),
		list("MCPBASH_PROVIDER_ENV_ALLOWLIST", &n.ProviderEnvAllowlist),
		boolean("MCPBASH_PROVIDER_ENV_INHERIT_ALLOW", &n.ProviderEnvInheritAllow),
		integer("MCPBASH_ENV_PAYLOAD_THRESHOLD", &n.PayloadThreshold, 65536, 0, 1<<30),
		list("MCPBASH_SANDBOX_ALLOW_COMMANDS", &c.SandboxAllowCommands),
		seconds("MCPBASH_DEFAULT_TOOL_TIMEOUT", &c.DefaultToolTimeout, 30, 1, 86400),
		bytes("MCPBASH_MAX_TOOL_OUTPUT_SIZE", &c.MaxToolOutput, 10<<20, 1, 1<<30),
		bytes("MCPBASH_MAX_TOOL_STDERR_SIZE", &c.MaxToolStderr, 1<<20, 1, 1<<30),
		integer("MCPBASH_MAX_TEXT_BYTES", &c.MaxTextBytes, 100*1024, 1, 1<<30),
		integer("MCPBASH_MAX_HEAP_MB", &c.MaxHeapMiB, 2048, 0, 1<<20),
		meaning(integer("MCPBASH_MAX_PROGRESS_PER_MIN", &c.ProgressPerMinute, 0, 1, 100000), "100"),
		meaning(integer("MCPBASH_MAX_LOGS_PER_MIN", &c.LogsPerMinute, 0, 1, 100000), "MCPBASH_MAX_PROGRESS_PER_MIN"),
		meaning(integer("MCPBASH_PROGRESS_PER_MINUTE", &c.progressAlias, 0, 1, 100000), "unset (older name: sets both budgets)"),
		boolean("MCPBASH_FORCE_MINIMAL", &c.ForceMinimal),
		oneOf("MCPBASH_TOOL_ERRORS", &c.ToolErrors, "auto", "auto", "result", "jsonrpc"),
		boolean("MCPBASH_DEBUG_ERRORS", &c.DebugErrors),
		integer("MCPBASH_MAX_OPEN_FILES_PER_CALL", &c.MaxOpenFilesPerCall, 256, 8, 1<<20),
		bytes("MCPBASH_MAX_BYTES_WRITTEN_PER_CALL", &c.MaxBytesWrittenPerCall, 1<<30, 0, 1<<50),
		meaning(integer("MCPBASH_UTILITY_MEMORY_MB", &c.UtilityMemoryMiB, 0, 1, 1<<20), "512, at most half of MCPBASH_MAX_HEAP_MB"),
		booleanOn("MCPBASH_PROJECT_ROOT_WRITABLE", &c.ProjectRootWritable),
		boolean("MCPBASH_RUN_TOOL_SOURCE_SERVER_ENV", &c.RunToolSourceServerEnv),
		str("MCP_REGISTRY_URL", &c.RegistryURL, "https://registry.modelcontextprotocol.io"),
		secret("MCP_REGISTRY_TOKEN", &c.RegistryToken),
		boolean("MCPBASH_ACCESS_META", &c.AccessMeta),
		paths("MCPBASH_ROOTS", &c.Roots),
		meaning(str("MCPBASH_TMP_ROOT", &c.TmpRoot, ""), "/dev/shm, else the OS temp dir"),
		meaning(cacheDir("MCPBASH_WASM_CACHE_DIR", &c.WasmCacheDir), "$XDG_CACHE_HOME/mcp-bash/wazero-<version>"),
		seconds("MCPBASH_ELICITATION_TIMEOUT", &c.ElicitationTimeout, 30, 1, 3600),
		seconds("MCPBASH_SAMPLING_TIMEOUT", &c.SamplingTimeout, 120, 1, 3600),
		paths("MCP_RESOURCES_ROOTS", &c.ResourcesRoots),
		bytes("MCPBASH_MAX_RESOURCE_BYTES", &c.MaxResourceBytes, 10<<20, 1, 1<<30),
		seconds("MCPBASH_RESOURCES_POLL_INTERVAL_SECS", &c.ResourcesPollInterval, 2, 0, 86400),
		seconds("MCPBASH_HEALTH_TIMEOUT_SECS", &c.HealthTimeout, 5, 1, 3600),
		boolean("MCPBASH_REQUIRE_CONFINEMENT", &c.RequireConfinement),
		boolean("MCPBASH_NATIVE_UNCONFINED", &c.NativeUnconfined),
		meaning(str("MCPBASH_BASH", &c.Bash, ""), "bash on PATH; on Windows Git-Bash's bin\\bash.exe"),
		str("MCPBASH_HOME", &c.Home, ""),
		secret("MCPBASH_REMOTE_TOKEN", &c.RemoteToken),
		str("MCPBASH_REMOTE_TOKEN_KEY", &c.RemoteTokenKey, "mcpbash/remoteToken"),
		str("MCPBASH_REMOTE_TOKEN_FALLBACK_KEY", &c.RemoteTokenFallbackKey, "remoteToken"),
		integer("MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN", &c.RemoteTokenMaxFailures, 10, 0, 1<<20),
		hosts("MCPBASH_HTTPS_ALLOW_HOSTS", &c.HTTPS.AllowHosts),
		hosts("MCPBASH_HTTPS_DENY_HOSTS", &c.HTTPS.DenyHosts),
		boolean("MCPBASH_HTTPS_ALLOW_ALL", &c.HTTPS.AllowAll),
		meaning(bytes("MCPBASH_HTTPS_MAX_BYTES", &c.HTTPS.MaxBytes, 0, 1, 1<<40), "10485760"),
		meaning(seconds("MCPBASH_HTTPS_TIMEOUT", &c.HTTPS.Timeout, 0, 1, 1<<20), "10"),
		boolean("MCPBASH_ENABLE_GIT_PROVIDER", &c.Git.Enabled),
		hosts("MCPBASH_GIT_ALLOW_HOSTS", &c.Git.AllowHosts),
		hosts("MCPBASH_GIT_DENY_HOSTS", &c.Git.DenyHosts),
		meaning(bytes("MCPBASH_GIT_MAX_BYTES", &c.Git.MaxBytes, 0, 1, 1<<40), "10485760"),
		meaning(seconds("MCPBASH_GIT_TIMEOUT", &c.Git.Timeout, 0, 1, 1<<20), "30"),
		hosts("MCPBASH_HTTP_ALLOWED_ORIGINS", &c.HTTP.AllowedOrigins),
		integer("MCPBASH_HTTP_MAX_SESSIONS", &c.HTTP.MaxSessions, 1000, 1, 1<<20),
		seconds("MCPBASH_HTTP_SESSION_IDLE_SECS", &c.HTTP.SessionIdle, 1800, 10, 7*86400),
		integer("MCPBASH_HTTP_STREAM_BUFFER_BYTES", &c.HTTP.StreamBuffer, 1<<20, 4096, 1<<30),
		seconds("MCPBASH_HTTP_KEEPALIVE_SECS", &c.HTTP.KeepAlive, 15, 1, 3600),
		meaning(str("MCPBASH_STATE_KEY_FILE", &c.StateKeyFile, ""), "a random key per process"),
		meaning(str("MCPBASH_AUTH_FILE", &c.AuthFile, ""), "server.d/auth.json when present"),
		meaning(str("MCPBASH_TENANTS_FILE", &c.TenantsFile, ""), "server.d/tenants.json when present"),
		meaning(str("MCPBASH_AUDIT_LOG", &c.AuditLog, ""), "off"),
		integer("MCPBASH_CALL_SLOTS", &c.CallSlots, 16, 1, 4096),
		seconds("MCPBASH_STATE_TTL_SECS", &c.StateTTL, 600, 10, 7*86400),
		integer("MCPBASH_MAX_LISTENS", &c.MaxListens, 16, 1, 1<<20),
		integer("MCPBASH_MAX_SUBSCRIPTIONS", &c.MaxSubscriptions, 1024, 1, 1<<20),
		bytes("MCPBASH_HTTP_MAX_BUFFERED_BYTES", &c.HTTP.MaxBufferedBytes, 256<<20, 1<<20, 1<<40),
		meaning(str("MCPBASH_METRICS_ADDR", &c.MetricsAddr, ""), "none: /metrics on the MCP listener, behind MCPBASH_METRICS_TOKEN_FILE"),
		meaning(str("MCPBASH_METRICS_TOKEN_FILE", &c.MetricsTokenFile, ""), "none"),
		oneOf("MCPBASH_WRITE_MODE", &c.WriteMode, "direct", "direct", "review"),
		meaning(absDir("MCPBASH_CHANGES_DIR", &c.ChangesDir), "$XDG_STATE_HOME/mcp-bash/changes (else under ~/.local/state)"),
		seconds("MCPBASH_CHANGES_TTL_SECS", &c.ChangesTTL, 86400, 60, 90*86400),
		integer("MCPBASH_CHANGES_MAX_PENDING", &c.ChangesMaxPending, 20, 1, 10000),
		secret("MCPBASH_OPERATOR_TOKEN", &c.OperatorToken),
		// Handed to project hooks as the original's hooks saw them, never read by the server.
		passthrough("MCPBASH_TOOL_ALLOW_DEFAULT"),
		passthrough("MCPBASH_LOG_VERBOSE"),
		passthrough("MCPBASH_STATE_DIR"),
		passthrough("MCPBASH_CI_MODE"),
		passthrough("MCPBASH_DEBUG_LOG"),
		passthrough("MCPBASH_JSON_TOOL"),
		passthrough("MCPBASH_JSON_TOOL_BIN"),
		passthrough("MCPBASH_MODE"),
	}
}

// UtilityBudget is the memory a call's in-process utilities may hold at once, in bytes:
// MCPBASH_UTILITY_MEMORY_MB, else 512 MiB, at most half the heap guard's limit when one is set.
func (c *Config) UtilityBudget() int64 {
	mib := c.UtilityMemoryMiB
	if mib == 0 {
		mib = 512
		if c.MaxHeapMiB > 0 {
			mib = min(mib, max(c.MaxHeapMiB/2, 1))
		}
	}
	return int64(mib) << 20
}
