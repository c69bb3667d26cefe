package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// nativeCorpus runs in real bash under Landlock (a tool with "exec":"native", allowlisted with
// MCPBASH_TOOL_ALLOWLIST): the file and network families. {{PORT}} is a loopback listener.
var nativeCorpus = []attack{
	// /etc/passwd is one of the host facts native mode grants (native.HostInfo); /etc/hosts is not.
	{ID: "T-EXEC-3/etc-hosts", Script: "cat /etc/hosts; echo rc=$?", Want: `rc=1`, Deny: []string{"localhost"}},
	{ID: "T-EXEC-3/dotdot-canary", Script: "cd {{DATA}} && cat {{REL}}/secret.txt ../../../../../../../..{{OUT}}/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/prefix-sibling", Script: "cat {{EVIL}}/secret.txt; cat {{ROOT}}/../$(basename {{EVIL}})/secret.txt; ls {{EVIL}}; echo rc=$?", Want: `rc=[12]`},
	{ID: "T-EXEC-3/created-symlink", Script: "cd {{DATA}} && ln -s /etc/hosts x; ln -s {{OUT}}/secret.txt y; cat x y; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/relative-symlink-chain", Script: "cd {{DATA}} && ln -s . s1; ln -s s1/.. s2; ln -s s2/.. s3; ln -s s3/{{REL}} s4; cat s4/secret.txt s3/../../../../../../..{{OUT}}/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/planted-relative-chain", Script: "cat {{DATA}}/c1/secret.txt; ls {{DATA}}/c1; echo rc=$?", Want: `rc=2`},
	{ID: "T-EXEC-3/planted-symlink-readonly-root", Script: "cat {{TOOLDIR}}/planted {{TOOLDIR}}/planted-dir/secret.txt; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/hard-link-out", Script: "ln {{OUT}}/secret.txt {{DATA}}/hl; cat {{DATA}}/hl; ln {{DATA}}/inside.txt {{OUT}}/hl2; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/redirect-tmp", Script: "echo x > /tmp/sh-interp-x; echo x > {{TMPNAME}}; exec 3>{{TMPNAME}}; echo rc=$?", Want: `(?s).*`},
	{ID: "T-EXEC-3/dangling-symlink-write", Script: "cd {{DATA}} && ln -s {{TMPNAME}} d; echo x > d; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/write-readonly-root", Script: "echo x >> {{TOOLDIR}}/tool.sh; echo y > {{TOOLDIR}}/new; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/glob-etc-root", Script: "echo /etc/* /root/.* {{HOSTHOME}}/*", Want: `^/etc/\* /root/\.\* `, Deny: []string{"/etc/passwd", "/root/.bashrc"}},
	// access(2) is not mediated by Landlock, so `[ -r ]` may say yes; reading must still fail.
	{ID: "T-EXEC-3/test-etc-shadow", Script: "[ -r /etc/shadow ] && head -c 64 /etc/shadow; [ -r /etc/hosts ] && head -c 64 /etc/hosts; echo done", Want: `^done`},
	{ID: "T-EXEC-3/proc-environ", Script: "cat /proc/self/environ /proc/1/environ /proc/$PPID/environ; echo rc=$?", Want: `rc=1`},
	{ID: "T-EXEC-3/environment", Script: "env; set; declare -p", Want: `MCP_TOOL_NAME=nat`, Deny: []string{"SECRET_TOKEN", "AWS_SECRET"}},
	{ID: "T-EXEC-3/procsubst", Script: "cat <(echo hi)", Want: `^hi`},
	{ID: "T-EXEC-3/signal-server", Script: "kill -0 $PPID; echo rc=$?; kill -STOP $PPID; kill -9 $PPID 1; echo done", Want: `rc=1`},
	{ID: "T-EXEC-3/stdout-injection", Script: `echo '{"jsonrpc":"2.0","id":987654,"result":{}}' > /dev/stdout; echo '{"jsonrpc":"2.0","id":987654,"result":{}}' >&2; echo done`, Want: `done`},
	{ID: "T-EXEC-3/tcp-connect", Script: "if exec 3<>/dev/tcp/127.0.0.1/{{PORT}}; then head -n1 <&3; else echo refused; fi", Want: `refused`, Deny: []string{"hello-from-listener"}},
	{ID: "T-EXEC-3/tcp-connect-localhost", Script: "(echo > /dev/tcp/localhost/{{PORT}}) && echo connected || echo refused", Want: `refused`},
	{ID: "T-DOS-1/native-busy-loop", Script: "while :; do :; done", Want: `timed out`, Timeout: 2},
	{ID: "T-DOS-1/native-sleep", Script: "sleep 99999 & sleep 99999", Want: `timed out`, Timeout: 1},
	{ID: "T-DOS-1/native-yes", Script: "yes", Want: `output exceeded|exceeded`, Timeout: backstop},
}

// TestNativeCorpus runs the native cases. It needs Landlock (ABI 4+ for the network family).
func TestNativeCorpus(t *testing.T) {
	t.Parallel()
	if abi, err := sandbox.LandlockStatus(); abi < 4 {
		t.Skipf("Landlock ABI %d (%v): native confinement cases need ABI 4+", abi, err)
	}
	listenPort := harness.GreetingListener(t, "hello-from-listener\n")
	w := newWorld(t, map[string]string{
		"tools/nat/tool.sh":        evalTool,
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native snippet","exec":"native","inputSchema":` + schema() + `}`,
	})
	w.toolDir = filepath.Join(w.root, "tools", "nat")
	w.native = true
	w.passwd = "" // a host fact native tools read (native.HostInfo): id, whoami, ls -l
	mustSymlink(t, filepath.Join(w.outside, "secret.txt"), filepath.Join(w.toolDir, "planted"))
	mustSymlink(t, w.outside, filepath.Join(w.toolDir, "planted-dir"))
	rel, _ := filepath.Rel(filepath.Join(w.root, "data"), w.outside)
	mustSymlink(t, "c2", filepath.Join(w.root, "data", "c1"))
	mustSymlink(t, rel, filepath.Join(w.root, "data", "c2"))
	w.start(t, "MCPBASH_TOOL_ALLOWLIST=nat", "MCPBASH_ROOTS=data", "MCPBASH_REQUIRE_CONFINEMENT=true")
	port := fmt.Sprint(listenPort)
	for _, tc := range nativeCorpus {
		tc.Script = strings.ReplaceAll(tc.Script, "{{PORT}}", port)
		t.Run(tc.ID, func(t *testing.T) { runCase(t, w, "nat", tc) })
	}
}

// TestNativeRootSwappedForSymlink (T-FS-12): Landlock opens a rule's path following links, so
// a root replaced by a symlink after it was given would grant a native tool the link's target
// (here the host directory holding the canary). The confined child refuses to start instead.
func TestNativeRootSwappedForSymlink(t *testing.T) {
	t.Parallel()
	if abi, err := sandbox.LandlockStatus(); abi < 1 {
		t.Skipf("no Landlock (%v)", err)
	}
	w := newWorld(t, map[string]string{
		"tools/nat/tool.sh":        evalTool,
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native snippet","exec":"native","inputSchema":` + schema() + `}`,
	})
	w.start(t, "MCPBASH_TOOL_ALLOWLIST=nat", "MCPBASH_ROOTS=data", "MCPBASH_REQUIRE_CONFINEMENT=true")
	data := filepath.Join(w.root, "data")
	if out := text(w.answer(t, "nat", "cat "+data+"/inside.txt", 0)); !strings.Contains(out, "inside") {
		t.Fatalf("before the swap: %.500s", out)
	}
	if err := os.Rename(data, data+".old"); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, w.outside, data)
	defer func() {
		os.Remove(data)
		os.Rename(data+".old", data)
	}()
	if out := text(w.answer(t, "nat", "cat "+data+"/secret.txt; echo done", 0)); strings.Contains(out, fileCanary) {
		t.Errorf("after the swap the native tool read through the link: %.800s", out)
	}
}
