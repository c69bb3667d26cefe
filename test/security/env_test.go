// Package security is the attack corpus: hostile tool scripts run through the real binary, each
// with a stable ID whose prefix is a threat ID of SECURITY.md, an expected safe outcome, and the
// oracles every case shares (no canary, no host path, no Go crash text, the server still
// answers, its memory stays under budget).
package security

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// Three canaries: one in a host file outside every root, one in the server's environment and
// one in a second tenant's project directory.
const (
	fileCanary   = "CANARY-FILE-5d1e8b-host-secret"
	envCanary    = "CANARY-ENV-93c0f4-host-secret"
	tenantCanary = "CANARY-TENANT-27ab1c-other-project"
)

// rssBudget bounds the server's resident memory after every case.
const rssBudget = 1 << 30

// evalTool evaluates the "script" argument; the script itself is plain Bash.
const evalTool = "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n"

func schema() string {
	return `{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}`
}

// world is one project plus the host-side things the cases aim at.
type world struct {
	root    string // project root (the only client-visible root)
	outside string // host dir outside every root, holding secret.txt
	evil    string // root + "-evil": a sibling sharing the root's prefix, holding secret.txt
	tenant  string // another tenant's project directory, holding secret.txt and victim.txt
	toolDir string // tools/sh: read-only to the script
	home    string // the server process's HOME
	scratch string // MCPBASH_TMP_ROOT: where per-call scratch trees live
	tmpName string // a fresh name under /tmp that must never be created
	passwd  string // the host's first /etc/passwd line
	native  bool   // the cases run as a native tool
	c       *harness.Client
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newWorld builds the project (tools sh and, when native, nat) and the host-side targets.
func newWorld(t *testing.T, extra map[string]string) *world {
	t.Helper()
	w := &world{root: harness.RealTempDir(t), outside: harness.RealTempDir(t), home: harness.RealTempDir(t), scratch: harness.RealTempDir(t)}
	files := map[string]string{
		"server.d/server.meta.json": `{"name":"sec"}`,
		"tools/sh/tool.sh":          evalTool,
		"tools/sh/tool.meta.json":   `{"name":"sh","description":"evaluate a snippet","inputSchema":` + schema() + `}`,
		"data/inside.txt":           "inside\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	harness.WriteFiles(t, w.root, files)
	w.toolDir = filepath.Join(w.root, "tools", "sh")
	if err := os.WriteFile(filepath.Join(w.outside, "secret.txt"), []byte(fileCanary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.evil = w.root + "-evil"
	if err := os.Mkdir(w.evil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(w.evil) })
	if err := os.WriteFile(filepath.Join(w.evil, "secret.txt"), []byte(fileCanary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.tenant = harness.RealTempDir(t)
	harness.WriteFiles(t, w.tenant, map[string]string{"secret.txt": tenantCanary + "\n", "victim.txt": "untouched\n"})
	w.tmpName = filepath.Join(os.TempDir(), "mcpbash-sec-"+randHex(6))
	t.Cleanup(func() { os.Remove(w.tmpName) })
	if f, err := os.Open("/etc/passwd"); err == nil {
		sc := bufio.NewScanner(f)
		if sc.Scan() {
			w.passwd = sc.Text()
		}
		f.Close()
	}
	return w
}

func (w *world) start(t *testing.T, env ...string) { w.launch(t, nil, env...) }

// launch starts the server and initializes a session with the client capabilities caps.
func (w *world) launch(t *testing.T, caps map[string]any, env ...string) {
	t.Helper()
	base := []string{"HOME=" + w.home, "MCPBASH_TMP_ROOT=" + w.scratch, "MCPBASH_MAX_HEAP_MB=256", "MCPBASH_DEFAULT_TOOL_TIMEOUT=" + strconv.Itoa(backstop),
		"SECRET_TOKEN=" + envCanary, "AWS_SECRET_ACCESS_KEY=" + envCanary}
	if !w.native {
		// Native tools get MCPBASH_* variables by design (docs/CONFIG.md, env modes); the
		// sandbox must hide even those.
		base = append(base, "MCPBASH_TEST_CANARY="+envCanary)
	}
	env = append(base, env...)
	w.c = harness.Start(t, harness.Options{Dir: w.root, Env: env})
	w.c.Initialize("2025-11-25", caps)
}

// expand fills a case's placeholders.
func (w *world) expand(s string) string {
	rel, _ := filepath.Rel(filepath.Join(w.root, "data"), w.outside)
	return strings.NewReplacer("{{OUT}}", w.outside, "{{ROOT}}", w.root, "{{EVIL}}", w.evil, "{{TOOLDIR}}", w.toolDir,
		"{{TMPNAME}}", w.tmpName, "{{DATA}}", filepath.Join(w.root, "data"), "{{REL}}", rel, "{{HOSTHOME}}", os.Getenv("HOME"),
		"{{TENANT}}", w.tenant, "{{OUTREL}}", strings.TrimPrefix(w.outside, "/"), "{{TENANTREL}}", strings.TrimPrefix(w.tenant, "/")).Replace(s)
}

// call runs a tool with a script and returns the answer.
func (w *world) call(t *testing.T, tool, script string, timeoutSecs int) harness.Msg {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{"script": script}}
	if timeoutSecs > 0 {
		params["timeoutSecs"] = timeoutSecs
	}
	return w.c.Call("tools/call", params)
}

// text is the concatenated text content of a result plus its stderr, or the error.
func text(m harness.Msg) string {
	if m.Error != nil {
		return m.Error.Message + "\n" + string(m.Error.Data)
	}
	var r struct {
		Content []struct{ Text string }
		Meta    map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(m.Result, &r)
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	if s, ok := r.Meta["stderr"].(string); ok {
		b.WriteString("\n[stderr] " + s)
	}
	return b.String()
}

var crashRE = regexp.MustCompile(`panic:|goroutine \d+|fatal error:|runtime\.`)

// hostPaths are host paths no output may reveal unless the script itself named them.
func (w *world) hostPaths() []string {
	ps := []string{w.outside, w.evil, w.tmpName, w.tenant}
	if !w.native {
		ps = append(ps, w.home) // native tools get the server's HOME by design
	}
	if h := os.Getenv("HOME"); len(h) > 1 && !w.native {
		ps = append(ps, h)
	}
	if exe := os.Getenv("MCPBASH_TEST_BINARY"); exe != "" {
		ps = append(ps, filepath.Dir(exe))
	}
	return ps
}

// oracles checks everything the server wrote since line index from, its stderr, that it still
// answers, and its memory.
func (w *world) oracles(t *testing.T, from int, script string) {
	t.Helper()
	lines := w.c.Lines()[from:]
	for _, l := range lines {
		s := string(l)
		if strings.Contains(s, "CANARY") {
			t.Errorf("canary leaked: %.400s", s)
		}
		if w.passwd != "" && strings.Contains(s, w.passwd) {
			t.Errorf("/etc/passwd leaked: %.400s", s)
		}
		if crashRE.MatchString(s) {
			t.Errorf("crash text in output: %.400s", s)
		}
		for _, p := range w.hostPaths() {
			if !strings.Contains(script, p) && strings.Contains(s, p) {
				t.Errorf("host path %s revealed: %.400s", p, s)
			}
		}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(l, &probe) == nil && string(probe.ID) == "987654" {
			t.Errorf("a tool injected a message into the protocol stream: %s", s)
		}
	}
	if se := w.c.Stderr(); crashRE.MatchString(se) || strings.Contains(se, "CANARY") {
		t.Errorf("server stderr shows a crash or canary:\n%.2000s", se)
	}
	if r := w.c.Call("ping", nil); r.Error != nil {
		t.Fatalf("server stopped answering: %s", r.Raw)
	}
	if rss := vmRSS(t, w.c.Pid()); rss > rssBudget {
		// Freed memory returns to the OS gradually; give the scavenger a moment.
		deadline := time.Now().Add(harness.Backstop)
		for rss > rssBudget && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			rss = vmRSS(t, w.c.Pid())
		}
		if rss > rssBudget {
			t.Errorf("server RSS %d MiB is over the %d MiB budget", rss>>20, rssBudget>>20)
		}
	}
	if _, err := os.Lstat(w.tmpName); err == nil {
		t.Errorf("%s was created on the host", w.tmpName)
	}
	if ents, _ := os.ReadDir(w.outside); len(ents) != 1 {
		t.Errorf("the outside dir changed: %d entries", len(ents))
	}
	if ents, _ := os.ReadDir(w.evil); len(ents) != 1 {
		t.Errorf("the sibling -evil dir changed: %d entries", len(ents))
	}
	if w.tenant != "" {
		if ents, _ := os.ReadDir(w.tenant); len(ents) != 2 {
			t.Errorf("the other tenant's dir changed: %d entries", len(ents))
		}
		if b, _ := os.ReadFile(filepath.Join(w.tenant, "victim.txt")); string(b) != "untouched\n" {
			t.Errorf("the other tenant's file was overwritten: %q", b)
		}
	}
}

// vmRSS reads a process's resident set size in bytes (0 when /proc is unavailable).
func vmRSS(t *testing.T, pid int) int64 { return procStatus(pid, "VmRSS:") }

// procStatus reads a size field of /proc/<pid>/status (VmRSS:, VmHWM:) in bytes (0 when
// /proc is unavailable).
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// scratchDrained waits until every per-call scratch tree is gone (removal is asynchronous).
func (w *world) scratchDrained(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(harness.Backstop)
	for {
		all, _ := os.ReadDir(w.scratch)
		var ents []os.DirEntry
		for _, e := range all {
			// The native engine's copy of the Bash SDK lives as long as its server, not a call.
			if !strings.HasPrefix(e.Name(), "mcpbash-sdk-") {
				ents = append(ents, e)
			}
		}
		if len(ents) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("scratch trees left behind: %v", names)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
