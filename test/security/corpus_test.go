package security

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// attack is one corpus case. ID is stable: "<threat ID of SECURITY.md>/<name>". Script may use
// the placeholders of world.expand. Want is a regexp the answer's text must match (the
// expected safe outcome); Deny lists strings it must not contain (beyond the shared oracles).
type attack struct {
	ID, Script, Want string
	Deny             []string
	Timeout          int // timeoutSecs for the call (0: the server default, backstop)
	Skip             string
}

// backstop is the timeout of every case that another limit must end (and the server's
// default): long enough for a loaded machine to reach that limit first, shorter than the
// harness's own backstop. Cases whose Want accepts "timed out" keep short timeouts.
const backstop = 120

// sandboxCorpus runs in the in-process sandbox engine.
var sandboxCorpus = []attack{
	// Reading host files outside the roots.
	{ID: "T-FS-1/dotdot-etc-passwd", Script: "cat ../../../../etc/passwd; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/dotdot-canary", Script: "cd {{DATA}} && cat {{REL}}/secret.txt; cat ../../../../../../../..{{OUT}}/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/absolute-canary", Script: "cat {{OUT}}/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/prefix-sibling", Script: "cat {{EVIL}}/secret.txt; cat {{ROOT}}/../$(basename {{EVIL}})/secret.txt; cd {{EVIL}} && cat secret.txt; ls {{EVIL}}; echo {{EVIL}}/*; echo rc=$?", Want: `rc=\d`},
	{ID: "T-FS-1/created-symlink-etc-passwd", Script: "cd {{DATA}} && ln -s /etc/passwd x; cat x; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/created-symlink-canary", Script: "cd {{DATA}} && ln -s {{OUT}}/secret.txt y; cat y; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/relative-symlink-chain", Script: "cd {{DATA}} && ln -s . s1; ln -s s1/.. s2; ln -s s2/.. s3; ln -s s3/.. s4; ln -s s4/{{REL}} s5; cat s4/../../../../../../..{{OUT}}/secret.txt s5/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/planted-relative-chain", Script: "cat {{DATA}}/c1 {{DATA}}/c1/../secret.txt; ls {{DATA}}/c1; echo rc=$?", Want: `rc=\d`},
	{ID: "T-FS-1/planted-symlink-readonly-root", Script: "cat {{TOOLDIR}}/planted; cat {{TOOLDIR}}/planted-dir/secret.txt; ls {{TOOLDIR}}/planted-dir; cd {{TOOLDIR}}/planted-dir && cat secret.txt; echo rc=$?", Want: `rc=\d`},
	// A hard link is refused with the call (the sandbox cannot make one exactly as ln does),
	// in both directions; the oracles check that nothing appeared on either side.
	{ID: "T-FS-1/hard-link-out", Script: "ln {{OUT}}/secret.txt {{DATA}}/hl; cat {{DATA}}/hl; echo rc=$?", Want: `ln without -s \(a hard link\) is not supported in the sandbox; use ln -s`, Deny: []string{"rc="}},
	{ID: "T-FS-1/hard-link-in-to-out", Script: "ln {{DATA}}/inside.txt {{OUT}}/hl2; echo rc=$?", Want: `ln without -s \(a hard link\) is not supported in the sandbox; use ln -s`, Deny: []string{"rc="}},
	{ID: "T-FS-1/glob-etc-root", Script: "echo /etc/* /root/.* {{HOSTHOME}}/*", Want: `^/etc/\* /root/\.\* `, Deny: []string{"/etc/passwd", "/etc/hostname", "/root/.bashrc"}},
	{ID: "T-FS-1/test-etc-shadow", Script: "[ -r /etc/shadow ] && echo readable; [ -e /etc/passwd ] && echo exists; [ -d /etc ] && echo etc; echo done", Want: `^done`},
	{ID: "T-FS-1/eval-printf", Script: "eval \"$(printf 'c%st /etc/passwd' a)\"; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/builtin-command-eval", Script: "builtin eval 'cat /etc/passwd'; command eval 'cat {{OUT}}/secret.txt'; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/split-command-name", Script: "c=ca; d=t; $c$d /etc/passwd; $c$d {{OUT}}/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/xargs-cat", Script: "echo /etc/passwd | xargs cat; echo {{OUT}}/secret.txt | xargs cat; echo rc=$?", Want: `rc=\d+`},
	{ID: "T-FS-1/trap-exit", Script: "trap 'cat /etc/passwd {{OUT}}/secret.txt' EXIT; echo armed", Want: `armed`},
	{ID: "T-FS-1/proc-self-environ", Script: "cat /proc/self/environ; cat /proc/1/environ /proc/self/cmdline /proc/self/maps; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-1/source-and-redirect", Script: "source /etc/passwd; . {{OUT}}/secret.txt; x=$(<{{OUT}}/secret.txt); mapfile -t a < /etc/passwd; echo \"x=$x a=${a[*]:-}\"", Want: `x= a=`},
	{ID: "T-FS-1/jq-awk-sed-readers", Script: "jq -R . /etc/passwd; awk '{print}' /etc/passwd; sed -n p {{OUT}}/secret.txt; grep -r . {{OUT}}; head /etc/passwd; echo rc=$?", Want: `rc=\d`},
	// Writing outside the roots.
	{ID: "T-FS-2/redirect-tmp", Script: "echo x > /tmp/sh-interp-x; echo x > {{TMPNAME}}; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-2/exec-fd-tmp", Script: "exec 3>{{TMPNAME}}; echo rc=$?", Want: `.`},
	{ID: "T-FS-2/write-tools-readonly", Script: "echo x > {{TOOLDIR}}/tool.sh; echo y >> {{TOOLDIR}}/new; rm -f {{TOOLDIR}}/tool.meta.json; echo rc=$?", Want: `rc=1`},
	{ID: "T-FS-3/dangling-symlink-write", Script: "cd {{DATA}} && ln -s {{TMPNAME}} d; echo x > d; echo y >> d; cp inside.txt d; echo rc=$?", Want: `rc=\d`},
	{ID: "T-FS-4/procsubst-leaves-nothing", Script: "cat <(echo hi); diff <(echo a) <(echo a) && echo same", Want: `hi\s+same`},
	// Host identity.
	{ID: "T-ID-1/tilde-root", Script: "echo ~root ~nobody", Want: `~root \(the home directory of a user other than the sandbox's\) is not supported`, Deny: []string{"/root", "/nonexistent"}},
	{ID: "T-ID-1/identity-vars", Script: "echo $HOME $UID $$ $PPID $USER $HOSTNAME $EUID $BASHPID", Want: `1000 4242 4241 mcp mcp-sandbox 1000`},
	{ID: "T-ID-1/env-set-declare", Script: "env; set; declare -p; export -p; printenv", Want: `USER=mcp`, Deny: []string{"SECRET_TOKEN", "MCPBASH_TEST_CANARY", "AWS_SECRET"}},
	{ID: "T-ID-2/type-command-v", Script: "type ls; command -v bash; type -a sh; hash -r; type -P python3 perl; echo done", Want: `done`, Deny: []string{"/bin/bash", "/usr/bin/perl", "/usr/bin/python3"}},
	// Host programs.
	{ID: "T-EXEC-1/bin-sh", Script: "/bin/sh -c id; echo rc=$?", Want: `/bin/sh .*not supported in the sandbox`, Deny: []string{"uid=0(", "rc="}},
	{ID: "T-EXEC-1/bash-c", Script: "bash -c 'id; cat /etc/passwd'; echo rc=$?", Want: `rc=\d+`, Deny: []string{"uid=0("}},
	{ID: "T-EXEC-1/exec-env-command", Script: "exec /usr/bin/env sh -c 'echo pwned > {{TMPNAME}}'", Want: `.`},
	// The protocol stream.
	{ID: "T-PROTO-3/stdout-injection", Script: `echo '{"jsonrpc":"2.0","id":987654,"result":{}}' > /dev/stdout; printf '\n{"jsonrpc":"2.0","id":987654,"result":{}}\n' >&1; echo '{"jsonrpc":"2.0","id":987654,"result":{}}' > /dev/fd/1; echo '{"jsonrpc":"2.0","id":987654,"result":{}}' > /proc/self/fd/1; echo '{"jsonrpc":"2.0","id":987654,"result":{}}' >&2; echo done`, Want: `done`},
	// Runaway scripts.
	{ID: "T-DOS-1/busy-loop", Script: "while :; do :; done", Want: `timed out|command limit`, Timeout: 2},
	{ID: "T-DOS-1/recursion", Script: "f(){ f; }; f", Want: `depth limit`, Timeout: backstop},
	{ID: "T-DOS-1/fork-bomb", Script: ":(){ :|:& };:", Want: `(?s).*`, Timeout: 2},
	{ID: "T-DOS-1/fork-bomb-named", Script: "f(){ f|f& }; f; wait; echo survived", Want: `(?s).*`, Timeout: 2},
	{ID: "T-DOS-1/background-job-flood", Script: "for i in $(seq 5000); do sleep 100 & done; wait", Want: `Tool exceeded the background job limit \(1000 jobs\)`, Timeout: backstop},
	{ID: "T-DOS-1/yes", Script: "yes", Want: `output exceeded`, Timeout: backstop},
	{ID: "T-DOS-1/read-no-stdin", Script: "read x; echo rc=$? x=$x", Want: `rc=1 x=`},
	{ID: "T-DOS-1/sleep-forever", Script: "sleep 99999", Want: `timed out`, Timeout: 1},
	{ID: "T-DOS-1/background-sleepers", Script: "for i in 1 2 3 4 5; do sleep 99999 & done; echo started", Want: `started`, Timeout: backstop},
	{ID: "T-DOS-1/brace-expansion", Script: "echo {1..99999999} | wc -c; echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b} | wc -c; echo done", Want: `done|utility memory budget`, Timeout: backstop},
	{ID: "T-DOS-1/printf-width", Script: "printf '%2000000000s' x | wc -c; printf '%.*d' 2000000000 1 | wc -c; echo done", Want: `done|utility memory budget`, Timeout: backstop},
	{ID: "T-DOS-1/deep-arith-nesting", Script: "echo $(( " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + " )); echo done", Want: `^1\s+done`, Timeout: backstop},
	// A million levels overflowed the parser's Go stack: a fatal error no recover() catches.
	{ID: "T-DOS-1/deep-nesting-eval", Script: "eval 'echo $(( " + strings.Repeat("(", 400000) + "1" + strings.Repeat(")", 400000) + " ))'; echo rc=$?", Want: `nested \d+ deep exceed`, Timeout: backstop},
	{ID: "T-DOS-1/deep-nesting-wrapped", Script: "s=$(printf '%600000s' ''); s=${s// /(}; builtin eval \"$s\"; command eval \"$s\"; trap \"$s\" EXIT; let \"$s\"; echo survived", Want: `nested \d+ deep exceed the sandbox's limit`, Timeout: backstop},
	{ID: "T-DOS-1/deep-nesting-source-and-script", Script: "s=$(printf '%600000s' ''); printf '#!/bin/bash\\necho $(( %s1 ))\\n' \"${s// /(}\" > {{DATA}}/deep.sh; chmod +x {{DATA}}/deep.sh; source {{DATA}}/deep.sh; {{DATA}}/deep.sh; echo survived", Want: `nested \d+ deep exceed the sandbox's limit`, Timeout: backstop},
	{ID: "T-DOS-1/deep-subshell-nesting", Script: strings.Repeat("(", 5000) + "echo deep" + strings.Repeat(")", 5000), Want: `.`, Timeout: 5},
	{ID: "T-DOS-1/eval-big-string", Script: "s=$(printf 'echo %01000000d\\n' 1); for i in 1 2 3 4; do s=$s$s; done; eval \"$s\" | wc -c", Want: `.`, Timeout: 5},
	{ID: "T-DOS-3/string-doubling", Script: "x=a; for i in {1..40}; do x=$x$x; done; echo ${#x}", Want: `memory limit|utility memory budget|timed out`, Timeout: 5},
	{ID: "T-DOS-3/array-growth", Script: "a=(x); while :; do a+=(\"${a[@]}\"); done", Want: `memory limit|utility memory budget|timed out|command limit`, Timeout: 5},
	// Array arithmetic in background jobs panicked the former interpreter and killed the server
	// (also through `builtin eval` and `command eval`): the evaluator runs it as bash does.
	{ID: "T-DOS-2/array-arith-background", Script: "declare -a a; { (( a[1] += 10 )); echo a1=${a[1]}; } & wait; echo done", Want: `^a1=10\s+done`},
	{ID: "T-DOS-2/array-arith-builtin-eval", Script: "declare -a a; { builtin eval '(( a[1] += 10 ))'; echo ${a[1]}; } & wait; { command eval 'let a[2]++'; echo ${a[2]}; } & wait; { builtin command builtin let 'a[3]++'; echo ${a[3]}; } & wait; echo survived", Want: `^10\s+1\s+1\s+survived`},
	{ID: "T-ID-1/builtin-eval-pid", Script: "builtin eval 'echo $$ $PPID'; command eval 'echo $BASHPID'", Want: `^4242 4241\s+4242\s*$`},
	{ID: "T-DOS-2/array-arith-eval", Script: "eval '(( a[1] += 10 ))' & wait; let 'a[2]++' & wait; echo done", Want: `^done`},
}

// TestAttackCorpus runs every sandbox case through the real binary.
func TestAttackCorpus(t *testing.T) {
	t.Parallel()
	// Every case in both isolation modes: in the server process (the default) and in worker
	// processes (MCPBASH_ISOLATION=process, T-DOS-4).
	for _, mode := range []string{"inproc", "process"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, nil)
			// Host-planted symlinks: in the read-only tool dir, and a relative chain in the root.
			mustSymlink(t, filepath.Join(w.outside, "secret.txt"), filepath.Join(w.toolDir, "planted"))
			mustSymlink(t, w.outside, filepath.Join(w.toolDir, "planted-dir"))
			rel, _ := filepath.Rel(filepath.Join(w.root, "data"), w.outside)
			mustSymlink(t, "c2", filepath.Join(w.root, "data", "c1"))
			mustSymlink(t, "./c3", filepath.Join(w.root, "data", "c2"))
			mustSymlink(t, rel, filepath.Join(w.root, "data", "c3"))
			// The roots are data/ only, so the tool's own directory is a read-only root.
			w.start(t, "MCPBASH_ROOTS=data", "MCPBASH_ISOLATION="+mode)
			ids := map[string]bool{}
			for _, tc := range sandboxCorpus {
				if ids[tc.ID] {
					t.Fatalf("duplicate case ID %s", tc.ID)
				}
				ids[tc.ID] = true
				t.Run(tc.ID, func(t *testing.T) {
					if tc.Skip != "" {
						t.Skip(tc.Skip)
					}
					runCase(t, w, "sh", tc)
				})
			}
			w.scratchDrained(t)
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func runCase(t *testing.T, w *world, tool string, tc attack) {
	t.Helper()
	script := w.expand(tc.Script)
	from := len(w.c.Lines())
	start := time.Now()
	m := w.call(t, tool, script, tc.Timeout)
	out := text(m)
	if testing.Verbose() {
		t.Logf("%.300s", out)
	}
	if !regexp.MustCompile(tc.Want).MatchString(out) {
		t.Errorf("want %q, got:\n%.1500s", tc.Want, out)
	}
	for _, d := range tc.Deny {
		if strings.Contains(out, d) {
			t.Errorf("output contains %q:\n%.1500s", d, out)
		}
	}
	// Only a hang: Want names the limit that must end the case (or the case never ends by
	// itself), and a loaded machine can take many times a case's timeout to get there.
	if d := time.Since(start); d > harness.Backstop {
		t.Errorf("took %v (backstop %v)", d, harness.Backstop)
	}
	w.oracles(t, from, script)
}

// The 100 MB script: a tool whose script file is far over the script size limit.
func TestHugeScript(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{
		"tools/big/tool.meta.json": `{"name":"big","description":"huge","inputSchema":{"type":"object"}}`,
	})
	p := filepath.Join(w.root, "tools", "big", "tool.sh")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("#!/usr/bin/env bash\necho started\n# "); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()
	w.start(t)
	from := len(w.c.Lines())
	m := w.c.Call("tools/call", map[string]any{"name": "big", "arguments": map[string]any{}})
	if out := text(m); !strings.Contains(out, "script exceeds") {
		t.Errorf("T-DOS-1/huge-script: got %.500s", out)
	}
	w.oracles(t, from, "")
}

// TestCallStateIsolation: functions, exports, traps, cwd, options and scratch files of one call
// are invisible to the next, and two concurrent calls cannot see each other's scratch roots.
func TestCallStateIsolation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.start(t, "MCPBASH_PROJECT_ROOT_WRITABLE=true") // the calls leave notes in data/
	from := len(w.c.Lines())
	first := `leakf(){ echo leaked-func; }; export LEAKVAR=leaked-env; LEAKSHELL=leaked-shell; trap 'echo leaked-trap' EXIT; cd data; alias ll='echo leaked-alias'; set -o noglob; umask 077; echo scratch > "$HOME/mine"; echo "$HOME" > {{ROOT}}/data/home1; echo first`
	if out := text(w.call(t, "sh", w.expand(first), 0)); !strings.Contains(out, "first") {
		t.Fatalf("T-ISO-2/sequential-state: first call: %s", out)
	}
	second := `type leakf 2>&1; echo "v=${LEAKVAR-unset} s=${LEAKSHELL-unset}"; pwd; trap -p; alias; echo d*; umask; cat "$(cat data/home1)/mine" 2>&1; ls "$HOME"`
	out := text(w.call(t, "sh", second, 0))
	for _, leak := range []string{"leaked-func", "leaked-env", "leaked-shell", "leaked-trap", "leaked-alias", "/data\n", "0077", "scratch\n"} {
		if strings.Contains(out, leak) {
			t.Errorf("T-ISO-2/sequential-state: %q visible to the next call:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, "v=unset s=unset") || !strings.Contains(out, "data") {
		t.Errorf("T-ISO-2/sequential-state: unexpected second call:\n%s", out)
	}

	// Concurrent: A keeps a secret in its scratch root while B looks for it.
	var wg sync.WaitGroup
	wg.Add(1)
	var outA string
	go func() {
		defer wg.Done()
		outA = text(w.call(t, "sh", w.expand(`echo a-secret > "$HOME/a.txt"; echo "$HOME" > {{ROOT}}/data/homeA; sleep 2; cat "$HOME/a.txt"`), 0))
	}()
	deadline := time.Now().Add(harness.Backstop)
	for {
		if b, err := os.ReadFile(filepath.Join(w.root, "data", "homeA")); err == nil && len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("call A did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	outB := text(w.call(t, "sh", `h=$(cat data/homeA); cat "$h/a.txt"; ls "$h" "$h/.." "$HOME/.." 2>&1; find "$h/.." 2>&1 | head; cp "$h/a.txt" data/stolen; echo b-done`, 0))
	wg.Wait()
	if strings.Contains(outB, "a-secret") || strings.Contains(outB, "\na.txt") {
		t.Errorf("T-ISO-2/concurrent-scratch: call B saw call A's scratch:\n%s", outB)
	}
	if !strings.Contains(outA, "a-secret") {
		t.Errorf("T-ISO-2/concurrent-scratch: call A lost its own file: %s", outA)
	}
	if _, err := os.Stat(filepath.Join(w.root, "data", "stolen")); err == nil {
		t.Error("T-ISO-2/concurrent-scratch: call B copied call A's file")
	}
	w.oracles(t, from, w.expand(first))
	w.scratchDrained(t)
}

// TestProjectMetadataTampering (T-FS-5): with the project as a read-write root (the default), a
// tool must not be able to rewrite project metadata that decides what later calls may do.
func TestProjectMetadataTampering(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.start(t, "MCP_TOOLS_TTL=0")
	from := len(w.c.Lines())
	meta := filepath.Join(w.root, "tools", "sh", "tool.meta.json")
	before, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	script := `m=$(jq -c '.sandbox={allowCommands:["bash","sh","id"]}' tools/sh/tool.meta.json) && echo "$m" > tools/sh/tool.meta.json; echo rc=$?; ` +
		`ln -s . self; echo ln=$?; echo '#!/bin/sh' > tools/evil.sh; echo new=$?; ` +
		`mkdir -p config; echo '{"roots":[{"path":"/"}]}' > config/roots.json; echo roots=$?`
	out := text(w.call(t, "sh", script, 0))
	for _, want := range []string{"rc=1", "ln=1", "new=1", "roots=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("T-FS-5: want %s in %q", want, out)
		}
	}
	w.c.Call("tools/list", nil) // let the registry notice any change
	// bash now runs as a new sandboxed shell (same version string as the host's), so the oracle
	// is what only the host's bash can do: read the kernel's view of itself.
	out = text(w.call(t, "sh", "bash -c 'test -r /proc/self/status && echo HOSTBASH-REAL'; echo rc=$?", 0))
	w.oracles(t, from, script)
	if strings.Contains(out, "HOSTBASH-REAL") {
		t.Errorf("T-FS-5: a sandboxed tool rewrote its own tool.meta.json inside the read-write project root "+
			"to allowlist bash, and the next call ran host bash: %q", out)
	}
	if after, _ := os.ReadFile(meta); !bytes.Equal(after, before) {
		t.Errorf("T-FS-5: a sandboxed tool rewrote its own tool.meta.json: %s", after)
	}
	if _, err := os.Stat(filepath.Join(w.root, "tools", "evil.sh")); err == nil {
		t.Error("T-FS-5: a sandboxed tool added a file to tools/")
	}
	if _, err := os.Stat(filepath.Join(w.root, "config")); err == nil {
		t.Error("T-FS-5: a sandboxed tool created config/ (config/roots.json widens later calls' roots)")
	}
}
