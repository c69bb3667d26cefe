package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// reviewProject is a project whose tool "edit" runs a snippet in review mode, and "plain" the
// same in direct mode; work is a root with a few files; store is MCPBASH_CHANGES_DIR.
type reviewProject struct {
	dir, work, store string
}

func newReviewProject(t *testing.T, extra map[string]string) reviewProject {
	t.Helper()
	files := map[string]string{
		"server.d/server.meta.json":  `{"name":"review"}`,
		"tools/edit/tool.sh":         "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/edit/tool.meta.json":  `{"name":"edit","description":"edit files","writeMode":"review","inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]},"sandbox":{"allowCommands":["python3"]}}`,
		"tools/plain/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/plain/tool.meta.json": `{"name":"plain","description":"edit files directly","writeMode":"direct","inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}}`,
	}
	for k, v := range extra {
		files[k] = v
	}
	p := reviewProject{dir: writeProject(t, files), work: harness.RealTempDir(t)}
	p.store = filepath.Join(harness.RealTempDir(t), "changes")
	harness.WriteFiles(t, p.work, map[string]string{"a.txt": "one\ntwo\n", "old.txt": "old\n", "keep/k.txt": "k\n"})
	return p
}

func (p reviewProject) env(more ...string) []string {
	return append([]string{"MCPBASH_ROOTS=" + p.work, "MCPBASH_CHANGES_DIR=" + p.store, "MCPBASH_DEFAULT_TOOL_TIMEOUT=120"}, more...)
}

func (p reviewProject) start(t *testing.T, caps map[string]any, env ...string) *harness.Client {
	c := harness.Start(t, harness.Options{Dir: p.dir, Env: p.env(env...)})
	c.Initialize("2025-11-25", caps)
	return c
}

// edits is what the tool does in the tests: append, create, delete.
func (p reviewProject) edits() string {
	return fmt.Sprintf(`cd %q && echo three >> a.txt && echo fresh > new.txt && rm old.txt && cat a.txt new.txt && ls`, p.work)
}

// snapshot is every entry below dir, one per line (harness.Tree).
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	tree := harness.Tree(t, dir)
	lines := make([]string, 0, len(tree))
	for k, v := range tree {
		lines = append(lines, k+" "+v)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// changesMeta is the result's _meta["mcpbash/changes"].
type changesMeta struct {
	Status, ID, Detail string
	Files              []struct{ Path, Change string }
}

func reviewOf(t *testing.T, m harness.Msg) changesMeta {
	t.Helper()
	var r struct {
		Meta struct {
			Changes changesMeta `json:"mcpbash/changes"`
		} `json:"_meta"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		t.Fatalf("not a result: %s", m.Raw)
	}
	return r.Meta.Changes
}

const committedWork = "a.txt file -rw-r--r-- \"one\\ntwo\\nthree\\n\"\nkeep dir -rwxr-xr-x\nkeep/k.txt file -rw-r--r-- \"k\\n\"\nnew.txt file -rw-r--r-- \"fresh\\n\"\n"

// TestReviewPending: without elicitation the call's writes wait as a change set; the call saw
// them, the root did not change; a person commits one with the CLI and discards another.
func TestReviewPending(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	before := snapshot(t, p.work)
	c := p.start(t, nil)
	m := c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": p.edits()}})
	rv := reviewOf(t, m)
	out := text(m)
	if rv.Status != "pending" || rv.ID == "" || !strings.Contains(out, "one\ntwo\nthree\nfresh\na.txt\nkeep\nnew.txt") {
		t.Fatalf("result %s", m.Raw)
	}
	for _, want := range []string{"wait as change set " + rv.ID, "M " + filepath.Join(p.work, "a.txt") + " (+1 -0)", "D " + filepath.Join(p.work, "old.txt"), "+three"} {
		if !strings.Contains(out, want) {
			t.Errorf("the result's text lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(string(m.Result), `"uri":"mcpbash://changes/`+rv.ID+`"`) {
		t.Errorf("no diff resource: %s", m.Raw)
	}
	if got := snapshot(t, p.work); got != before {
		t.Fatalf("the root changed before anyone approved:\n%s", got)
	}
	env := p.env()
	stdout, stderr, code := runCLI(t, p.dir, env, "changes", "list")
	if code != 0 || !strings.Contains(stdout, rv.ID) || !strings.Contains(stdout, "tool edit") {
		t.Fatalf("changes list: %d %s %s", code, stdout, stderr)
	}
	stdout, _, code = runCLI(t, p.dir, env, "changes", "list", "--json")
	var listed struct {
		Dir        string
		ChangeSets []struct {
			ID, Tool string
			Changes  int
		}
	}
	if json.Unmarshal([]byte(stdout), &listed) != nil || code != 0 || listed.Dir != p.store || len(listed.ChangeSets) != 1 ||
		listed.ChangeSets[0].ID != rv.ID || listed.ChangeSets[0].Changes != 3 {
		t.Fatalf("changes list --json: %d %s", code, stdout)
	}
	stdout, _, code = runCLI(t, p.dir, env, "changes", "show", rv.ID)
	if code != 0 || !strings.Contains(stdout, "--- a/a.txt") || !strings.Contains(stdout, "+three") {
		t.Fatalf("changes show: %d %s", code, stdout)
	}
	stdout, stderr, code = runCLI(t, p.dir, env, "changes", "commit", rv.ID)
	if code != 0 || !strings.Contains(stdout, "committed "+rv.ID) {
		t.Fatalf("changes commit: %d %s %s", code, stdout, stderr)
	}
	if got := snapshot(t, p.work); got != committedWork {
		t.Fatalf("after commit the root holds\n%s", got)
	}
	// Another call, discarded.
	committed := snapshot(t, p.work)
	m = c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": fmt.Sprintf("cd %q && rm -r keep && echo x > new.txt", p.work)}})
	rv = reviewOf(t, m)
	if _, _, code := runCLI(t, p.dir, env, "changes", "discard", rv.ID); code != 0 {
		t.Fatalf("discard: %d", code)
	}
	if got := snapshot(t, p.work); got != committed {
		t.Fatalf("a discarded set changed the root:\n%s", got)
	}
	if _, stderr, code := runCLI(t, p.dir, env, "changes", "commit", rv.ID); code != 1 || !strings.Contains(stderr, "no change set waits") {
		t.Fatalf("commit after discard: %d %s", code, stderr)
	}
	audit, _ := os.ReadFile(filepath.Join(p.store, "audit.log"))
	for _, want := range []string{`"action":"kept"`, `"action":"committed"`, `"kind":"cli"`, `"action":"discarded"`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("audit log lacks %s:\n%s", want, audit)
		}
	}
}

// TestReviewElicitation: the server asks the user once the tool has ended; approval commits,
// declining discards. The tool's own question during the call approves nothing.
func TestReviewElicitation(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	before := snapshot(t, p.work)
	c := p.start(t, map[string]any{"elicitation": map[string]any{"form": map[string]any{}}})
	call := func(id, script string) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": "edit",
			"arguments": map[string]any{"script": script}}})
		c.Send(string(b))
	}
	// Declined: nothing written, even though the tool itself asked and was told yes.
	call("d", `r=$(mcp_elicit_confirm 'Approve your own changes?'); echo "$r"; `+p.edits())
	own := answerElicitation(t, c, 0, `{"action":"accept","content":{"confirmed":true}}`)
	var ownID int
	json.Unmarshal(own.ID, &ownID)
	q := answerElicitation(t, c, ownID, `{"action":"decline"}`)
	var params struct {
		Mode, Message   string
		RequestedSchema map[string]any
	}
	json.Unmarshal(q.Params, &params)
	if params.Mode != "form" || !strings.Contains(params.Message, `The tool "edit" wants to change files`) || !strings.Contains(params.Message, "+three") {
		t.Fatalf("approval question %s", q.Raw)
	}
	res := c.Response(`"d"`)
	if rv := reviewOf(t, res); rv.Status != "discarded" {
		t.Fatalf("declined: %s", res.Raw)
	}
	if got := snapshot(t, p.work); got != before {
		t.Fatalf("a declined set changed the root:\n%s", got)
	}
	// Approved: written.
	var qid int
	json.Unmarshal(q.ID, &qid)
	call("a", p.edits())
	answerElicitation(t, c, qid, `{"action":"accept","content":{"approve":true}}`)
	res = c.Response(`"a"`)
	if rv := reviewOf(t, res); rv.Status != "committed" {
		t.Fatalf("approved: %s", res.Raw)
	}
	if got := snapshot(t, p.work); got != committedWork {
		t.Fatalf("after approval the root holds\n%s", got)
	}
}

// TestReviewModelCannotApprove: approval in the arguments or the request's _meta decides
// nothing; an operator floor holds a tool that asks for direct writes.
func TestReviewModelCannotApprove(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	before := snapshot(t, p.work)
	c := p.start(t, nil, "MCPBASH_WRITE_MODE=review")
	for _, tool := range []string{"edit", "plain"} {
		m := c.Call("tools/call", map[string]any{"name": tool, "arguments": map[string]any{"script": p.edits(), "approve": true, "action": "accept"},
			"_meta": map[string]any{"mcpbash/approve": true, "approve": true}})
		if rv := reviewOf(t, m); rv.Status != "pending" {
			t.Fatalf("%s: %s", tool, m.Raw)
		}
	}
	if got := snapshot(t, p.work); got != before {
		t.Fatalf("the root changed:\n%s", got)
	}
}

// TestReviewFloor: the project's server.meta.json puts every tool in review mode; without any
// setting a direct tool writes at once.
func TestReviewFloor(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, map[string]string{"server.d/server.meta.json": `{"name":"review","writeMode":"review"}`})
	c := p.start(t, nil)
	m := c.Call("tools/call", map[string]any{"name": "plain", "arguments": map[string]any{"script": fmt.Sprintf("echo x > %q/x", p.work)}})
	if rv := reviewOf(t, m); rv.Status != "pending" {
		t.Fatalf("project floor: %s", m.Raw)
	}
	q := newReviewProject(t, nil)
	c = q.start(t, nil)
	m = c.Call("tools/call", map[string]any{"name": "plain", "arguments": map[string]any{"script": fmt.Sprintf("echo x > %q/x", q.work)}})
	if rv := reviewOf(t, m); rv.Status != "" {
		t.Fatalf("direct: %s", m.Raw)
	}
	if b, _ := os.ReadFile(filepath.Join(q.work, "x")); string(b) != "x\n" {
		t.Fatalf("a direct tool did not write: %q", b)
	}
}

// TestReviewIsolation: review mode in worker processes (MCPBASH_ISOLATION=process), and a
// commit of what a worker's layer held.
func TestReviewIsolation(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	c := p.start(t, nil, "MCPBASH_ISOLATION=process")
	m := c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": p.edits()}})
	rv := reviewOf(t, m)
	if rv.Status != "pending" || !strings.Contains(text(m), "one\ntwo\nthree\nfresh") {
		t.Fatalf("result %s\n%s", m.Raw, c.Stderr())
	}
	if _, stderr, code := runCLI(t, p.dir, p.env(), "changes", "commit", rv.ID); code != 0 {
		t.Fatalf("commit: %s", stderr)
	}
	if got := snapshot(t, p.work); got != committedWork {
		t.Fatalf("after commit the root holds\n%s", got)
	}
}

// TestReviewRefusals: what review mode cannot hold is refused, loudly, with the fix.
func TestReviewRefusals(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	before := snapshot(t, p.work)
	c := p.start(t, nil, "MCPBASH_SANDBOX_ALLOW_COMMANDS=python3", "MCPBASH_CHANGES_MAX_PENDING=1")
	// A host command would write past the layer.
	m := c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": "python3 -c 'print(1)'; echo rc=$?"}})
	if out := text(m); !strings.Contains(out, "rc=126") || !strings.Contains(out, "host commands cannot run in review mode") {
		t.Errorf("host command: %s", m.Raw)
	}
	// The pending cap: the second set of the session is refused before the tool runs.
	m = c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": p.edits()}})
	if rv := reviewOf(t, m); rv.Status != "pending" {
		t.Fatalf("first: %s", m.Raw)
	}
	m = c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": "echo ran"}})
	if out := text(m); strings.Contains(out, "ran") || !strings.Contains(out, "MCPBASH_CHANGES_MAX_PENDING") {
		t.Errorf("over the cap: %s", m.Raw)
	}
	if got := snapshot(t, p.work); got != before {
		t.Fatalf("the root changed:\n%s", got)
	}
	// A store inside a root is refused.
	q := newReviewProject(t, nil)
	c = harness.Start(t, harness.Options{Dir: q.dir, Env: []string{"MCPBASH_ROOTS=" + q.work, "MCPBASH_CHANGES_DIR=" + filepath.Join(q.work, "changes")}})
	c.Initialize("2025-11-25", nil)
	m = c.Call("tools/call", map[string]any{"name": "edit", "arguments": map[string]any{"script": "echo hi"}})
	if m.Error == nil || !strings.Contains(m.Error.Message, "overlap") {
		t.Errorf("store in a root: %s", m.Raw)
	}
}

// TestReviewRunTool: run-tool --sandbox shows the change set and where it waits.
func TestReviewRunTool(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	args, _ := json.Marshal(map[string]any{"script": p.edits()})
	stdout, stderr, code := runCLI(t, p.dir, p.env(), "run-tool", "edit", "--sandbox", "--args", string(args))
	if code != 0 {
		t.Fatalf("run-tool: %d %s %s", code, stdout, stderr)
	}
	for _, want := range []string{"change set (pending", "M " + filepath.Join(p.work, "a.txt"), "+three", "mcp-bash changes commit"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run-tool --sandbox lacks %q:\n%s", want, stdout)
		}
	}
}

// TestReviewOperatorEndpoint: in hosting, the operator decides waiting sets over HTTP with
// MCPBASH_OPERATOR_TOKEN, and with nothing else (not the remote token a client holds).
func TestReviewOperatorEndpoint(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, nil)
	args, _ := json.Marshal(map[string]any{"script": p.edits()})
	if _, stderr, code := runCLI(t, p.dir, p.env(), "run-tool", "edit", "--args", string(args)); code != 0 {
		t.Fatalf("run-tool: %s", stderr)
	}
	operator, remote := strings.Repeat("o", 40), strings.Repeat("r", 40)
	s := harness.StartHTTP(t, harness.Options{Dir: p.dir, Env: p.env("MCPBASH_OPERATOR_TOKEN="+operator, "MCPBASH_REMOTE_TOKEN="+remote)})
	do := func(method, path, token string) (int, map[string]any) {
		req, _ := http.NewRequest(method, s.Base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	for _, tok := range []string{"", remote, operator + "x"} {
		if code, _ := do("GET", "/changes", tok); code != http.StatusUnauthorized {
			t.Errorf("token %q: %d", tok, code)
		}
	}
	code, body := do("GET", "/changes", operator)
	sets, _ := body["changeSets"].([]any)
	if code != 200 || len(sets) != 1 {
		t.Fatalf("list: %d %v", code, body)
	}
	id, _ := sets[0].(map[string]any)["id"].(string)
	if code, body := do("GET", "/changes/"+id, operator); code != 200 || body["tool"] != "edit" {
		t.Fatalf("show: %d %v", code, body)
	}
	if code, _ := do("GET", "/changes/../../etc", operator); code == 200 {
		t.Fatal("a path that is no id answered")
	}
	if code, body := do("POST", "/changes/"+id+"/commit", operator); code != 200 || body["committed"] != true {
		t.Fatalf("commit: %d %v", code, body)
	}
	if got := snapshot(t, p.work); got != committedWork {
		t.Fatalf("after commit the root holds\n%s", got)
	}
	if code, _ := do("POST", "/changes/"+id+"/discard", operator); code != http.StatusNotFound {
		t.Fatalf("discard after commit: %d", code)
	}
	audit, _ := os.ReadFile(filepath.Join(p.store, "audit.log"))
	if !strings.Contains(string(audit), `"kind":"operator"`) {
		t.Errorf("audit log:\n%s", audit)
	}
}

// nativeTool edits its root as real bash, checks it sees its own writes, leaves a process behind
// that would write later, and tries to reach what lies below its layer and the change store.
const nativeTool = `#!/usr/bin/env bash
cd "$ROOT" || exit 1
echo three >> a.txt
echo fresh > new.txt
rm old.txt
mkdir -p sub && echo in > sub/in.txt
ln -s a.txt link
[ "$(tail -n1 link)" = three ] && [ ! -e old.txt ] || { echo 'the call does not see its own writes' >&2; exit 1; }
setsid sh -c 'sleep 60; echo late > "$ROOT/late.txt"' "$MARK" >/dev/null 2>&1 &
ls "$STORE" >/dev/null 2>&1 && echo 'store visible'
umount "$ROOT" 2>/dev/null && echo 'unmounted'
echo done
`

// TestReviewNative: a native tool in review mode writes through overlays of its roots, where
// the platform has them (Linux: an overlay mount in a user namespace, Landlock): it sees its
// writes, the root does not change, what it left running ends with it, it cannot see the change
// store or unmount its layer. Elsewhere it is refused, with the fix.
func TestReviewNative(t *testing.T) {
	t.Parallel()
	p := newReviewProject(t, map[string]string{
		"tools/nat/tool.sh":        nativeTool,
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native","exec":"native","writeMode":"review","inputSchema":{"type":"object"}}`,
	})
	os.Chmod(filepath.Join(p.dir, "tools/nat/tool.sh"), 0o755)
	before := snapshot(t, p.work)
	mark := fmt.Sprintf("review-native-%d", os.Getpid())
	c := p.start(t, nil, "MCPBASH_TOOL_ALLOWLIST=nat", "MCPBASH_TOOL_ENV_MODE=allowlist", "MCPBASH_TOOL_ENV_ALLOWLIST=ROOT STORE MARK",
		"ROOT="+p.work, "STORE="+p.store, "MARK="+mark)
	m := c.Call("tools/call", map[string]any{"name": "nat", "arguments": map[string]any{}})
	if m.Error != nil {
		if !strings.Contains(m.Error.Message, "review mode") || !strings.Contains(m.Error.Message, "fix:") {
			t.Fatalf("refused without the fix: %s", m.Raw)
		}
		t.Logf("native review mode is not available here: %s", m.Error.Message)
		return
	}
	out, rv := text(m), reviewOf(t, m)
	if rv.Status != "pending" || !strings.Contains(out, "done") || strings.Contains(out, "store visible") || strings.Contains(out, "unmounted") {
		t.Fatalf("result %s", m.Raw)
	}
	if got := snapshot(t, p.work); got != before {
		t.Fatalf("the root changed before anyone approved:\n%s", got)
	}
	if _, stderr, code := runCLI(t, p.dir, p.env(), "changes", "commit", rv.ID); code != 0 {
		t.Fatalf("commit: %s", stderr)
	}
	got := harness.Tree(t, p.work)
	want := map[string]string{"a.txt": `file -rw-r--r-- "one\ntwo\nthree\n"`, "new.txt": `file -rw-r--r-- "fresh\n"`, "keep": "dir -rwxr-xr-x",
		"keep/k.txt": `file -rw-r--r-- "k\n"`, "sub": "dir -rwxr-xr-x", "sub/in.txt": `file -rw-r--r-- "in\n"`, "link": "link a.txt"}
	if d := harness.TreeDiff(want, got); d != "" {
		t.Fatalf("after commit:\n%s", d)
	}
	// The process the tool left behind ended with the call: the layer's PID namespace is
	// emptied before the call's first process is reaped, so none is left when it answers.
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), mark) {
			t.Fatalf("a process the native tool left behind still runs: %s %q", f, b)
		}
	}
}
