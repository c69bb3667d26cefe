package security

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The boundary cases: the nine ways out of issue 16 (Finding 1..9), issue 21's link finding,
// and variants of each class. Every case runs through the binary in both isolation modes and,
// where a native tool can try it, in native mode, with the three canaries in place (a host file
// outside the roots, the server's environment, another tenant's directory); none may leak, the
// server must keep serving, and the call must end (the harness waits for its answer).

// Engines a case runs in.
const (
	inproc  = "inproc"  // the sandbox engine in the server process (default)
	process = "process" // the sandbox engine in worker processes (MCPBASH_ISOLATION=process)
	native  = "native"  // real bash under Landlock ("exec": "native")
)

// Configurations of the server a case needs.
const (
	cfgData      = "data"       // MCPBASH_ROOTS=data: the project is not a root
	cfgProject   = "project"    // no roots named: the project root, read-only to tools
	cfgProjectRW = "project-rw" // no roots named, MCPBASH_PROJECT_ROOT_WRITABLE=true
)

type boundaryCase struct {
	ID      string // "<threat ID>/<name>"
	Finding string // "16.1" ... "16.9", "21.6": the finding the case reproduces or varies
	Script  string // placeholders as world.expand
	Want    string // regexp the answer's text must match
	Deny    []string
	Timeout int      // timeoutSecs (0: the server's default, 5 s)
	Engines []string // default: inproc and process
	Config  string   // default cfgData
	Tool    string   // "git": a sandboxed tool that allowlists git (default: the engine's eval tool)
	// needsLandlock marks cases that only the OS confinement can hold (a host process writing
	// its own HOME as the server's user).
	needsLandlock bool
	// Before prepares the host before the call (what a native tool, an allowlisted command or
	// the operator could have left in a root).
	Before func(t *testing.T, w *world)
	// After checks the host once the call answered.
	After func(t *testing.T, w *world)
}

// upScript sets $up to one "../" per component of the current directory, so that a relative
// link can climb from there to "/" (the red team's chains).
const upScript = `up=$(pwd | sed 's#/[^/]*#../#g'); `

// chain plants the red team's chain next to the side file named by the variable side and makes
// that side file a link through it to target (an absolute path).
func chain(side, target string) string {
	return `cd "$(dirname "$` + side + `")" && ` + upScript + `mkdir -p a/b/c/d/e && ln -s ../../../../.. a/b/c/d/e/u; ` +
		`t=` + target + `; ln -sf "a/b/c/d/e/u/${up}${t#/}" "$` + side + `"; echo planted=$?; `
}

var boundaryCases = []boundaryCase{
	// Finding 1 (critical): the side files are read through a kernel-resolved link chain.
	{ID: "T-FS-8/error-file-chain", Finding: "16.1", Script: chain("MCP_TOOL_ERROR_FILE", "{{OUT}}/secret.txt") + "exit 1",
		Want: `(?s).`, Engines: []string{inproc, process, native}},
	{ID: "T-FS-8/error-file-chain-environ", Finding: "16.1", Script: chain("MCP_TOOL_ERROR_FILE", "/proc/self/environ") + "exit 1",
		Want: `(?s).`, Engines: []string{inproc, process, native}},
	{ID: "T-FS-8/error-file-chain-tenant", Finding: "16.1", Script: chain("MCP_TOOL_ERROR_FILE", "{{TENANT}}/secret.txt") + "exit 1",
		Want: `(?s).`, Engines: []string{inproc, process, native}},
	{ID: "T-FS-8/log-stream-chain", Finding: "16.1", Script: chain("MCP_LOG_STREAM", "{{OUT}}/secret.txt") + "echo done",
		Want: `done`, Engines: []string{inproc, process, native}},
	{ID: "T-FS-8/progress-stream-chain", Finding: "16.1", Script: chain("MCP_PROGRESS_STREAM", "/proc/self/environ") + "echo done",
		Want: `done`, Engines: []string{inproc, process, native}},
	{ID: "T-FS-8/resources-file-chain", Finding: "16.1", Script: chain("MCP_TOOL_RESOURCES_FILE", "{{TENANT}}/secret.txt") + "echo done",
		Want: `done`, Engines: []string{inproc, process, native}},
	{ID: "T-FS-3/chain-in-a-root", Finding: "16.1", Script: "cd {{DATA}} && " + upScript + "mkdir -p a/b/c/d/e && ln -s ../../../../.. a/b/c/d/e/u; " +
		`t={{OUT}}/secret.txt; ln -s "a/b/c/d/e/u/${up}${t#/}" x; echo rc=$?; cat x`, Want: `rc=1`, After: linksStayIn("data")},
	{ID: "T-FS-3/chain-reversed-order", Finding: "16.1", Script: "cd {{DATA}} && " + upScript + "mkdir -p a/b/c/d/e/u && " +
		`t={{OUT}}/secret.txt; ln -s "a/b/c/d/e/u/../../../../../${up}${t#/}" x; echo rc=$?; rmdir a/b/c/d/e/u; ln -s ../../../../.. a/b/c/d/e/u; cat x`,
		Want: `rc=1`, After: linksStayIn("data")},
	// Issue 21 finding 6 and its rename half.
	{ID: "T-FS-3/up-then-dotdot", Finding: "21.6", Script: "cd {{DATA}} && mkdir a && ln -s .. a/up; echo up=$?; ln -s a/up/../.. esc; echo esc=$?; ls esc; true",
		Want: `up=0\s+esc=1`, After: linksStayIn("data")},
	{ID: "T-FS-3/rename-link-shallower", Finding: "21.6", Script: "cd {{DATA}} && mkdir -p a/b && ln -s ../../inside.txt a/b/l && cat a/b/l && mv a/b/l l; echo mv=$?",
		Want: `inside\s+mv=1`, After: linksStayIn("data")},
	{ID: "T-FS-3/rename-dir-of-links-shallower", Finding: "21.6", Script: "cd {{DATA}} && mkdir -p a/b/c && ln -s ../../../inside.txt a/b/c/l && mv a/b top; echo mv=$?; mv a/b/c top; echo mv2=$?",
		Want: `mv=1\s+mv2=1`, After: linksStayIn("data")},
	{ID: "T-FS-3/absolute-dotdot", Finding: "21.6", Script: "cd {{DATA}} && mkdir a && ln -s . a/u && ln -s {{DATA}}/a/u/../../{{REL}}/secret.txt x; echo rc=$?",
		Want: `rc=1`, After: linksStayIn("data")},

	// Finding 2 (native): the server read and wrote through links in the tool's own directory.
	{ID: "T-FS-8/native-error-file-link", Finding: "16.2", Script: `ln -sf {{OUT}}/secret.txt "$MCP_TOOL_ERROR_FILE"; exit 1`,
		Want: `(?s).`, Engines: []string{native}},
	{ID: "T-FS-8/native-resources-link", Finding: "16.2", Script: `ln -sf {{TENANT}}/secret.txt "$MCP_TOOL_RESOURCES_FILE"; echo done`,
		Want: `done`, Engines: []string{native}},
	{ID: "T-FS-8/native-log-link", Finding: "16.2", Script: `ln -sf /proc/self/environ "$MCP_LOG_STREAM"; ln -sf {{OUT}}/secret.txt "$MCP_PROGRESS_STREAM"; sleep 0.2; echo done`,
		Want: `done`, Engines: []string{native}},
	{ID: "T-FS-8/native-fifo-error-file", Finding: "16.2", Script: `rm -f "$MCP_TOOL_ERROR_FILE"; mkfifo "$MCP_TOOL_ERROR_FILE" && echo fifo; exit 1`,
		Want: `fifo`, Engines: []string{native}},
	{ID: "T-FS-8/native-elicit-response-link", Finding: "16.2", Script: `R="$MCP_ELICIT_RESPONSE_FILE"; ` +
		`ln -sf {{TENANT}}/victim.txt "$R.tmp"; ln -sf {{TENANT}}/victim.txt "$R"; ` +
		`printf '{"message":"m"}\n' > "$MCP_ELICIT_REQUEST_FILE"; ` +
		`for i in $(seq 600); do [ -L "$R" ] || break; sleep 0.05; done; cat "$R"`,
		Want: `"action":"decline"`, Timeout: 60, Engines: []string{native}},
	{ID: "T-FS-8/native-sample-request-link", Finding: "16.2", Script: `ln -sf {{OUT}}/secret.txt "$MCP_SAMPLE_REQUEST_FILE"; ` +
		`for i in $(seq 600); do [ -s "$MCP_SAMPLE_RESPONSE_FILE" ] && break; sleep 0.05; done; cat "$MCP_SAMPLE_RESPONSE_FILE"`,
		Want: `malformed request`, Timeout: 60, Engines: []string{native}},

	// Finding 3 (interpreter): a panic in a pipeline stage.
	{ID: "T-DOS-5/nameref-empty-in-pipeline", Finding: "16.3", Script: `{ declare -n r=''; echo "$r"; } | cat; echo survived`, Want: `survived`},
	{ID: "T-DOS-5/assoc-list-in-pipeline", Finding: "16.3", Script: `{ declare -A A=(1 2 3); echo "${A[1]}"; } | cat; echo survived`, Want: `survived`},
	{ID: "T-DOS-5/assoc-arith-subscript-in-pipeline", Finding: "16.3", Script: `declare -A a; { echo "${a[a+1]}"; } | cat; echo survived`, Want: `survived`},
	{ID: "T-DOS-5/nameref-empty-background", Finding: "16.3", Script: `{ declare -n r=''; echo "$r"; } & wait; echo survived`, Want: `survived`},

	// Finding 4 (interpreter): unread process substitutions leak threads and FIFOs.
	{ID: "T-DOS-6/procsubst-unread", Finding: "16.4", Script: `for i in $(seq 12000); do : <(true); done; echo done`, Want: `done`, Timeout: 20,
		After: threadsBounded(200)},
	{ID: "T-DOS-6/procsubst-output-unread", Finding: "16.4", Script: `for i in $(seq 3000); do : >(cat); done; echo done`, Want: `done`, Timeout: 20,
		After: threadsBounded(200)},

	// Finding 5: runaway utilities end at the call's timeout or the utility budget.
	{ID: "T-DOS-7/sed-branch-loop", Finding: "16.5", Script: `sed ':a;ba' <<< x`, Want: `timed out`, Timeout: 2},
	{ID: "T-DOS-7/sed-hold-doubling", Finding: "16.5", Script: `sed ':a;G;h;ba' <<< x`, Want: `utility memory budget|memory limit|timed out`, Timeout: 5},
	{ID: "T-DOS-7/sed-substitute-doubling", Finding: "16.5", Script: `sed ':a;s/a/aa/g;ba' <<< a`, Want: `utility memory budget|memory limit|timed out`, Timeout: 5},
	{ID: "T-DOS-7/awk-gsub-doubling", Finding: "16.5", Script: `awk 'BEGIN { s = "a"; while (1) gsub(/a/, "aa", s) }'`, Want: `utility memory budget|memory limit|timed out`, Timeout: 5},
	{ID: "T-DOS-7/awk-recursion-doubling", Finding: "16.5", Script: `awk 'function f(s) { return f(s s) } BEGIN { f("a") }'`, Want: `utility memory budget|memory limit|timed out|awk:`, Timeout: 5},
	{ID: "T-DOS-7/diff-unrelated", Finding: "16.5", Script: `diff <(seq 1 100000) <(seq 100001 200000) | tail -n 1; echo done`, Want: `> 200000\s+done`, Timeout: 20},
	{ID: "T-DOS-7/diff-reversed", Finding: "16.5", Script: `seq 1 30000 > "$TMPDIR/a"; sort -rn "$TMPDIR/a" > "$TMPDIR/b"; diff "$TMPDIR/a" "$TMPDIR/b" | wc -l`, Want: `(?s).`, Timeout: 3},
	{ID: "T-DOS-7/sort-endless", Finding: "16.5", Script: `yes 'a longer line so the budget fills quickly......................' | sort`, Want: `utility memory budget|memory limit|timed out`, Timeout: 5},
	{ID: "T-DOS-7/tail-endless", Finding: "16.5", Script: `yes 'a longer line so the budget fills quickly......................' | tail -n 1000000000`, Want: `utility memory budget|memory limit|timed out`, Timeout: 5},
	{ID: "T-DOS-7/grep-o-endless-line", Finding: "16.5", Script: `yes | tr -d '\n' | grep -o y | head -1`, Want: `(?s).`, Timeout: 5},
	{ID: "T-DOS-7/jq-doubling", Finding: "16.5", Script: `jq -n '"a" | until(false; . + .)'`, Want: `utility memory budget|memory limit|timed out`, Timeout: 5},
	{ID: "T-DOS-7/xargs-huge-argument", Finding: "16.5", Script: `yes | tr -d '\n' | xargs -0 true; echo rc=$?`, Want: `argument line too long|timed out`, Timeout: 5},
	// Red-team round 3: one key pairing 50,000 lines with 50,000 (2.5e9 output lines into a
	// pipe) ran on for minutes after its call's timeout and SIGTERM.
	{ID: "T-DOS-7/join-cross-product", Finding: "new", Script: `yes 'k x' | head -50000 > "$TMPDIR/a"; join "$TMPDIR/a" "$TMPDIR/a" | wc -l`, Want: `timed out|memory limit`, Timeout: 3},
	{ID: "T-DOS-7/command-substitution-yes", Finding: "16.5", Script: `: $(yes); echo survived`, Want: `memory|timed out`, Timeout: 5},

	// Finding 6 (interpreter): host identity and paths.
	{ID: "T-ID-3/pwd-P-proc", Finding: "16.6", Script: `PWD=/proc/self/exe; pwd -P; PWD=/proc/self/cwd; pwd -P; PWD=/root; pwd -P; cd -P /proc/self/cwd 2>/dev/null; pwd -P; echo done`,
		Want: `done`, Deny: []string{"/proc", "/root", "mcp-bash"}},
	{ID: "T-ID-3/type-P", Finding: "16.6", Script: `builtin type -P python3 bash perl; command -vv bash; builtin command -V sh; echo done`,
		Want: `done`, Deny: []string{"/usr/bin/perl", "/bin/bash", "pyenv", "/usr/bin/python"}},
	{ID: "T-ID-3/pids-everywhere", Finding: "16.6", Script: `echo $((PPID)) $(($$)) $((BASHPID)); let x=PPID y=$$; echo $x $y; x='$'; echo ${!x}; x=PPID; echo ${!x}; trap 'echo trap=$$' EXIT`,
		Want: `^4241 4242 4242\s+4241 4242\s+4242\s+4241\s+trap=4242`},

	// Finding 7: what the server and the operator run is never writable by tools.
	{ID: "T-FS-5/plant-wasm-command", Finding: "16.7", Script: `mkdir -p bin; echo x > bin/git.wasm; echo rc=$?`, Want: `rc=1`, Config: cfgProject,
		After: absent("bin/git.wasm")},
	{ID: "T-FS-5/plant-wasm-command-rw", Finding: "16.7", Script: `mkdir -p bin; echo x > bin/git.wasm; echo rc=$?; echo ok > data/new.txt; echo data=$?`,
		Want: `rc=1\s+data=0`, Config: cfgProjectRW, Engines: []string{inproc, process, native}, After: absent("bin/git.wasm")},
	{ID: "T-FS-5/git-fsmonitor", Finding: "16.7", Script: `printf '[core]\n\tfsmonitor = id\n' >> .git/config; echo rc=$?`, Want: `rc=1`,
		Config: cfgProjectRW, Engines: []string{inproc, process, native}, After: unchanged(".git/config", "[core]\n\tbare = false\n")},
	{ID: "T-FS-5/git-fsmonitor-default", Finding: "16.7", Script: `printf '[core]\n\tfsmonitor = id\n' >> .git/config; echo rc=$?; echo x > data/new.txt; echo data=$?`,
		Want: `rc=1\s+data=1`, Config: cfgProject, Engines: []string{inproc, process, native}, After: unchanged(".git/config", "[core]\n\tbare = false\n")},
	{ID: "T-FS-5/new-hidden-entries", Finding: "16.7", Script: `echo 'id' > .envrc; echo envrc=$?; mkdir -p .github/workflows; echo gh=$?; mv data .data; echo mv=$?`,
		Want: `envrc=1\s+gh=1\s+mv=1`, Config: cfgProjectRW, Engines: []string{inproc, process, native}, After: absent(".envrc", ".github", ".data")},
	{ID: "T-FS-5/rewrite-tools-rw", Finding: "16.7", Script: `echo '#!/bin/sh' > tools/evil.sh; echo new=$?; mv tools tools2; echo mv=$?; mkdir -p config; echo cfg=$?`,
		Want: `new=1\s+mv=1\s+cfg=1`, Config: cfgProjectRW, Engines: []string{inproc, process, native}, After: absent("tools/evil.sh", "tools2", "config")},
	{ID: "T-EXEC-5/wasm-never-shadows-allowlisted", Finding: "16.7", Script: `echo x > bin/git.wasm; git --version`, Want: `git version`,
		Config: cfgProjectRW, Tool: "git", After: absent("bin/git.wasm")},

	// Found in the 2026-11-27 night session: a sandboxed chmod set setuid and setgid bits, so a
	// server running as root could leave a setuid-root program in a root for a host user to run.
	{ID: "T-FS-9/setuid-program", Finding: "new", Script: `cd {{DATA}} && printf '#!/bin/sh\nid\n' > suid.sh && chmod 755 suid.sh; chmod 4755 suid.sh; echo a=$?; ` +
		`chmod u+s,g+s suid.sh; echo b=$?; mkdir -m 2755 sgid.d; echo c=$?; mkdir -p sub && chmod g+s sub; echo d=$?`,
		Want: `a=1\s+b=1\s+c=1\s+d=1`, After: noSetID("data")},

	// Found in the 2026-11-28 red-team round: a FIFO in a root (made by a native tool, an
	// allowlisted command or the host; the sandbox has no mkfifo) blocked the call's goroutine in
	// open(2) for good: the call outlived its timeout, never answered, and SIGTERM did not end
	// run-tool. Every way of opening it is now refused at once.
	{ID: "T-DOS-10/fifo-in-root", Finding: "new", Before: plantSpecial("data"), Timeout: 10,
		Script: `cd {{DATA}} && cat fifo; echo r=$?; echo x > fifo; echo w=$?; echo x >> fifo; echo a=$?; ` +
			`{ exec 3<>fifo; } 2>/dev/null; echo rw=$?; read l < fifo; echo rd=$?; mapfile -t m < fifo; ls fifo/ >/dev/null; ` +
			`grep -r . . >/dev/null; wc -c fifo-link sock; sort fifo > /dev/null; jq . fifo; awk 1 fifo; sed p fifo; head fifo; source fifo; echo done`,
		Want: `r=1\s+w=1\s+a=1\s+rw=1\s+rd=1\s+(?s:.*)done`, After: removeSpecial("data")},

	// Finding 8: an allowlisted git runs what its configuration says.
	{ID: "T-EXEC-4/gitconfig-alias", Finding: "16.8", Script: `printf '[alias]\n\tx = "!id"\n' > "$HOME/.gitconfig"; git x; echo rc=$?`,
		Want: `rc=1`, Deny: []string{"uid="}, Tool: "git"},
	{ID: "T-EXEC-4/xdg-config-alias", Finding: "16.8", Script: `mkdir -p "$HOME/.config/git"; printf '[alias]\n\tx = "!id"\n' > "$HOME/.config/git/config"; git x; echo rc=$?`,
		Want: `rc=1`, Deny: []string{"uid="}, Tool: "git"},
	{ID: "T-EXEC-4/git-env-redirection", Finding: "16.8", Script: `printf '[alias]\n\tx = "!id"\n' > "$TMPDIR/g"; export GIT_CONFIG_GLOBAL="$TMPDIR/g" GIT_CONFIG_PARAMETERS="'alias.y=!id'" XDG_CONFIG_HOME="$TMPDIR"; git x; git y; echo rc=$?`,
		Want: `rc=1`, Deny: []string{"uid="}, Tool: "git"},
	{ID: "T-EXEC-4/write-the-commands-home", Finding: "16.8", Script: `git config --global alias.x '!id'; echo cfg=$?; git x; echo rc=$?`,
		Want: `cfg=[1-9]\d*\s+(?s:.*)rc=1`, Deny: []string{"uid="}, Tool: "git", needsLandlock: true},

	// Finding 9 (interpreter): the job limit, counted by the runtime wherever jobs start.
	{ID: "T-DOS-8/jobs-from-exit-trap", Finding: "16.9", Script: `trap 'for i in $(seq 3000); do sleep 10 & done' EXIT; echo armed`,
		Want: `background job limit`},
	{ID: "T-DOS-8/jobs-through-alias-eval", Finding: "16.9", Script: `shopt -s expand_aliases; alias b='sleep 10 &'; for i in $(seq 3000); do eval b; done; wait`,
		Want: `background job limit`},
	{ID: "T-DOS-8/trap-pid", Finding: "16.9", Script: `trap 'echo pid=$$ ppid=$PPID' EXIT; echo armed`, Want: `armed\s+pid=4242 ppid=4241`},
}

// TestBoundary runs every boundary case in its engines and configuration.
func TestBoundary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{
		"tools/nat/tool.sh":        evalTool,
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native snippet","exec":"native","inputSchema":` + schema() + `}`,
		"tools/git/tool.sh":        evalTool,
		"tools/git/tool.meta.json": `{"name":"git","description":"snippet with git","sandbox":{"allowCommands":["git"]},"inputSchema":` + schema() + `}`,
		".git/config":              "[core]\n\tbare = false\n",
	})
	_, gitErr := exec.LookPath("git")
	abi, lerr := sandbox.LandlockStatus()
	servers := map[string]*world{}
	var mu sync.Mutex
	parent := t // servers live as long as the whole test, shared by its cases
	server := func(engine, cfg string) *world {
		mu.Lock()
		defer mu.Unlock()
		key := engine + "/" + cfg
		if s := servers[key]; s != nil {
			return s
		}
		s := *w
		s.native = engine == native
		env := []string{"MCPBASH_TOOL_ALLOWLIST=sh,nat,git", "MCPBASH_REQUIRE_CONFINEMENT=" + fmt.Sprint(engine == native)}
		switch cfg {
		case cfgData:
			env = append(env, "MCPBASH_ROOTS=data")
		case cfgProjectRW:
			env = append(env, "MCPBASH_PROJECT_ROOT_WRITABLE=true")
		}
		if engine == process {
			env = append(env, "MCPBASH_ISOLATION=process")
		}
		s.start(parent, env...)
		servers[key] = &s
		return &s
	}
	for _, tc := range boundaryCases {
		engines := tc.Engines
		if engines == nil {
			engines = []string{inproc, process}
		}
		for _, engine := range engines {
			t.Run(engine+"/"+tc.ID, func(t *testing.T) {
				switch {
				case engine == native && abi < 4:
					t.Skipf("native cases need Landlock ABI 4+ (ABI %d: %v)", abi, lerr)
				case tc.needsLandlock && lerr != nil:
					t.Skipf("without Landlock nothing keeps a host command out of its own HOME: %v", lerr)
				case tc.Tool == "git" && gitErr != nil:
					t.Skip("no git on this host (nothing is installed at test time)")
				}
				cfg := tc.Config
				if cfg == "" {
					cfg = cfgData
				}
				s := server(engine, cfg)
				if tc.Before != nil {
					tc.Before(t, s)
				}
				tool := "sh"
				switch {
				case tc.Tool != "":
					tool = tc.Tool
				case engine == native:
					tool = "nat"
				}
				script := s.expand(tc.Script)
				from := len(s.c.Lines())
				m := s.answer(t, tool, script, tc.Timeout)
				out := text(m)
				if testing.Verbose() {
					t.Logf("%s: %.400s", tc.Finding, out)
				}
				if !regexp.MustCompile(tc.Want).MatchString(out) {
					t.Errorf("want %q, got:\n%.1500s", tc.Want, m.Raw)
				}
				for _, d := range tc.Deny {
					if strings.Contains(out, d) {
						t.Errorf("output contains %q:\n%.1500s", d, out)
					}
				}
				s.oracles(t, from, script)
				if tc.After != nil {
					tc.After(t, s)
				}
			})
		}
	}
}

// answer calls a tool and waits for its answer, however long the call takes to end (the
// deadline only catches a call that never does).
func (w *world) answer(t *testing.T, tool, script string, timeoutSecs int) harness.Msg {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{"script": script}}
	wait := 5
	if timeoutSecs > 0 {
		params["timeoutSecs"], wait = timeoutSecs, timeoutSecs
	}
	id := "b-" + randHex(6)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	w.c.Send(string(b))
	return w.c.WaitFor(time.Duration(wait)*time.Second+2*time.Minute, "answer to "+id, func(m harness.Msg) bool {
		return m.Method == "" && string(m.ID) == `"`+id+`"`
	})
}

// linksStayIn checks that every link under the project's dir resolves, on the host, inside it
// (what an operator's tool following it would reach), the host-planted fixtures aside.
func linksStayIn(dir string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		root := filepath.Join(w.root, dir)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			switch filepath.Base(p) {
			case "c1", "c2", "c3":
				return nil // the corpus's host-planted chain
			}
			if r, err := filepath.EvalSymlinks(p); err == nil && r != root && !strings.HasPrefix(r, root+"/") {
				t.Errorf("link %s resolves on the host to %s, outside its root", p, r)
			}
			return nil
		})
		os.RemoveAll(filepath.Join(root, "a")) // the next case starts clean
		for _, n := range []string{"x", "l", "esc", "top"} {
			os.RemoveAll(filepath.Join(root, n))
		}
	}
}

// absent checks that the project has none of paths.
func absent(paths ...string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		for _, p := range paths {
			if _, err := os.Lstat(filepath.Join(w.root, p)); err == nil {
				t.Errorf("%s was created in the project", p)
			}
		}
		os.Remove(filepath.Join(w.root, "data", "new.txt"))
	}
}

// noSetID checks that nothing below the project's dir has a setuid or setgid bit, then removes
// what the case created there.
func noSetID(dir string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		base := filepath.Join(w.root, dir)
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				t.Errorf("%s has mode %v", p, fi.Mode())
			}
			return nil
		})
		for _, n := range []string{"suid.sh", "sgid.d", "sub"} {
			os.RemoveAll(filepath.Join(base, n))
		}
	}
}

// plantSpecial makes a FIFO, a link to it and a listening UNIX socket in the project's dir.
func plantSpecial(dir string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		base := filepath.Join(w.root, dir)
		if ok, err := harness.Mkfifo(filepath.Join(base, "fifo")); !ok || err != nil {
			t.Fatalf("mkfifo: %v (this test needs FIFOs)", err)
		}
		mustSymlink(t, "fifo", filepath.Join(base, "fifo-link"))
		l, err := net.Listen("unix", filepath.Join(base, "sock"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
}

// removeSpecial removes what plantSpecial made.
func removeSpecial(dir string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		for _, n := range []string{"fifo", "fifo-link", "sock"} {
			os.Remove(filepath.Join(w.root, dir, n))
		}
	}
}

// unchanged checks a project file's content.
func unchanged(p, want string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		if b, _ := os.ReadFile(filepath.Join(w.root, p)); string(b) != want {
			t.Errorf("%s changed: %q", p, b)
		}
		os.Remove(filepath.Join(w.root, "data", "new.txt"))
	}
}

// threadsBounded checks the server's thread count after the call.
func threadsBounded(max int) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.c.Pid()))
		if err != nil {
			return
		}
		var n int
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Threads:"); ok {
				fmt.Sscan(strings.TrimSpace(v), &n)
			}
		}
		if n > max {
			t.Errorf("the server has %d threads after the call (at most %d)", n, max)
		}
		w.scratchDrained(t)
	}
}

// TestScratchWritesBounded (T-DOS-11): a call's writes through the sandbox are bounded by
// default, so `cat /dev/zero > "$TMPDIR/x"` cannot fill the host's memory through the
// tmpfs scratch (0.7 GB/s until the call's timeout before): the default (1 GiB) and a smaller
// MCPBASH_MAX_BYTES_WRITTEN_PER_CALL end the call with the limit, in both isolation modes, and
// the scratch is gone after it.
func TestScratchWritesBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, limit, want string
		scripts           []string
	}{
		// The default once (it writes 1 GiB); the configured bound also into a root.
		{"default", "", `Tool wrote more than 1073741824 bytes`, []string{`cat /dev/zero > "$TMPDIR/x"; echo survived`}},
		{"configured", "1048576", `Tool wrote more than 1048576 bytes`, []string{`cat /dev/zero > "$TMPDIR/x"; echo survived`,
			`cd {{DATA}} && head -c 2000000000 /dev/zero > big; echo survived`, `yes > "$TMPDIR/a" & yes > "$TMPDIR/b"; echo survived`}},
	} {
		for _, engine := range []string{inproc, process} {
			t.Run(tc.name+"/"+engine, func(t *testing.T) {
				w := newWorld(t, nil)
				env := []string{"MCPBASH_ROOTS=data", "MCPBASH_ISOLATION=" + engine}
				if tc.limit != "" {
					env = append(env, "MCPBASH_MAX_BYTES_WRITTEN_PER_CALL="+tc.limit)
				}
				w.start(t, env...)
				for _, script := range tc.scripts {
					m := w.answer(t, "sh", w.expand(script), 30)
					if out := text(m); !regexp.MustCompile(tc.want).MatchString(out) || strings.Contains(out, "survived") {
						t.Errorf("%s: want %q, got:\n%.800s", script, tc.want, out)
					}
				}
				os.Remove(filepath.Join(w.root, "data", "big"))
				w.scratchDrained(t)
			})
		}
	}
}

// TestRootSwappedForSymlink (T-FS-12): a root is vetted once at its physical path; when
// something the sandbox does not see (a native tool or an allowlisted command writing the
// root's parent, a checkout, another user) later replaces it with a symlink to a host
// directory, the next call must not read through it (the in-process engine read the host's
// files in the link's target).
func TestRootSwappedForSymlink(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{inproc, process} {
		t.Run(engine, func(t *testing.T) {
			w := newWorld(t, nil)
			w.start(t, "MCPBASH_ROOTS=data", "MCPBASH_ISOLATION="+engine)
			data := filepath.Join(w.root, "data")
			if out := text(w.answer(t, "sh", "cat "+data+"/inside.txt", 0)); !strings.Contains(out, "inside") {
				t.Fatalf("before the swap: %.500s", out)
			}
			if err := os.Rename(data, data+".old"); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, w.outside, data)
			from := len(w.c.Lines())
			script := "cat " + data + "/secret.txt; ls " + data + "; cd " + data + " && cat secret.txt; echo done"
			if out := text(w.answer(t, "sh", script, 0)); !strings.Contains(out, "done") || strings.Contains(out, fileCanary) {
				t.Errorf("after the swap: %.800s", out)
			}
			w.oracles(t, from, script)
			os.Remove(data)
			os.Rename(data+".old", data)
		})
	}
}
