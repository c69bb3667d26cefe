// Package host is the MCP server: a process-wide Server and one Session per client, with
// lifecycle and version negotiation, dispatch, concurrency, cancellation, notifications, the
// choice of an engine for each tool call and the shaping of results.
//
// # Embedding API
//
// The exported names of this package are the API other modules may build on, and the one the
// mcp-bash CLI (cmd/mcp-bash) calls; everything else of the server is in host/internal/ and
// not importable from outside. The entry points:
//
//   - Serve serves a project over one stdio-style session (any io.Reader and io.Writer);
//   - Open builds the Server a project would be served by, for CLI-style use: CallTool,
//     ToolPlan, ToolEnvironment, Validate, Bundle, RegistryStatus, RebuildRegistry;
//   - FindProject, Doctor, Health and ShowConfig inspect a project and its configuration
//     without serving it; NewProject and Scaffold write projects from the built-in templates;
//   - RunWorker and WorkerCommand are the worker process of MCPBASH_ISOLATION=process.
//
// Options say which project and which environment: settings are read from Options.Getenv only,
// parsed once (docs/CONFIG.md), and a malformed one is a *ConfigError. Config and NewServer are
// the lower-level constructor behind Open and Serve, for tests and transports of this module;
// what a transport adds to the core (a logger, hosting) is a ServerOption given to NewServer,
// never a field set on a built Server.
//
// docs/ARCHITECTURE.md has the packages, their layering and the path of a call.
package host
