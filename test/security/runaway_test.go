package security

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestRunawayUtilitiesAndSIGTERM (T-DOS-7): with a utility running away inside a call whose
// timeout is far off, SIGTERM still ends the server: the utility notices its call's end. The
// deadlines only catch a server that never exits (the call's own timeout is ten minutes).
func TestRunawayUtilitiesAndSIGTERM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, script string }{
		{"sed-branch-loop", `sed ':a;ba' <<< x`},
		{"sed-hold-space", `sed -n 'H;$p' < <(yes)`},
		{"awk-loop", `awk 'BEGIN { while (1) ; }'`},
		{"awk-recursion", `awk 'function f(n) { return f(n + 1) } BEGIN { f(0) }'`},
		{"jq-repeat", `jq -n 'repeat(1)' >/dev/null`},
		{"diff-quadratic", `seq 1 40000 > "$TMPDIR/a"; sort -rn "$TMPDIR/a" > "$TMPDIR/b"; : > {{DATA}}/started-2; diff "$TMPDIR/a" "$TMPDIR/b"`},
		{"sort-endless", `yes | sort`},
		{"grep-link-loop", `cd "$TMPDIR" && ln -s . l1 && ln -s . l2 && grep -R needle .`},
		{"cat-endless", `yes | cat >/dev/null`},
		{"xargs-endless", `yes | xargs true`},
	} {
		for _, mode := range []string{"inproc", "process"} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, nil)
				w.start(t, "MCPBASH_ROOTS=data", "MCPBASH_ISOLATION="+mode)
				marker := filepath.Join(w.root, "data", "started")
				script := ": > {{DATA}}/started; " + tc.script
				if strings.Contains(tc.script, "started-2") {
					marker += "-2" // the runaway part starts after a slow set-up
				}
				w.c.Send(`{"jsonrpc":"2.0","id":"runaway","method":"tools/call","params":{"name":"sh","timeoutSecs":600,"arguments":{"script":` +
					jsonString(w.expand(script)) + `}}}`)
				for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(marker); err == nil {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the call never started; stderr:\n%s", w.c.Stderr())
					}
				}
				if err := harness.TerminatePid(w.c.Pid()); err != nil {
					t.Fatal(err)
				}
				w.c.Wait(2 * time.Minute) // fails the test if the server does not exit
				if se := w.c.Stderr(); crashRE.MatchString(se) {
					t.Errorf("crash on the way out:\n%.2000s", se)
				}
			})
		}
	}
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
