package security

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
	"github.com/mcp-bash/mcp-bash/wasm"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// The WebAssembly boundary (issue 21): each finding, through the binary, in both isolation
// modes, with the shared oracles (canaries, crash text, the server still answering, RSS) and
// the server's peak RSS (VmHWM) against its configured budget.

// isolationModes are MCPBASH_ISOLATION's values: in "process", scripts and the wasm commands
// they run live in worker processes; wasm tools run in the server either way.
var isolationModes = []string{"inproc", "process"}

// heapBudgetMiB is MCPBASH_MAX_HEAP_MB for these tests: the budget the heap and every guest's
// linear memory share.
const heapBudgetMiB = 512

// rssAllowanceMiB is what the server may hold beyond that budget: the Go runtime, the binary,
// wazero's compiled code and the sampler's 10 ms of lag (docs/WASM.md).
const rssAllowanceMiB = 256

// wasmModules are the modules of the project: tools (tools/<name>/tool.wasm, with their memory
// budget) and commands (bin/<name>.wasm).
func wasmModules(root string) (tools map[string][]byte, memMiB map[string]int, cmds map[string][]byte) {
	inside, _ := filepath.Rel("/", filepath.Join(root, "data", "inside.txt"))
	tools = map[string][]byte{
		"memmin":  wasmtest.MemoryMin(65536),       // finding 2: 4 GiB at start
		"tables":  wasmtest.Tables(3, 1<<27),       // finding 4: three tables of 2^27 entries
		"bomb":    wasmtest.LoopBomb(10_000, 1000), // finding 3: minutes and gigabytes to compile
		"heavy":   wasmtest.LoopBomb(2000, 100),    // the costliest accepted shape (about a second)
		"nomem":   wasmtest.NoMemoryLog(),          // finding 7: mcp.log without memory
		"oor":     wasmtest.OutOfRangeLog(),        // finding 7: pointers past the memory
		"fds":     wasmtest.FileHog(inside),        // finding 5: opens without closing
		"ok":      wasmtest.Minimal(),              // control
		"grow":    wasmtest.TableGrower(1 << 16),   // finding 4: a table that grows
		"hogtool": wasmtest.Hog(16),                // finding 4: as a tool
	}
	memMiB = map[string]int{"memmin": 16, "tables": 16, "hogtool": 64}
	cmds = map[string][]byte{"memmin": tools["memmin"], "hog": wasmtest.Hog(16), "tables": tools["tables"], "bomb": tools["bomb"],
		"nomem": tools["nomem"], "oor": tools["oor"], "fds": tools["fds"], "ok": tools["ok"]}
	return tools, memMiB, cmds
}

// newWasmWorld is newWorld with the modules in place.
func newWasmWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, nil)
	tools, memMiB, cmds := wasmModules(w.root)
	files := map[string]string{}
	for name, mod := range tools {
		files["tools/"+name+"/tool.wasm"] = string(mod)
		meta := fmt.Sprintf(`{"name":%q,"description":"wasm %s","inputSchema":{"type":"object"}`, name, name)
		if m := memMiB[name]; m > 0 {
			meta += fmt.Sprintf(`,"sandbox":{"memoryMiB":%d}`, m)
		}
		files["tools/"+name+"/tool.meta.json"] = meta + "}"
	}
	for name, mod := range cmds {
		files["bin/"+name+".wasm"] = string(mod)
	}
	harness.WriteFiles(t, w.root, files)
	return w
}

// startWasm starts the server with a cache under the world's HOME and the heap budget.
func (w *world) startWasm(t *testing.T, mode string, env ...string) {
	t.Helper()
	w.start(t, append([]string{"MCPBASH_ISOLATION=" + mode, "MCPBASH_MAX_HEAP_MB=" + strconv.Itoa(heapBudgetMiB),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache")}, env...)...)
}

// callTool calls a tool with no arguments.
func (w *world) callTool(t *testing.T, name string, timeoutSecs int) harness.Msg {
	t.Helper()
	params := map[string]any{"name": name, "arguments": map[string]any{}}
	if timeoutSecs > 0 {
		params["timeoutSecs"] = timeoutSecs
	}
	return w.c.CallWithin(time.Duration(timeoutSecs+10)*time.Second, "tools/call", params)
}

// peakWithinBudget checks the server's peak RSS against the heap budget and the allowance.
func (w *world) peakWithinBudget(t *testing.T) {
	t.Helper()
	if hwm := procStatus(w.c.Pid(), "VmHWM:"); hwm > (heapBudgetMiB+rssAllowanceMiB)<<20 {
		t.Errorf("server peak RSS %d MiB is over its budget %d MiB + %d MiB", hwm>>20, heapBudgetMiB, rssAllowanceMiB)
	}
}

// wasmCase is one attack: a tool call (Tool) or a script for the sh tool (Script), the expected
// safe outcome (Want, a regexp over the answer's text) and the call's timeout.
type wasmCase struct {
	ID, Tool, Script, Want string
	Timeout                int
	Meta                   map[string]any
}

var wasmCorpus = []wasmCase{
	// Finding 2: a declared memory minimum over the budget is refused, never a crash, also in
	// background jobs where nothing would recover a panic.
	{ID: "T-WASM-4/memory-min-tool", Tool: "memmin", Want: `needs 4096 MiB of memory and tables at start, more than the call's memory limit \(16 MiB`},
	{ID: "T-WASM-4/memory-min-background", Script: "memmin & memmin & memmin & wait; memmin; echo rc=$?; echo survived", Want: `rc=126\s+survived`},
	// Finding 3: compile bombs are refused before wazero sees them; the costliest accepted
	// module answers by the call's deadline; a tool cannot drop a module into bin/.
	{ID: "T-WASM-5/loop-bomb-tool", Tool: "bomb", Timeout: 5, Want: `inside \(nested\) loops for a bounded compile`},
	{ID: "T-WASM-5/loop-bomb-command", Script: "bomb; echo rc=$?", Timeout: 5, Want: `rc=126`},
	{ID: "T-WASM-5/heavy-by-deadline", Tool: "heavy", Timeout: 2, Want: `^$|^Tool timed out after 2s`},
	{ID: "T-WASM-5/drop-module-in-bin", Script: "printf 'x' > {{ROOT}}/bin/evil.wasm; echo rc=$?; cp bin/bomb.wasm bin/copy.wasm; echo cp=$?", Want: `rc=1\s+cp=1`},
	// Finding 4: one budget per call, tables within it and capped.
	{ID: "T-WASM-6/hogs-in-background", Script: "for i in $(seq 12); do hog & done; wait; echo done", Timeout: 20, Want: `(?s)^done\s.*exceeded the memory limit \(256 MiB for the call's wasm commands together`},
	{ID: "T-WASM-6/hog-tool", Tool: "hogtool", Timeout: 20, Want: `memory limit \(64 MiB, sandbox.memoryMiB\)`},
	{ID: "T-WASM-6/huge-tables-tool", Tool: "tables", Want: `a table of 134217728 entries, more than 1048576`},
	{ID: "T-WASM-6/huge-tables-thirty", Script: "for i in $(seq 30); do tables 2>/dev/null & done; wait; tables; echo rc=$?", Timeout: 20, Want: `rc=126`},
	{ID: "T-WASM-6/growing-table", Tool: "grow", Want: `grows \(table.grow\) without a maximum`},
	// Finding 7: host functions without memory or with bad pointers, no traceback anywhere.
	{ID: "T-WASM-7/no-memory-log-tool", Tool: "nomem", Meta: map[string]any{"progressToken": "p"}, Want: `^$`},
	{ID: "T-WASM-7/out-of-range-log-tool", Tool: "oor", Want: `^$`},
	{ID: "T-WASM-7/host-functions-command", Script: "nomem; echo a=$?; oor; echo b=$?", Want: `a=0\s+b=0`},
	// Finding 5: a call's open files are capped, in a guest and in a script; the server and
	// its registry are unharmed.
	{ID: "T-DOS-9/file-hog-tool", Tool: "fds", Want: `fds: full`},
	{ID: "T-DOS-9/file-hog-command", Script: "fds; echo rc=$?", Want: `(?s)rc=1.*fds: full`},
	{ID: "T-DOS-9/script-holds-files", Script: "for i in $(seq 300); do sleep 3 < {{DATA}}/inside.txt & done; wait; echo done", Timeout: 20,
		Want: `(?s)^done\s.*too many open files \(256 for the call, MCPBASH_MAX_OPEN_FILES_PER_CALL\)`},
	// Control.
	{ID: "T-WASM-5/control", Script: "ok; echo rc=$?", Want: `ok\s+rc=0`},
}

// TestWasmBoundary runs the corpus in both isolation modes.
func TestWasmBoundary(t *testing.T) {
	for _, mode := range isolationModes {
		t.Run(mode, func(t *testing.T) {
			w := newWasmWorld(t)
			w.startWasm(t, mode)
			for _, c := range wasmCorpus {
				t.Run(c.ID, func(t *testing.T) {
					from := len(w.c.Lines())
					var m harness.Msg
					script := w.expand(c.Script)
					if c.Tool != "" {
						params := map[string]any{"name": c.Tool, "arguments": map[string]any{}}
						if c.Timeout > 0 {
							params["timeoutSecs"] = c.Timeout
						}
						if c.Meta != nil {
							params["_meta"] = c.Meta
						}
						// Every call ends by its deadline (plus the harness's slack).
						m = w.c.CallWithin(time.Duration(max(c.Timeout, 5)+10)*time.Second, "tools/call", params)
					} else {
						m = w.c.CallWithin(time.Duration(max(c.Timeout, 5)+10)*time.Second, "tools/call",
							map[string]any{"name": "sh", "arguments": map[string]any{"script": script}, "timeoutSecs": max(c.Timeout, 5)})
					}
					if out := text(m); !regexp.MustCompile(c.Want).MatchString(out) {
						t.Errorf("%s: want /%s/, got:\n%.2000s", c.ID, c.Want, out)
					}
					w.oracles(t, from, script)
				})
			}
			// The registry survived the descriptor attacks.
			if r := w.c.Call("tools/list", nil); !strings.Contains(string(r.Raw), `"name":"fds"`) {
				t.Errorf("T-DOS-9: tools/list after the attacks: %.500s", r.Raw)
			}
			for _, f := range []string{"evil.wasm", "copy.wasm"} {
				if _, err := os.Stat(filepath.Join(w.root, "bin", f)); err == nil {
					t.Errorf("T-WASM-5: a tool wrote bin/%s", f)
				}
			}
			if se := w.c.Stderr(); strings.Contains(se, "compiling") && strings.Contains(se, "bomb") {
				t.Errorf("T-WASM-5: the server compiled a refused module:\n%s", se)
			}
			w.peakWithinBudget(t)
		})
	}
}

// TestWasmRootsAndCache (T-FS-7, T-WASM-3): roots from a client are canonicalised and vetted;
// a root that reaches the compilation cache turns it off (and drops its key), so what a tool
// plants there is never loaded.
func TestWasmRootsAndCache(t *testing.T) {
	for _, mode := range isolationModes {
		t.Run(mode, func(t *testing.T) {
			w := newWasmWorld(t)
			cache := filepath.Join(w.home, ".cache", "mcp-bash", "wazero-"+wasm.WazeroVersion)
			sum := sha256.Sum256(wasmtest.Minimal())
			entry := filepath.Join(cache, hex.EncodeToString(sum[:]))
			// A server without client roots fills the cache and makes its key.
			w.startWasm(t, mode)
			if out := text(w.callTool(t, "ok", 0)); !strings.Contains(out, "ok") {
				t.Fatalf("control: %s", out)
			}
			if _, err := os.Stat(entry); err != nil {
				t.Fatalf("no cache entry after a compile: %v", err)
			}
			if _, err := os.Stat(wasm.CacheKeyPath(cache)); err != nil {
				t.Fatalf("no key: %v", err)
			}
			w.c.CloseStdin()
			_ = w.c.Wait(10 * time.Second)

			// The next one serves a client that offers hostile roots and its home, which
			// holds the cache.
			link := w.outside + "-proc"
			if err := os.Symlink("/proc", link); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(link) })
			w.launch(t, map[string]any{"roots": map[string]any{}}, "MCPBASH_ISOLATION="+mode,
				"MCPBASH_MAX_HEAP_MB="+strconv.Itoa(heapBudgetMiB), "XDG_CACHE_HOME="+filepath.Join(w.home, ".cache"))
			from := len(w.c.Lines())
			req := w.c.WaitFor(10*time.Second, "roots/list request", func(m harness.Msg) bool { return m.Method == "roots/list" })
			var roots []string
			for _, p := range []string{"/tmp/x/../../../proc", "/proc", "/", link, w.scratch, "/sys", "/dev/shm", filepath.Join(w.root, "data"), w.home} {
				roots = append(roots, fmt.Sprintf(`{"uri":"file://%s"}`, p))
			}
			w.c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[%s]}}`, req.ID, strings.Join(roots, ",")))
			pid := strconv.Itoa(w.c.Pid())
			script := "mcp_roots_count; cat /proc/" + pid + "/environ /proc/self/environ; ls /proc /sys / 2>&1 | head -5; " +
				"mkdir -p " + cache + " && printf 'not compiled code' > " + entry + "; echo planted=$?; " +
				"cat " + cache + ".key | wc -c; echo done"
			out := text(w.call(t, "sh", script, 10))
			if !regexp.MustCompile(`^2\s`).MatchString(out) || !strings.Contains(out, "planted=0") || !strings.Contains(out, "done") {
				t.Errorf("T-FS-7: want 2 roots (data and home) and the plant to land:\n%s", out)
			}
			// The planted entry is never loaded: the module runs, and the entry is untouched.
			if out := text(w.callTool(t, "ok", 0)); !strings.Contains(out, "ok") {
				t.Errorf("T-WASM-3: the module did not run: %s", out)
			}
			if b, _ := os.ReadFile(entry); string(b) != "not compiled code" {
				t.Errorf("T-WASM-3: the server touched the planted entry: %q", b)
			}
			if _, err := os.Stat(wasm.CacheKeyPath(cache)); err == nil {
				t.Error("T-WASM-3: the key a root reached was kept")
			}
			se := w.c.Stderr()
			for _, want := range []string{"client root /tmp/x/../../../proc refused", "client root /proc refused", "client root / refused",
				"client root " + link + " refused", "client root " + w.scratch + " refused", "contains the wasm compilation cache"} {
				if !strings.Contains(se, want) {
					t.Errorf("server log lacks %q:\n%s", want, se)
				}
			}
			w.oracles(t, from, script)
			w.peakWithinBudget(t)
		})
	}
}

// TestWasmCacheBehindSymlink (T-WASM-3): an operator root that holds the cache only through a
// symlink, before the cache exists, is seen: the cache is created first, resolved, and off.
func TestWasmCacheBehindSymlink(t *testing.T) {
	w := newWasmWorld(t)
	data := filepath.Join(w.root, "data")
	xdg := filepath.Join(w.home, "xdg")
	if err := os.Symlink(data, xdg); err != nil {
		t.Fatal(err)
	}
	w.start(t, "MCPBASH_ROOTS="+data, "XDG_CACHE_HOME="+xdg)
	from := len(w.c.Lines())
	if out := text(w.callTool(t, "ok", 0)); !strings.Contains(out, "ok") {
		t.Fatalf("control: %s", out)
	}
	if !strings.Contains(w.c.Stderr(), "contains the wasm compilation cache") {
		t.Errorf("no warning:\n%s", w.c.Stderr())
	}
	cache := filepath.Join(data, "mcp-bash", "wazero-"+wasm.WazeroVersion)
	if ents, _ := os.ReadDir(cache); len(ents) > 0 {
		t.Errorf("the cache inside the root was used: %v", ents)
	}
	if _, err := os.Stat(wasm.CacheKeyPath(cache)); err == nil {
		t.Error("a key was made inside the root")
	}
	w.oracles(t, from, "")
}

// TestWasmConcurrentCallsShareNothing: many calls of the memory and table attackers at once
// (each call its own budget, all under the heap budget) leave the server serving.
func TestWasmConcurrentCallsShareNothing(t *testing.T) {
	w := newWasmWorld(t)
	w.startWasm(t, "inproc")
	from := len(w.c.Lines())
	var wg sync.WaitGroup
	for i := range 12 {
		name := []string{"hogtool", "memmin", "tables"}[i%3]
		wg.Go(func() {
			m := w.c.CallWithin(40*time.Second, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}, "timeoutSecs": 20})
			if out := text(m); !strings.Contains(out, "memory limit") && !strings.Contains(out, "table of") {
				t.Errorf("T-WASM-6/concurrent %s: %s", name, out)
			}
		})
	}
	wg.Wait()
	w.oracles(t, from, "")
	w.peakWithinBudget(t)
}
