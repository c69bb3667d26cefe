package security

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// serverDirs hold the engines and the host: code that runs in the server process (or a worker)
// next to directories tools write. The sandbox filesystem package itself (the files directly
// in sandbox/) is where host file access is supposed to happen, and is not scanned; neither are
// the directories TestNoDirectHostAccess already holds to the stricter rule.
var serverDirs = []string{"interp", "host", "sandbox/internal/confine", "cmd"}

// fileCalls are the host file operations: each takes a path and resolves it on the host,
// following symlinks a tool may have planted.
var fileCalls = set("Open", "OpenFile", "ReadFile", "WriteFile", "Create", "CreateTemp", "Stat", "Lstat", "ReadDir",
	"Readlink", "Remove", "RemoveAll", "Rename", "Mkdir", "MkdirAll", "MkdirTemp", "Symlink", "Link", "Chmod",
	"Chown", "Lchown", "Chtimes", "Truncate", "Chdir", "DirFS", "CopyFS", "OpenRoot", "OpenInRoot")

// fileSyscalls are the same operations as raw system calls.
var fileSyscalls = set("Open", "Openat", "Openat2", "Creat", "Stat", "Lstat", "Fstatat", "Unlink", "Unlinkat",
	"Rename", "Renameat", "Renameat2", "Mkdir", "Mkdirat", "Symlink", "Symlinkat", "Readlink", "Readlinkat",
	"Chmod", "Fchmodat", "Link", "Linkat", "Truncate", "Rmdir", "Chdir", "Access", "Faccessat", "Mknod", "Mknodat",
	"Mkfifo", "Mkfifoat", "Statfs", "Chown", "Lchown", "Fchownat", "Utimes", "UtimesNano", "Utimensat")

var serverRules = guardRules{
	imports: map[string]string{"io/ioutil": "host file access"},
	calls: map[string]map[string]bool{
		"os":                    fileCalls,
		"path/filepath":         set("Walk", "WalkDir", "Glob", "EvalSymlinks"),
		"syscall":               fileSyscalls,
		"golang.org/x/sys/unix": fileSyscalls,
	},
}

// serverFileAllowlist are the reviewed host file calls of server code, keyed
// "file:function:pkg.Call". Each reaches only a path no tool can have written: project
// metadata read while scanning (tools may not write tools/, server.d/, ... in any engine:
// T-FS-5), the server's own state and cache directories, configuration the operator wrote, or
// directories the server created with unguessable names before any tool ran. A side file or
// anything else in a directory a tool writes goes through sandbox.SideDir or sandbox.FS.
var serverFileAllowlist = map[string]string{
	"host/internal/native/native.go:Engine.review:os.Mkdir":                         "the overlay's upper and work directories in the call's layer directory, which the server made in the change store (unguessable name, outside every root) before the tool runs",
	"host/internal/native/native.go:Engine.review:os.Chmod":                         "the overlay's own work/work directory (mode 0, made by the kernel; the tool's merged view cannot reach the work directory), opened so that it can be removed",
	"host/internal/native/native.go:Engine.review:os.RemoveAll":                     "the overlay's work and what is left of its upper directory once its files moved into the layer (RemoveAll never follows symlinks)",
	"sandbox/internal/confine/layer_linux.go:LayerExec:os.Chdir":                    "the layer helper enters the tool's directory again once its overlays are mounted, before the tool starts",
	"sandbox/internal/confine/layer_linux.go:LayerProbe:os.Chmod":                   "the probe's overlay work directory, in a probe directory the server made (unguessable name) in the change store",
	"sandbox/internal/confine/layer_linux.go:LayerProbe:os.Mkdir":                   "the probe's lower, upper and work directories, in its own new directory in the change store",
	"sandbox/internal/confine/layer_linux.go:LayerProbe:os.MkdirTemp":               "a new probe directory with an unguessable name in the change store's layers directory",
	"sandbox/internal/confine/layer_linux.go:LayerProbe:os.ReadFile":                "what the probe's own helper wrote through its overlay (no tool ran there)",
	"sandbox/internal/confine/layer_linux.go:LayerProbe:os.RemoveAll":               "removes the probe directory (RemoveAll never follows symlinks)",
	"sandbox/internal/confine/layer_linux.go:LayerProbe:os.Stat":                    "checks that the probe's write did not reach its lower directory",
	"sandbox/internal/confine/layer_linux.go:layerProbeChild:os.WriteFile":          "the probe helper writes through its own overlay, in its own namespace, before any tool",
	"host/internal/changes/commit.go:Store.Commit:os.Remove":                        "a commit's journal in the store",
	"host/internal/changes/commit.go:Store.recoverAll:os.ReadDir":                   "lists the store's change sets",
	"host/internal/changes/commit.go:Store.recoverAll:os.ReadFile":                  "a commit's journal in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/commit.go:Store.recoverAll:os.Remove":                    "a commit's journal in the store",
	"host/internal/changes/commit.go:stage:os.OpenRoot":                             "a change set's data directory in the store, read through os.Root",
	"host/internal/changes/set.go:Build:os.OpenRoot":                                "a call's layer directory in the store (made by the server; its files written only by the sandbox FS's layer), read through os.Root",
	"host/internal/changes/store.go:Open:os.Mkdir":                                  "review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:Open:os.MkdirAll":                               "makes the operator's changes directory (MCPBASH_CHANGES_DIR) 0700; refused unless it is then the server user's alone",
	"host/internal/changes/store.go:Store.Discard:os.Stat":                          "a change set's journal in the store",
	"host/internal/changes/store.go:Store.DropLayer:os.RemoveAll":                   "a call's layer directory in the store (RemoveAll never follows symlinks)",
	"host/internal/changes/store.go:Store.Keep:os.Mkdir":                            "a change set's directory in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:Store.Keep:os.RemoveAll":                        "undoes a change set's directory in the store (RemoveAll never follows symlinks)",
	"host/internal/changes/store.go:Store.Keep:os.Rename":                           "moves a call's layer into its change set's directory, both in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:Store.LayerBase:os.Mkdir":                       "a layer directory in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined); its data files are written only through the sandbox FS's layer",
	"host/internal/changes/store.go:Store.NewLayer:os.MkdirTemp":                    "a call's layer directory, with an unguessable name, in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:Store.drop:os.RemoveAll":                        "removes a dropped change set from the store (RemoveAll never follows symlinks)",
	"host/internal/changes/store.go:Store.drop:os.Rename":                           "ends a change set by renaming its directory within the store",
	"host/internal/changes/store.go:Store.dropStaleLayers:os.ReadDir":               "lists the store's layer directories",
	"host/internal/changes/store.go:Store.dropStaleLayers:os.RemoveAll":             "removes layers a dead server left in the store",
	"host/internal/changes/store.go:Store.event:os.OpenFile":                        "the store's own audit log (0600)",
	"host/internal/changes/store.go:Store.expire:os.ReadDir":                        "lists the store's change sets",
	"host/internal/changes/store.go:Store.expire:os.Stat":                           "a change set's journal in the store",
	"host/internal/changes/store.go:Store.list:os.ReadDir":                          "lists the store's change sets",
	"host/internal/changes/store.go:Store.load:os.ReadFile":                         "a change set's set.json in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:Store.lock:os.OpenFile":                         "the store's lock file: review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:Store.sweep:filepath.Glob":                      "lists dropped change sets in the store",
	"host/internal/changes/store.go:Store.sweep:os.RemoveAll":                       "removes dropped change sets from the store",
	"host/internal/changes/store.go:syncDir:os.Open":                                "syncs a directory of the store",
	"host/internal/changes/store.go:writeJSON:os.OpenFile":                          "a set.json or journal.json the server writes in review mode's change store (MCPBASH_CHANGES_DIR, 0700, the server user's alone): outside every root (review calls are refused when one reaches it), unreachable to native tools and host commands under Landlock (review mode is refused where they run unconfined)",
	"host/internal/changes/store.go:writeJSON:os.Rename":                            "replaces a set.json or journal.json in the store",
	"host/internal/changes/sys_other.go:private:os.Lstat":                           "checks that the operator's changes directory is the server user's alone",
	"host/internal/changes/sys_unix.go:private:os.Lstat":                            "checks that the operator's changes directory is the server user's alone",
	"cmd/mcp-bash/jqcmd.go:jqRoots:os.OpenRoot":                                     "`mcp-bash jq` runs inside the tool's own confined process (native tools): it can open only what the tool itself can",
	"cmd/mcp-bash/jqcmd.go:jqRoots:os.Stat":                                         "same process as the entry above: the tool's own jq, not the server",
	"cmd/mcp-bash/new.go:newNewCmd:os.Stat":                                         "CLI `new`: the operator's target directory",
	"cmd/mcp-bash/debug.go:newDebugCmd:os.MkdirTemp":                                "CLI `debug`: a new log directory with an unguessable name",
	"cmd/mcp-bash/runtool.go:runTool:os.ReadFile":                                   "CLI `run-tool --args @FILE`: a file the operator named",
	"cmd/mcp-bash/workercmd.go:selfPath:filepath.EvalSymlinks":                      "the server's own binary",
	"host/doctor.go:doctorRuntime:os.Stat":                                          "doctor (CLI) reports whether the server's wasm cache directory exists",
	"host/internal/audit/audit.go:Open:os.OpenFile":                                 "the audit log file the operator configured (hosting)",
	"host/internal/auth/apikeys.go:LoadAPIKeys:os.ReadFile":                         "the API key file the operator configured (hosting)",
	"host/internal/auth/config.go:LoadConfig:os.ReadFile":                           "the auth configuration file the operator configured (hosting)",
	"host/internal/bootstrap/bootstrap.go:Stage:filepath.EvalSymlinks":              "the bootstrap project the server stages in a new directory with an unguessable name",
	"host/internal/bootstrap/bootstrap.go:Stage:os.MkdirAll":                        "writes the embedded bootstrap project into that new directory before any tool runs",
	"host/internal/bootstrap/bootstrap.go:Stage:os.MkdirTemp":                       "the new directory with an unguessable name",
	"host/internal/bootstrap/bootstrap.go:Stage:os.RemoveAll":                       "removes that directory (RemoveAll never follows symlinks)",
	"host/internal/bootstrap/bootstrap.go:Stage:os.WriteFile":                       "writes the embedded bootstrap project before any tool runs",
	"host/internal/bundle/bundle.go:Create:os.MkdirTemp":                            "CLI `bundle`: its own staging directory (unguessable name)",
	"host/internal/bundle/bundle.go:Create:os.RemoveAll":                            "CLI `bundle`: removes that staging directory",
	"host/internal/bundle/bundle.go:Create:os.Stat":                                 "CLI `bundle`: the project the operator packages",
	"host/internal/bundle/bundle.go:metaAuthor:os.ReadFile":                         "CLI `bundle`: project metadata (read-only to tools, T-FS-5)",
	"host/internal/bundle/bundle.go:outputPath:os.MkdirAll":                         "CLI `bundle`: the output directory the operator named",
	"host/internal/bundle/bundle.go:projectFiles:filepath.EvalSymlinks":             "CLI `bundle`: links are followed only when they stay in the project (else skipped with a warning)",
	"host/internal/bundle/bundle.go:projectFiles:filepath.WalkDir":                  "CLI `bundle`: walks the project the operator packages (WalkDir does not follow links)",
	"host/internal/bundle/bundle.go:projectFiles:os.Stat":                           "CLI `bundle`: a project file, after the in-project check above",
	"host/internal/bundle/bundle.go:readOverlay:os.ReadFile":                        "CLI `bundle`: an overlay file the operator named",
	"host/internal/bundle/bundle.go:writeZip:os.Chmod":                              "CLI `bundle`: the bundle it creates",
	"host/internal/bundle/bundle.go:writeZip:os.CreateTemp":                         "CLI `bundle`: a new temporary file beside the output",
	"host/internal/bundle/bundle.go:writeZip:os.Open":                               "CLI `bundle`: project files listed by projectFiles",
	"host/internal/bundle/bundle.go:writeZip:os.Remove":                             "CLI `bundle`: its own temporary file",
	"host/internal/bundle/bundle.go:writeZip:os.Rename":                             "CLI `bundle`: its own temporary file onto the output the operator named",
	"host/internal/bundle/bundle.go:writeZip:os.Stat":                               "CLI `bundle`: project files listed by projectFiles",
	"host/internal/bundle/platform.go:FindSource:filepath.EvalSymlinks":             "CLI `bundle`: the mcp-bash binaries to package (operator's files)",
	"host/internal/bundle/platform.go:Builder.releaseBinaries:os.Stat":              "CLI `bundle`: the GoReleaser dist/ folder of the operator's checkout (a build output, not a tool's)",
	"host/internal/bundle/platform.go:Builder.releaseBinaries:filepath.Glob":        "CLI `bundle`: lists the release binaries in that dist/ folder",
	"host/internal/bundle/platform.go:distVersion:os.Open":                          "CLI `bundle`: that dist/ folder's metadata.json (size-bounded read)",
	"host/internal/bundle/platform.go:IsSource:os.Open":                             "CLI `bundle`: the mcp-bash binaries to package (operator's files)",
	"host/internal/bundle/platform.go:IsSource:os.Stat":                             "CLI `bundle`: the mcp-bash binaries to package (operator's files)",
	"host/internal/hooks/hooks.go:bashPath:os.Stat":                                 "finds the host's bash for opted-in project hooks (T-HOOK-1)",
	"host/internal/hooks/hooks.go:lookPath:os.Stat":                                 "PATH lookup for hooks (the operator's PATH)",
	"host/internal/hooks/hooks.go:newWorkspace:os.MkdirTemp":                        "a hook's workspace, new with an unguessable name",
	"host/internal/hooks/hooks.go:newWorkspace:os.WriteFile":                        "writes the trusted hook copy and channel into that new workspace before the hook runs",
	"host/internal/hooks/hooks.go:readTrusted:os.Lstat":                             "the hook trust check: O_NOFOLLOW open, fstat, owner and mode checks (T-HOOK-2)",
	"host/internal/hooks/hooks.go:workspace.remove:os.RemoveAll":                    "removes the hook workspace (RemoveAll never follows symlinks)",
	"host/internal/hooks/run.go:Options.runSandboxed:os.WriteFile":                  "writes the shim into the hook's new workspace (newWorkspace) before the sandboxed hook runs; after the run the channel is read through sandbox.SideDir",
	"host/internal/registry/project.go:NotADirectory:os.Stat":                       "the operator's --project-root / MCPBASH_PROJECT_ROOT, checked by CLI verbs before anything runs",
	"host/scripts.go:readScriptMeta:os.ReadFile":                                    "<script>.meta.json of a provider or completion script (providers/, completions/: read-only to tools, T-FS-5)",
	"host/toolpolicy.go:Server.checkPolicy:os.Lstat":                                "whether server.d/policy.sh exists, for a one-time warning (read-only to tools, T-FS-5)",
	"host/validate.go:toolMetaFindings:filepath.WalkDir":                            "validate walks tools/ for metadata files (read-only to tools, T-FS-5)",
	"host/validate.go:toolMetaFindings:os.ReadFile":                                 "validate reads tools/**/*.meta.json (read-only to tools, T-FS-5)",
	"host/internal/hooks/policy.go:PolicyCheck:os.Lstat":                            "whether server.d/policy.sh exists (read-only to tools, T-FS-5)",
	"host/internal/native/native.go:Engine.Close:os.Chmod":                          "the native SDK directory the server created (unguessable name, read-only to tools)",
	"host/internal/native/native.go:Engine.Close:os.RemoveAll":                      "removes that directory (RemoveAll never follows symlinks)",
	"host/internal/native/native.go:Engine.run:os.MkdirTemp":                        "the native call's directory, new with an unguessable name; everything in it is then reached through sandbox.SideDir",
	"host/internal/native/native.go:Engine.run:os.RemoveAll":                        "removes that directory after the tool's process group is killed (RemoveAll never follows symlinks)",
	"host/internal/native/native.go:Engine.run:os.Stat":                             "the native tool's script in tools/ (read-only to tools, T-FS-5)",
	"host/internal/native/native.go:Engine.sdk:os.Chmod":                            "the native SDK directory the server created, made read-only",
	"host/internal/native/native.go:Engine.sdk:os.MkdirTemp":                        "the native SDK directory, new with an unguessable name",
	"host/internal/native/native.go:Engine.sdk:os.WriteFile":                        "the SDK file in that new directory, before any tool runs",
	"host/internal/payloadlog/payloadlog.go:Open:os.OpenFile":                       "the payload log file the operator configured (MCPBASH_DEBUG_PAYLOADS)",
	"host/internal/providers/git.go:Git.Fetch:os.MkdirAll":                          "the git provider's cache in the server's user cache directory",
	"host/internal/providers/git.go:Git.Fetch:os.MkdirTemp":                         "the git provider's temporary clone directory (unguessable name)",
	"host/internal/providers/git.go:Git.Fetch:os.RemoveAll":                         "removes the git provider's own clone (RemoveAll never follows symlinks)",
	"host/internal/providers/git.go:Git.Fetch:os.Stat":                              "the git provider's own clone",
	"host/internal/providers/git.go:lockRepo:os.MkdirAll":                           "the git provider's cache in the server's user cache directory",
	"host/internal/providers/git.go:lockRepo:os.OpenFile":                           "the git provider's lock file in its own cache",
	"host/internal/providers/hooks_on.go:applyTestHooks:os.ReadFile":                "test builds only (build tag): a CA file the test harness names",
	"host/internal/registry/hooks.go:Registry.hookActive:os.Lstat":                  "whether server.d/register.sh exists (read-only to tools, T-FS-5)",
	"host/internal/registry/hooks.go:contentSig:os.ReadFile":                        "content signature of server.d/register.sh (read-only to tools, T-FS-5)",
	"host/internal/registry/manual.go:loadManual:os.ReadFile":                       "server.d/register.json (read-only to tools, T-FS-5)",
	"host/internal/registry/manual.go:loadManual:os.Stat":                           "server.d/register.json (read-only to tools, T-FS-5)",
	"host/internal/registry/meta.go:icons:os.ReadFile":                              "icon files project metadata names (COMPAT 1.4: absolute or relative paths); tools cannot write metadata (T-FS-5)",
	"host/internal/registry/meta.go:inlineHeader:os.Open":                           "a tool script's header while scanning tools/ (read-only to tools, T-FS-5)",
	"host/internal/registry/meta.go:readMeta:os.ReadFile":                           "*.meta.json while scanning tools/, prompts/, resources/ metadata (tools/ and prompts/ read-only to tools, T-FS-5)",
	"host/internal/registry/project.go:FindRoot:os.Stat":                            "startup: finds server.d/ from the directory the operator started in",
	"host/internal/registry/project.go:LoadServerMeta:os.ReadFile":                  "server.d/server.meta.json (read-only to tools, T-FS-5)",
	"host/internal/registry/project.go:physical:filepath.EvalSymlinks":              "the project directory the operator named",
	"host/internal/registry/project.go:projectVersion:os.ReadFile":                  "the project's VERSION / package.json at the project root (read-only to tools unless the operator grants writes, T-FS-5)",
	"host/internal/registry/registry.go:Registry.loadCache:os.ReadFile":             "the registry cache in .registry/ (read-only to tools, T-FS-5)",
	"host/internal/registry/registry.go:Registry.loadCache:os.Stat":                 "the registry cache in .registry/ (read-only to tools, T-FS-5)",
	"host/internal/registry/registry.go:Registry.writeCache:os.CreateTemp":          "the registry cache in .registry/ (read-only to tools, T-FS-5)",
	"host/internal/registry/registry.go:Registry.writeCache:os.MkdirAll":            "the registry cache directory .registry/ (read-only to tools, T-FS-5)",
	"host/internal/registry/registry.go:Registry.writeCache:os.Remove":              "its own temporary cache file",
	"host/internal/registry/registry.go:Registry.writeCache:os.Rename":              "its own temporary cache file into .registry/",
	"host/internal/registry/registry.go:fpTree:os.ReadDir":                          "fingerprints tools/, prompts/, resources/ for rescans (metadata dirs read-only to tools, T-FS-5; ReadDir follows no link)",
	"host/internal/registry/registry.go:fpTree:os.Stat":                             "fingerprints the scanned directories (size and mtime only, no content)",
	"host/internal/registry/registry.go:statFP:os.Stat":                             "fingerprints the scanned directories (size and mtime only, no content)",
	"host/internal/registry/scan.go:fileExists:os.Stat":                             "scan: whether a project metadata file exists",
	"host/internal/registry/scan.go:scanTemplates:os.ReadFile":                      "scan: resource template metadata (*.meta.json)",
	"host/internal/registry/scan.go:toolCandidate:os.Open":                          "scan: a tool script's header in tools/ (read-only to tools, T-FS-5)",
	"host/internal/registry/scan.go:toolCandidate:os.Stat":                          "scan: a tool script in tools/ (read-only to tools, T-FS-5)",
	"host/internal/registry/scan.go:uiResources:os.ReadDir":                         "scan: ui/ (read-only to tools, T-FS-5)",
	"host/internal/registry/scan.go:walkFiles:os.ReadDir":                           "scan: walks tools/, prompts/, resources/ (ReadDir follows no link)",
	"host/internal/registry/scan.go:walkFiles:os.Stat":                              "scan: entries found by that walk",
	"host/internal/scaffold/scaffold.go:Completion:os.MkdirAll":                     "CLI `scaffold`: writes into the project at the operator's command",
	"host/internal/scaffold/scaffold.go:Completion:os.ReadFile":                     "CLI `scaffold`: reads the project's completions registry",
	"host/internal/scaffold/scaffold.go:Completion:os.WriteFile":                    "CLI `scaffold`: writes into the project at the operator's command",
	"host/internal/scaffold/scaffold.go:Project:os.ReadDir":                         "CLI `init`: the directory the operator named",
	"host/internal/scaffold/scaffold.go:write:os.Lstat":                             "CLI scaffolding: refuses to overwrite, links included",
	"host/internal/scaffold/scaffold.go:write:os.MkdirAll":                          "CLI scaffolding: writes into the project at the operator's command",
	"host/internal/scaffold/scaffold.go:write:os.WriteFile":                         "CLI scaffolding: writes into the project at the operator's command",
	"host/internal/tenants/store.go:Open:os.ReadFile":                               "the tenants file the operator configured (hosting)",
	"host/internal/tenants/store.go:Open:os.Stat":                                   "the tenants file the operator configured (hosting)",
	"host/internal/tenants/store.go:Store.Reload:os.ReadFile":                       "reloads that tenants file",
	"host/internal/tenants/store.go:Store.Reload:os.Stat":                           "reloads that tenants file (mtime check)",
	"host/internal/tenants/tenant.go:physicalDir:filepath.EvalSymlinks":             "a tenant's project or root directory named in the operator's tenants file",
	"host/internal/tenants/tenant.go:physicalDir:os.Stat":                           "a tenant's project or root directory named in the operator's tenants file",
	"host/internal/tenants/tenant.go:resolveRoot:filepath.EvalSymlinks":             "a tenant's root named in the operator's tenants file",
	"host/internal/tenants/tenant.go:resolveRoot:os.MkdirAll":                       "creates a tenant's root named in the operator's tenants file",
	"host/internal/tenants/tenant.go:resolveRoot:os.Stat":                           "a tenant's root named in the operator's tenants file",
	"host/internal/worker/pool.go:Pool.Run:os.MkdirTemp":                            "a worker call's scratch base, new with an unguessable name",
	"host/internal/worker/pool.go:Pool.Run:os.RemoveAll":                            "removes that directory after the call (RemoveAll never follows symlinks)",
	"host/internal/worker/pool.go:peakRSS:os.ReadFile":                              "/proc/<pid>/status of the server's own worker child",
	"host/native.go:Server.nativeSDKDir:os.Stat":                                    "the operator's MCPBASH_HOME/sdk",
	"host/native.go:selfBinary:filepath.EvalSymlinks":                               "the server's own binary",
	"host/native.go:toolPathProblem:filepath.EvalSymlinks":                          "the native tool's script, checked to resolve inside tools/ (read-only to tools, T-FS-5)",
	"host/native.go:toolPathProblem:os.Stat":                                        "the same script's owner and mode (T-EXEC-3)",
	"host/project.go:findProject:filepath.EvalSymlinks":                             "startup and CLI: the project directory the operator named",
	"host/project.go:Project.Checks:os.ReadFile":                                    "CLI `validate`: project metadata (read-only to tools, T-FS-5)",
	"host/project.go:Project.Checks:os.Stat":                                        "CLI `validate`: project metadata (read-only to tools, T-FS-5)",
	"host/project.go:open:os.Stat":                                                  "startup and CLI: the project directory the operator named",
	"host/prompts.go:Server.completionScript:os.Stat":                               "completion scripts in the project's completions/ (read-only to tools, T-FS-5)",
	"host/prompts.go:isScript:os.Stat":                                              "prompt templates in prompts/ (read-only to tools, T-FS-5)",
	"host/prompts.go:readProjectFile:os.OpenRoot":                                   "prompt and completion files, read through an os.Root of the project",
	"host/resources.go:Server.fetch:os.Stat":                                        "providers/<name>.sh (read-only to tools, T-FS-5)",
	"host/resources.go:Server.resourceRoots:os.Stat":                                "the resource roots the operator configured (MCP_RESOURCES_ROOTS, resources/): a root itself cannot be replaced by a tool",
	"host/resources.go:Server.uiProvider:os.OpenRoot":                               "ui/<name> and tools/<name>/ui, read through an os.Root (read-only to tools, T-FS-5)",
	"host/httpserve.go:loadAuth:os.Stat":                                            "whether server.d/auth.json exists, at start-up before any tool runs (read-only to tools, T-FS-5)",
	"host/hosting.go:tenantsPath:os.Stat":                                           "whether server.d/tenants.json exists, at start-up before any tool runs (read-only to tools, T-FS-5)",
	"host/hosting.go:openHosting:os.MkdirTemp":                                      "the private (0700) directory of the tenants' scratch bases, new with an unguessable name at start-up",
	"host/hosting.go:hosting.tenantScratch:os.Mkdir":                                "a tenant's scratch base in that private directory, which no tool can write (workers are Landlock-confined to their own tenant's base below it)",
	"host/hosting.go:hosting.close:os.RemoveAll":                                    "removes that private directory at shutdown, after every call ended (RemoveAll never follows symlinks)",
	"host/doctor.go:fileExists:os.Stat":                                             "doctor (CLI): whether server.d/auth.json exists (read-only to tools, T-FS-5)",
	"host/server.go:Server.loadStateKey:os.ReadFile":                                "MCPBASH_STATE_KEY_FILE, the operator's key file, read once at start-up before any tool runs",
	"host/roots.go:Server.fallbackRoots:os.ReadFile":                                "config/roots.json, the operator's file (read-only to tools, T-FS-5)",
	"host/roots.go:Server.vetRoot:filepath.EvalSymlinks":                            "root canonicalisation (issue 21): a root, whoever offers it, is resolved physically so that what is vetted is where it really points",
	"host/roots.go:Server.vetRoot:os.Stat":                                          "the resolved root must be a directory; only the physical path, already resolved, is stat'ed",
	"host/wasm.go:physicalPath:filepath.EvalSymlinks":                               "the compilation cache path comes from the operator (MCPBASH_WASM_CACHE_DIR or the user cache dir), resolved before any root check (issue 21)",
	"host/wasm.go:Server.disableWasmCache:os.Remove":                                "the cache key, created 0600 by the server outside every root; removed when a root reaches it",
	"host/toolpolicy.go:Server.checkPolicy:os.ReadFile":                             "server.d/policy.json (read-only to tools, T-FS-5)",
	"host/validate.go:Server.Validate:os.Chmod":                                     "CLI `validate --fix`: the operator asks to chmod +x the project's tool scripts",
	"host/validate.go:Server.Validate:os.Stat":                                      "CLI `validate`: the project's tool scripts (tools/ is read-only to tools, T-FS-5)",
	"interp/engine.go:call.parseFile:os.Stat":                                       "the tool's own script in tools/ (read-only to tools, T-FS-5); its content is read through sandbox.FS",
	"interp/scratch.go:scratch.emptyHome:os.Mkdir":                                  "the empty read-only home of allowlisted host commands, inside the call's scratch tree (outside every root, unguessable)",
	"sandbox/internal/confine/landlock_linux.go:splitRW:os.Lstat":                   "runs in the __confine child before the tool's program starts: a read-write root that holds protected project directories, never granted through a link",
	"sandbox/internal/confine/landlock_linux.go:splitRW:os.ReadDir":                 "same: lists that root's entries to grant each unprotected one (ReadDir follows no link)",
	"sandbox/internal/confine/physical.go:PhysicalDir:unix.Open":                    "opens / (O_PATH, no read) to walk a root's path without following links (T-FS-12); reads nothing",
	"sandbox/internal/confine/physical.go:PhysicalDir:unix.Openat":                  "walks the root's path one component at a time with O_NOFOLLOW (O_PATH, no read): a link a tool planted on the way is refused, never followed",
	"sandbox/internal/confine/landlock_linux.go:pathRules:os.Stat":                  "runs in the __confine child before the tool's program starts: the rule paths are the call's roots and scratch directory, which the server chose",
	"sandbox/internal/confine/confine_darwin.go:Available:os.Stat":                  "the fixed system path of sandbox-exec (/usr/bin), which no tool can write",
	"sandbox/internal/confine/confine_darwin.go:physicalPath:filepath.EvalSymlinks": "runs in the __confine child before the tool's program starts: resolves the rule paths (the call's roots and scratch, which the server chose) for the Seatbelt profile, which matches resolved paths; the roots were checked physical first",
	"host/internal/native/sys_unix.go:jqCommand:os.Symlink":                         "the jq link in the server's new SDK directory, before any tool runs",
	"host/internal/native/sys_windows.go:jqCommand:os.WriteFile":                    "the jq script in the server's new SDK directory, before any tool runs (Windows: links need a privilege)",
	"host/bash.go:findBash:os.Stat":                                                 "finds Git-Bash's bash.exe in the operator's PATH and install directories (Windows), never in a root",
	"host/operator.go:openOperatorSurfaces:os.ReadFile":                             "the metrics token file the operator named (MCPBASH_METRICS_TOKEN_FILE), read once at start before any tool runs",
	"host/runscript.go:RunScript:os.Stat":                                           "the script the run-script verb's caller named on the command line, checked once before any tool code runs (a CLI verb, not the server)",
	"host/internal/bundle/bundle.go:secretFiles:os.ReadFile":                        "CLI `bundle`: server.d/auth.json, to leave the keys file it names out of the bundle (server.d is read-only to tools, T-FS-5)",
	"cmd/mcp-bash/project.go:fileExists:os.Lstat":                                   "CLI `run-tool --with-server-env`: whether server.d/env.sh exists (read-only to tools, T-FS-5); the hook itself is read by the trust check",
	"host/dropin.go:Server.ExplainDefaults:os.ReadFile":                             "CLI `validate --explain-defaults`: server.d/server.meta.json, which fields it sets (read-only to tools, T-FS-5)",
	"host/internal/hooks/probes.go:RunHealthChecks:os.Lstat":                        "`--health`: whether server.d/health-checks.sh exists; the hook itself is read by the trust check (readTrusted)",
	"host/internal/scaffold/scaffold.go:UI:os.Stat":                                 "CLI `scaffold ui --tool`: the tool directory the operator named",
	"host/plan.go:Server.libraryFuncs:filepath.WalkDir":                             "`validate`/`run-tool --dry-run`: function names in the project's lib/ (read-only to tools, T-FS-5; WalkDir does not follow links)",
	"host/plan.go:Server.libraryFuncs:os.ReadDir":                                   "`validate`/`run-tool --dry-run`: the tool's own directory under tools/ (read-only to tools, T-FS-5)",
	"host/plan.go:Server.wasmCommandNames:os.ReadDir":                               "`validate`/`run-tool --dry-run`: NAME.wasm in the tool's directory and bin/ (both read-only to tools, T-FS-5)",
	"host/publish.go:Publish:os.Open":                                               "CLI `publish`: the bundle the operator named",
	"host/vendor.go:Vendor:os.Lstat":                                                "CLI `vendor`: whether .mcp-bash/ exists (a hidden entry, read-only to tools, T-FS-5)",
	"host/vendor.go:Vendor:os.MkdirAll":                                             "CLI `vendor`: creates .mcp-bash/bin in the directory the operator named",
	"host/vendor.go:Vendor:os.WriteFile":                                            "CLI `vendor`: writes .mcp-bash/vendor.json in the directory the operator named",
	"host/vendor.go:copyExecutable:os.CreateTemp":                                   "CLI `vendor`: a new temporary file beside the vendored binary",
	"host/vendor.go:copyExecutable:os.Open":                                         "CLI `vendor`: the running binary (os.Executable)",
	"host/vendor.go:copyExecutable:os.Remove":                                       "CLI `vendor`: its own temporary file",
	"host/vendor.go:copyExecutable:os.Rename":                                       "CLI `vendor`: its own temporary file onto .mcp-bash/bin/mcp-bash",
	"host/vendor.go:fileSHA256:os.Open":                                             "CLI `vendor`: the running binary and .mcp-bash/bin/mcp-bash (a hidden entry, read-only to tools, T-FS-5)",
	"interp/analyze.go:FuncNamesOf:os.ReadFile":                                     "`validate`/`run-tool --dry-run`: the project's lib/ files and the tool's directory (read-only to tools, T-FS-5)",
	"host/vendor.go:Vendor:os.ReadFile":                                             "CLI `vendor --verify`: .mcp-bash/vendor.json (a hidden entry, read-only to tools, T-FS-5)",
	"host/internal/registry/scan.go:dirExists:os.Stat":                              "scan: whether ui/<name>/ or tools/<name>/ui/ is a directory (read-only to tools, T-FS-5)",
	"host/internal/registry/uimeta.go:ReadUIMeta:os.Open":                           "ui.meta.json in ui/<name>/ or tools/<name>/ui/ (read-only to tools, T-FS-5), bounded to 1 MiB",
	"host/validate.go:toolMetaFile:os.Stat":                                         "validate (CLI): which metadata file names a tool, tools/**/*.meta.json (read-only to tools, T-FS-5)",
	"cmd/mcp-bash/profile.go:init:os.Create":                                        "the profiling build (-tags profile, never a release): the CPU profile the developer names in MCPBASH_CPUPROFILE, before any tool runs",
	"host/validate.go:hasShebang:os.Open":                                           "validate (CLI): the first two bytes of a tool script in tools/ (read-only to tools, T-FS-5)",
	"interp/analyze.go:AnalyzeFileWith:os.ReadFile":                                 "CLI `validate`: the project's scripts",
	"host/dirident_linux.go:identityOf:syscall.Stat":                                "server.d's identity, remembered while it holds no policy file (read-only to tools, T-FS-5; T-HOOK-6)",
	"host/dirident_other.go:identityOf:os.Stat":                                     "server.d's identity, remembered while it holds no policy file (read-only to tools, T-FS-5; T-HOOK-6)",
}

// TestServerFileCalls (T-FS-6, T-FS-8): the server never touches a path a tool could have
// written with host file calls. Every host file call in engine and host code is either in the
// sandbox filesystem package or reviewed into serverFileAllowlist with its reason.
func TestServerFileCalls(t *testing.T) {
	scanGuard(t, guardScan{dirs: serverDirs, rules: serverRules, skip: guarded, allow: serverFileAllowlist,
		key:  func(rel string, v violation) string { return rel + ":" + v.fn + ":" + v.what },
		what: "host file call in server code",
		fix:  "use sandbox.SideDir/sandbox.FS, or add a reviewed serverFileAllowlist entry saying why no tool can have written that path"})
}

// guarded reports whether rel is under TestNoDirectHostAccess's stricter guard.
func guarded(rel string) bool {
	for _, d := range guardedDirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// The server guard sees file calls by their function, raw file system calls and ioutil, and
// lets other system calls (signals, rlimits) through.
func TestServerGuardCatches(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.go")
	src := `package x

import (
	xos "os"
	"io/ioutil"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

type T struct{}

func (*T) read() { _, _ = xos.ReadFile("side") }

func walk() {
	_ = filepath.WalkDir(".", nil)
	_, _ = unix.Openat(0, "x", 0, 0)
	_ = syscall.Kill(1, 9)
	_, _ = ioutil.ReadAll(nil)
	_ = xos.Getpid()
}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range violations(t, p, serverRules) {
		got = append(got, v.fn+":"+v.what)
	}
	sort.Strings(got)
	if want := "T.read:os.ReadFile import:io/ioutil walk:filepath.WalkDir walk:unix.Openat"; strings.Join(got, " ") != want {
		t.Errorf("violations %q, want %q", got, want)
	}
}
