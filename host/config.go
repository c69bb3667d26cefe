package host

import (
	"io"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// Protocol revisions this server negotiates, newest first.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// LatestVersion is the default and newest negotiated protocol revision.
const LatestVersion = "2025-11-25"

// Config is everything a Server needs: the project, the parsed settings (Settings) and what
// the session layer uses of them directly. Open and Serve build it (ConfigFromEnv); tests and
// transports may build one themselves (nil Settings: parsed from Getenv by NewServer).
type Config struct {
	// Version is the binary's version, reported in serverInfo by the built-in getting-started
	// project (a project reports its own: server.meta.json, VERSION, package.json, else 0.0.0).
	Version string
	// Dirs locates the project; Meta is its server.d metadata.
	Dirs registry.Dirs
	Meta registry.ServerMeta
	// Bootstrap marks the built-in getting-started project.
	Bootstrap bool

	// Settings are every setting of the environment, parsed once (host/internal/config).
	Settings *config.Config

	MaxConcurrent   int           // MCPBASH_MAX_CONCURRENT_REQUESTS
	MaxLineBytes    int           // MCPBASH_MAX_LINE_BYTES
	MaxQueueBytes   int           // MCPBASH_MAX_OUTPUT_QUEUE_BYTES: bytes of output waiting for a slow client
	CompatBatches   bool          // MCPBASH_COMPAT_BATCHES
	LogLevel        Level         // MCPBASH_LOG_LEVEL (or server.d/.debug)
	ShutdownTimeout time.Duration // MCPBASH_SHUTDOWN_TIMEOUT
	IdleTick        time.Duration // how often registries are re-checked while idle
	// ProgressPerMinute caps progress notifications per call (MCPBASH_MAX_PROGRESS_PER_MIN; logs
	// have their own budget in Settings).
	ProgressPerMinute int

	// Stderr receives diagnostics; stdout carries protocol only.
	Stderr io.Writer
	// Getenv reads the server's environment for what is handed on, not parsed: the system
	// variables of project hooks (PATH, HOME, ...) and of the worker processes, and the cache
	// locations (XDG_CACHE_HOME). Settings are read only through Settings; engines never see it.
	Getenv func(string) string
	// Environ lists the server's environment, for native tools' env modes (nil: empty).
	Environ func() []string
	// Exec is the server-wide engine (--exec): "" or ExecSandbox for per-tool choice, ExecNative
	// to run every script tool natively.
	Exec string
	// Self is the mcp-bash binary (native tools' JSON tool, confinement re-exec); "" = os.Executable.
	Self string
}

// Engines selectable with --exec.
const (
	ExecSandbox = "sandbox"
	ExecNative  = "native"
)

// ConfigFromEnv parses every setting from getenv into c.Settings (an error names each malformed
// variable) and fills the session's fields from them.
func (c *Config) ConfigFromEnv(getenv func(string) string) error {
	c.Getenv = getenv
	set, err := config.Load(getenv)
	if err != nil {
		return err
	}
	c.useSettings(set)
	return nil
}

// useSettings fills the session's fields from parsed settings.
func (c *Config) useSettings(set *config.Config) {
	c.Settings = set
	c.Exec = set.Exec
	c.MaxConcurrent = set.MaxConcurrent
	c.MaxLineBytes = set.MaxLineBytes
	c.MaxQueueBytes = set.MaxQueueBytes
	c.CompatBatches = set.CompatBatches
	c.ShutdownTimeout = set.ShutdownTimeout
	c.IdleTick = 2 * time.Second
	c.ProgressPerMinute = set.ProgressPerMinute
	c.LogLevel = LevelInfo
	if l, ok := ParseLevel(set.LogLevel); ok {
		c.LogLevel = l
	}
}
