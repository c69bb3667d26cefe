package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// The project root is the default root, read-write as in the original (docs/DECISIONS.md), but
// what the server and the operator later run or trust stays read-only in every engine and
// isolation mode (T-FS-5): a script tool in the server and in a worker, a native tool under
// Landlock, a wasm tool, and a wasm command run from a script in both isolation modes.
// MCPBASH_PROJECT_ROOT_WRITABLE=false locks the rest of the project too.

// protectedTargets are writes a tool must never make: existing files of the protected
// directories, new files in them, and hidden entries of the project root (old and new).
var protectedTargets = []string{
	"tools/sh/tool.meta.json", "tools/evil.sh", "bin/evil.wasm", "bin/probe.wasm", "providers/evil.sh",
	"providers/keep.sh", "server.d/register.json", "server.d/server.meta.json", "config/roots.json",
	"config/keep.json", "lib/helper.sh", "lib/evil.sh", ".git/config", ".envrc", ".hidden-new",
}

// protectedFiles are the files of the project the test starts with, and their content.
var protectedFiles = map[string]string{
	"lib/helper.sh":     "helper() { echo helped; }\n",
	"providers/keep.sh": "#!/usr/bin/env bash\necho keep\n",
	"config/keep.json":  "{}\n",
	".git/config":       "[core]\n\tbare = false\n",
	".envrc":            "export KEEP=1\n",
	"resources/.keep":   "",
}

// writeScript tries every protected write, then one to resources/ (an ordinary project
// directory, writable unless the project is locked), with write (a command writing its first
// argument) and prints what got through.
func writeScript(write string) string {
	var b strings.Builder
	for _, p := range protectedTargets {
		fmt.Fprintf(&b, "if %s %q >/dev/null 2>&1; then echo WROTE=%s; fi; ", write, p, p)
	}
	fmt.Fprintf(&b, "if %s resources/report.txt >/dev/null 2>&1; then echo data=written; else echo data=denied; fi", write)
	return b.String()
}

func TestProtectedPathsEveryEngine(t *testing.T) {
	t.Parallel()
	probe := wasmtest.BuildGo(t, "wasm/testdata/probe")
	files := map[string]string{
		"tools/nat/tool.sh":        evalTool,
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native snippet","exec":"native","inputSchema":` + schema() + `}`,
		"tools/probe/tool.meta.json": `{"name":"probe","description":"wasm probe","inputSchema":{"type":"object","properties":` +
			`{"mode":{"type":"string"},"path":{"type":"string"}},"required":["mode"]},"sandbox":{"memoryMiB":128}}`,
	}
	for k, v := range protectedFiles {
		files[k] = v
	}
	abi, lerr := sandbox.LandlockStatus()
	for _, locked := range []bool{false, true} {
		for _, mode := range isolationModes {
			name := mode
			if locked {
				name += "/locked"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, files)
				wasmtest.Copy(t, probe, filepath.Join(w.root, "tools", "probe", "tool.wasm"))
				wasmtest.Copy(t, probe, filepath.Join(w.root, "bin", "probe.wasm"))
				before := snapshot(t, w.root)
				env := []string{"MCPBASH_ISOLATION=" + mode, "XDG_CACHE_HOME=" + wasmtest.TempDir(t, "protected-xdg-cache"),
					"MCPBASH_TOOL_ALLOWLIST=sh,nat,probe", "MCPBASH_DEFAULT_TOOL_TIMEOUT=170"}
				if locked {
					env = append(env, "MCPBASH_PROJECT_ROOT_WRITABLE=false")
				}
				w.start(t, env...)
				wantData := "data=written"
				if locked {
					wantData = "data=denied"
				}
				check := func(engine, out string) {
					t.Helper()
					if strings.Contains(out, "WROTE=") {
						t.Errorf("%s wrote a protected path: %s", engine, out)
					}
					if !strings.Contains(out, wantData) {
						t.Errorf("%s: want %s, got %q", engine, wantData, out)
					}
				}
				// The script engine: a redirection, and a utility that writes files.
				check("script redirection", text(w.call(t, "sh", writeScript("w(){ printf x >> \"$1\"; }; w"), 0)))
				check("script utility", text(w.call(t, "sh", writeScript("w(){ echo x | tee -a \"$1\"; }; w"), 0)))
				// A wasm command run from the script (in the worker with process isolation).
				check("wasm command", text(w.call(t, "sh", writeScript("w(){ probe write \"$PWD/$1\" | grep -q '^OK'; }; w"), 170)))
				// A wasm tool, one call per path (it runs in the server in both modes).
				var tool strings.Builder
				for _, p := range append(append([]string(nil), protectedTargets...), "resources/report.txt") {
					m := w.c.CallWithin(3*time.Minute, "tools/call", map[string]any{"name": "probe", "timeoutSecs": 170,
						"arguments": map[string]any{"mode": "write", "path": filepath.Join(w.root, p)}})
					if strings.HasPrefix(text(m), "OK") {
						if p == "resources/report.txt" {
							tool.WriteString("data=written ")
						} else {
							tool.WriteString("WROTE=" + p + " ")
						}
					} else if p == "resources/report.txt" {
						tool.WriteString("data=denied ")
					}
				}
				check("wasm tool", tool.String())
				if mode == "inproc" {
					// Native tools are the same in both isolation modes: real bash under Landlock.
					switch {
					case abi < 4:
						t.Logf("native part skipped: Landlock ABI %d (%v)", abi, lerr)
					default:
						check("native tool", text(w.call(t, "nat", writeScript("w(){ printf x >> \"$1\"; }; w"), 0)))
					}
				}
				after := snapshot(t, w.root)
				for p, content := range before {
					if after[p] != content {
						t.Errorf("%s changed: %q -> %q", p, content, after[p])
					}
				}
				for p := range after {
					if _, ok := before[p]; !ok && p != "resources/report.txt" {
						t.Errorf("%s was created", p)
					}
				}
			})
		}
	}
}

// snapshot reads every regular file below root except the wasm cache and the registry cache
// the server itself writes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == ".registry" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
