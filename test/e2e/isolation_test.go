package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// isolationProject has one tool that evaluates a snippet, with progress.
func isolationProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"iso"}`,
		"tools/sh/tool.sh":          "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/sh/tool.meta.json":   `{"name":"sh","description":"evaluate a snippet","inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}}`,
		"data/in.txt":               "inside\n",
	})
}

func shCall(t *testing.T, c *harness.Client, script string) harness.Msg {
	t.Helper()
	return c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": script}})
}

// workerPids lists the server's __worker children.
func workerPids(t *testing.T, server int) []int {
	t.Helper()
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		cmdline, err2 := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || err2 != nil || !strings.Contains(string(cmdline), "__worker") {
			continue
		}
		// stat: pid (comm) state ppid ...
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(server) {
			out = append(out, pid)
		}
	}
	return out
}

// TestProcessIsolation (T-DOS-4): with MCPBASH_ISOLATION=process the sandbox engine runs in
// worker processes; calls, progress and the sandbox behave as in process; a worker that dies
// mid-call (killed, out of memory) becomes an isError result naming the cause, and the server
// keeps serving.
func TestProcessIsolation(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	t.Parallel()
	root := isolationProject(t)
	// The tool timeout is only a backstop here: every call below ends by the limit under test,
	// however long that takes on a loaded machine.
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_ISOLATION=process", "MCPBASH_MAX_HEAP_MB=8192",
		"MCPBASH_WORKER_MAX_AS_MB=2048", "MCPBASH_WORKER_MAX_PROCS=4096", "MCPBASH_WORKER_MAX_OPEN_FILES=512",
		"MCPBASH_DEFAULT_TOOL_TIMEOUT=120", "MCPBASH_ROOTS=" + filepath.Join(root, "data"),
		// The call's memory budget stays above the worker's address space: the out-of-memory
		// case below is the worker's death, not the budget.
		"MCPBASH_UTILITY_MEMORY_MB=16384"}})
	c.Initialize("2025-11-25", nil)

	// Ordinary calls, several in a row (the warm worker is reused), with the sandbox in force.
	for i := range 3 {
		out := text(shCall(t, c, fmt.Sprintf(`cat %s/data/in.txt; echo n=%d; cat /etc/passwd 2>/dev/null || echo refused`, root, i)))
		if out != fmt.Sprintf("inside\nn=%d\nrefused", i) {
			t.Fatalf("call %d: %q", i, out)
		}
	}
	// Arguments over MCPBASH_ENV_PAYLOAD_THRESHOLD reach the script in a file, the variable
	// empty, as in process: a 200 KB environment string would leave no program runnable.
	long := `printf '%s %s ' "${#MCP_TOOL_ARGS_JSON}" "${MCP_TOOL_ARGS_FILE##*/}"; wc -c < "$MCP_TOOL_ARGS_FILE"` +
		"\n# " + strings.Repeat("x", 200000)
	args, _ := json.Marshal(map[string]string{"script": long})
	if out := text(shCall(t, c, long)); out != fmt.Sprintf("0 .mcp-args.json %d", len(args)) {
		t.Fatalf("long arguments: %q", out)
	}
	// Progress travels from the worker to the client with the call's token.
	c.Send(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"sh","arguments":{"script":"mcp_progress 50 half; echo done"},"_meta":{"progressToken":"tok"}}}`)
	c.WaitFor(10*time.Second, "progress", func(m harness.Msg) bool {
		return m.Method == "notifications/progress" && strings.Contains(string(m.Params), `"tok"`)
	})
	if out := text(c.Response(`"p"`)); out != "done" {
		t.Fatalf("progress call: %q", out)
	}
	pids := workerPids(t, c.Pid())
	if len(pids) == 0 {
		t.Fatal("no __worker process under the server")
	}
	// The worker's rlimits, as the kernel reports them.
	limits, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pids[0]))
	for _, want := range []string{`Max address space\s+2147483648\s+2147483648`, `Max processes\s+4096\s+4096`,
		`Max open files\s+512\s+512`, `Max file size\s+1073741824\s+1073741824`} {
		if !regexp.MustCompile(want).Match(limits) {
			t.Errorf("worker limits lack %q:\n%s", want, limits)
		}
	}

	// A worker killed mid-call: the call's progress shows that its worker runs it (killing
	// before that would kill an idle worker, and the call would go to a fresh one).
	c.Send(`{"jsonrpc":"2.0","id":"k","method":"tools/call","params":{"name":"sh","arguments":{"script":"mcp_progress 1 started; sleep 100000"},"_meta":{"progressToken":"k"}}}`)
	c.WaitFor(harness.Backstop, "progress of the call to kill", func(m harness.Msg) bool {
		return m.Method == "notifications/progress" && strings.Contains(string(m.Params), `"progressToken":"k"`)
	})
	for _, pid := range workerPids(t, c.Pid()) {
		// The busy worker is the one with the sleep in flight; killing every worker is fine too.
		harness.KillPid(pid)
	}
	m := c.Response(`"k"`)
	if !strings.Contains(string(m.Result), `"isError":true`) || !strings.Contains(text(m), "Tool worker process died: killed by SIGKILL") {
		t.Fatalf("killed worker: %s", m.Raw)
	}
	// Out of memory: the address-space limit ends the worker, not the server.
	m = shCall(t, c, `x=aaaaaaaaaaaaaaaa; while :; do x=$x$x; done`)
	if got := text(m); got != "Tool worker process died: out of memory" {
		t.Fatalf("out of memory: %s", m.Raw)
	}
	for _, bad := range []string{"goroutine ", "panic:", "runtime/"} {
		for _, l := range c.Lines() {
			if strings.Contains(string(l), bad) {
				t.Fatalf("%q reached the client: %s", bad, l)
			}
		}
	}
	// The server still serves, with a fresh worker.
	if out := text(shCall(t, c, "echo alive")); out != "alive" {
		t.Fatalf("after the crashes: %q", out)
	}
	// The CPU time limit (a pipeline of builtins burns CPU with few commands).
	cpu := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_ISOLATION=process", "MCPBASH_WORKER_CPU_SECS=1",
		"MCPBASH_DEFAULT_TOOL_TIMEOUT=120", "MCPBASH_ROOTS=" + filepath.Join(root, "data")}})
	cpu.Initialize("2025-11-25", nil)
	if got := text(shCall(t, cpu, "yes | head -c 30000000000 | wc -c")); got != "Tool worker process died: CPU time limit" {
		t.Fatalf("CPU limit: %q", got)
	}
	if out := text(shCall(t, cpu, "echo alive")); out != "alive" {
		t.Fatalf("after the CPU limit: %q", out)
	}

	// A cancelled call never answers; the worker ends the job and takes the next call. The
	// cancellation is sent once the call runs in a worker (its progress shows it). At end of
	// input the server answers every request it read before exiting, so after its exit every
	// answer it would ever give is in: the cancelled call's is not (and had the job not been
	// ended, the sleep would keep the server from exiting).
	c.Send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"sh","arguments":{"script":"mcp_progress 1 started; sleep 100000; echo late"},"_meta":{"progressToken":"c"}}}`)
	c.WaitFor(harness.Backstop, "progress of the call to cancel", func(m harness.Msg) bool {
		return m.Method == "notifications/progress" && strings.Contains(string(m.Params), `"progressToken":"c"`)
	})
	c.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}`)
	if out := text(shCall(t, c, "echo next")); out != "next" {
		t.Fatalf("after a cancellation: %q", out)
	}
	c.CloseStdin()
	if err := c.Wait(harness.Backstop); err != nil {
		t.Fatalf("server exit: %v\n%s", err, c.Stderr())
	}
	for _, l := range c.Lines() {
		if m := harness.ParseMsg(l); m.Method == "" && string(m.ID) == `"c"` {
			t.Fatalf("the cancelled call answered: %s", l)
		}
	}
}

// TestNotificationRateLimit (T-DOS-1): a tool that floods progress and log notifications gets at
// most MCPBASH_MAX_PROGRESS_PER_MIN progress and MCPBASH_MAX_LOGS_PER_MIN log notifications
// through (the older MCPBASH_PROGRESS_PER_MINUTE sets both), and its result says how many were
// dropped; the same in both isolation modes.
func TestNotificationRateLimit(t *testing.T) {
	t.Parallel()
	root := isolationProject(t)
	for _, tc := range []struct {
		mode           string
		env            []string
		progress, logs int
	}{
		{"inproc", []string{"MCPBASH_MAX_PROGRESS_PER_MIN=10", "MCPBASH_MAX_LOGS_PER_MIN=5"}, 10, 5},
		{"process", []string{"MCPBASH_MAX_PROGRESS_PER_MIN=10", "MCPBASH_MAX_LOGS_PER_MIN=5"}, 10, 5},
		{"inproc", []string{"MCPBASH_PROGRESS_PER_MINUTE=10"}, 10, 10},
	} {
		t.Run(tc.mode+"/"+strings.Join(tc.env, ","), func(t *testing.T) {
			env := append([]string{"MCPBASH_ISOLATION=" + tc.mode, "MCPBASH_LOG_LEVEL=debug", "MCPBASH_ROOTS=" + filepath.Join(root, "data")}, tc.env...)
			c := harness.Start(t, harness.Options{Dir: root, Env: env})
			c.Initialize("2025-11-25", nil)
			c.Send(`{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"sh","arguments":{"script":"for i in $(seq 50); do mcp_progress $i p; mcp_log_info flood m$i; done; echo done"},"_meta":{"progressToken":"t"}}}`)
			m := c.Response(`"f"`)
			if want := fmt.Sprintf(`"mcpbash/notificationsDropped":%d`, 100-tc.progress-tc.logs); text(m) != "done" || !strings.Contains(string(m.Result), want) {
				t.Fatalf("result: %s, want %s", m.Raw, want)
			}
			progress, logs := 0, 0
			for _, l := range c.Lines() {
				switch harness.ParseMsg(l).Method {
				case "notifications/progress":
					progress++
				case "notifications/message":
					logs++
				}
			}
			if progress > tc.progress || logs > tc.logs {
				t.Fatalf("%d progress and %d log notifications went out, the limits are %d and %d per minute", progress, logs, tc.progress, tc.logs)
			}
		})
	}
}
