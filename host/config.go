package host

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// Protocol revisions this server negotiates, newest first.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// LatestVersion is the default and newest negotiated protocol revision.
const LatestVersion = "2025-11-25"

// Config is everything a Server needs; cmd builds it from flags and the environment.
type Config struct {
	// Version is the binary's version, reported in serverInfo when the project has none.
	Version string
	// Dirs locates the project; Meta is its server.d metadata.
	Dirs registry.Dirs
	Meta registry.ServerMeta
	// Bootstrap marks the built-in getting-started project.
	Bootstrap bool

	MaxConcurrent   int           // MCPBASH_MAX_CONCURRENT_REQUESTS
	MaxLineBytes    int           // MCPBASH_MAX_LINE_BYTES
	MaxQueueBytes   int           // MCPBASH_MAX_OUTPUT_QUEUE_BYTES: bytes of output waiting for a slow client
	CompatBatches   bool          // MCPBASH_COMPAT_BATCHES
	LogLevel        Level         // MCPBASH_LOG_LEVEL (or server.d/.debug)
	ShutdownTimeout time.Duration // MCPBASH_SHUTDOWN_TIMEOUT
	IdleTick        time.Duration // how often registries are re-checked while idle
	// ProgressPerMinute caps progress and log notifications per request (MCPBASH_PROGRESS_PER_MINUTE).
	ProgressPerMinute int

	// Stderr receives diagnostics; stdout carries protocol only.
	Stderr io.Writer
	// Getenv reads the server's environment; engines never see it.
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

// ConfigFromEnv fills the tunables of c from the environment, keeping documented defaults for
// missing or malformed values.
func (c *Config) ConfigFromEnv(getenv func(string) string) {
	c.Getenv = getenv
	c.Exec = strings.ToLower(strings.TrimSpace(getenv("MCPBASH_EXEC")))
	c.MaxConcurrent = envInt(getenv, "MCPBASH_MAX_CONCURRENT_REQUESTS", 16, 1, 100000)
	c.MaxLineBytes = envInt(getenv, "MCPBASH_MAX_LINE_BYTES", jsonrpc.DefaultMaxLineBytes, 1024, 1<<30)
	c.MaxQueueBytes = envInt(getenv, "MCPBASH_MAX_OUTPUT_QUEUE_BYTES", jsonrpc.DefaultMaxQueueBytes, 1<<20, 1<<30)
	c.CompatBatches = envBool(getenv("MCPBASH_COMPAT_BATCHES"))
	c.ShutdownTimeout = time.Duration(envInt(getenv, "MCPBASH_SHUTDOWN_TIMEOUT", 5, 0, 3600)) * time.Second
	c.IdleTick = 2 * time.Second
	c.ProgressPerMinute = envInt(getenv, "MCPBASH_PROGRESS_PER_MINUTE", 100, 1, 100000)
	if l, set := levelFromEnv(getenv("MCPBASH_LOG_LEVEL")); set {
		c.LogLevel = l
	} else {
		c.LogLevel = LevelInfo
	}
}

func envInt(getenv func(string) string, key string, def, lo, hi int) int {
	v := strings.TrimSpace(getenv(key))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return def
	}
	return n
}

func envBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on":
		return true
	}
	return false
}
