package security

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The cross-tenant suite (issue 20): the real binary serves Streamable HTTP on loopback with a
// tenants file and API keys; tenant A, running any script it likes in the sandbox (the eval
// tool), attacks tenant B through paths, symlinks, scratch directories, session ids,
// subscription URIs, completion, requestState, client roots and the logs. B's canary must never
// reach A, and every refusal must look exactly like the answer to something that does not exist.

const stateless = "2026-07-28"

// tenantWorld is a project served to tenants with their own directories under tenants/.
type tenantWorld struct {
	dir, project, tenants, shared, audit string
	srv                                  *harness.HTTPServer
	keys                                 map[string]string
	canary                               string
	http                                 *http.Client
	env                                  []string
}

// newTenantWorld serves a project to the tenants named in keys (id → nothing yet; keys are
// made here). tenantsJSON is the tenants file with {TENANTS} and {SHARED} placeholders.
func newTenantWorld(t *testing.T, ids []string, tenantsJSON string, env ...string) *tenantWorld {
	t.Helper()
	return newTenantWorldWith(t, worldOptions{ids: ids, tenantsJSON: tenantsJSON, env: env})
}

// worldOptions shape a tenant world beyond its tenants: a key id "b/2" is a second key of
// tenant b; scopes gives a key's scopes (default "mcp"); authJSON replaces server.d/auth.json
// (it must name "apiKeysFile": "api-keys"); tools adds tools (name → script body).
type worldOptions struct {
	ids         []string
	tenantsJSON string
	env         []string
	scopes      map[string]string
	authJSON    string
	tools       map[string]string
	// noStart leaves the server to the caller (w.start).
	noStart bool
}

func newTenantWorldWith(t *testing.T, o worldOptions) *tenantWorld {
	t.Helper()
	ids, tenantsJSON := o.ids, o.tenantsJSON
	bin := harness.Binary(t)
	dir := t.TempDir()
	w := &tenantWorld{dir: dir, project: filepath.Join(dir, "proj"), tenants: filepath.Join(dir, "tenants"),
		shared: filepath.Join(dir, "shared"), audit: filepath.Join(dir, "audit.log"), keys: map[string]string{}, canary: "CANARY-" + rand.Text()}
	for _, d := range []string{w.tenants, w.shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string, args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mcp-bash %v: %v\n%s", args, err, out)
		}
	}
	run(dir, "new", "proj")
	run(w.project, "scaffold", "prompt", "greet")
	run(w.project, "scaffold", "completion", "greet")
	run(w.project, "scaffold", "resource", "notes")
	tool := func(name, body string) {
		d := filepath.Join(w.project, "tools", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		meta := fmt.Sprintf(`{"name":%q,"description":"test tool","inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`, name)
		write(t, filepath.Join(d, "tool.meta.json"), meta)
		write(t, filepath.Join(d, "tool.sh"), "#!/usr/bin/env bash\nsource \"${MCP_SDK:?}/tool-sdk.sh\"\n"+body)
		if err := os.Chmod(filepath.Join(d, "tool.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// eval: the attacker's tool — any script, its output and errors in the result.
	tool("eval", `out="$(eval "$(mcp_args_get '.script')" 2>&1)" || true; mcp_result_success "$(mcp_json_obj out "$out")"`)
	// block: waits until the file "release" appears in the tenant's first root (an event the
	// test sends), so that calls can be held in flight without a clock.
	tool("block", `r="${MCP_ROOTS_PATHS%%$'\n'*}"; while [ ! -e "$r/release" ]; do sleep 0.02; done; mcp_result_success "$(mcp_json_obj released yes)"`)
	for name, body := range o.tools {
		tool(name, body)
	}
	var keyLines strings.Builder
	for _, id := range ids {
		k := "key-" + strings.ReplaceAll(id, "/", "-") + "-" + rand.Text() + rand.Text()
		w.keys[id] = k
		scopes := "mcp"
		if s, ok := o.scopes[id]; ok {
			scopes = s
		}
		tenant, _, _ := strings.Cut(id, "/")
		fmt.Fprintf(&keyLines, "%s %s %s\n", tenant, k, scopes)
	}
	write(t, filepath.Join(w.project, "server.d", "api-keys"), keyLines.String())
	authJSON := o.authJSON
	if authJSON == "" {
		authJSON = `{"apiKeysFile":"api-keys"}`
	}
	write(t, filepath.Join(w.project, "server.d", "auth.json"), authJSON)
	cfg := strings.NewReplacer("{TENANTS}", w.tenants, "{SHARED}", w.shared).Replace(tenantsJSON)
	write(t, filepath.Join(w.project, "server.d", "tenants.json"), cfg)
	w.http = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	t.Cleanup(w.http.CloseIdleConnections)
	w.env = append([]string{"MCPBASH_AUDIT_LOG=" + w.audit, "TMPDIR=" + t.TempDir()}, o.env...)
	if !o.noStart {
		w.start(t)
	}
	return w
}

// start serves the world's project.
func (w *tenantWorld) start(t *testing.T) {
	t.Helper()
	w.srv = harness.StartHTTP(t, harness.Options{Dir: w.project, Env: w.env})
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// client speaks JSON-RPC over the endpoint as one tenant.
type client struct {
	t   *testing.T
	w   *tenantWorld
	key string
	sid string // session id; "" for 2026-07-28 requests
	// version is the session's revision (MCP-Protocol-Version); "" means 2025-11-25.
	version string
	// hangup bounds each request (0: none): an answer held open past it is reported as
	// status -1, so that a regression that runs a call fails instead of hanging.
	hangup time.Duration
}

func (w *tenantWorld) client(t *testing.T, tenant string) *client {
	return &client{t: t, w: w, key: w.keys[tenant]}
}

type reply struct {
	Status int
	Body   []byte
	Msg    struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
}

// post sends one message; headers add to the defaults.
func (c *client) post(msg any, headers map[string]string) reply {
	c.t.Helper()
	b, _ := json.Marshal(msg)
	return c.raw(b, headers)
}

// raw sends body as it is; headers add to the defaults ("" deletes one).
func (c *client) raw(b []byte, headers map[string]string) reply {
	c.t.Helper()
	ctx := context.Background()
	if c.hangup > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.hangup)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.w.srv.URL, bytes.NewReader(b))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		v := c.version
		if v == "" {
			v = "2025-11-25"
		}
		req.Header.Set("Mcp-Protocol-Version", v)
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.w.http.Do(req)
	if err != nil && ctx.Err() != nil {
		return reply{Status: -1, Body: []byte("no answer within the hang-up bound: " + err.Error())}
	}
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var r reply
	r.Status = resp.StatusCode
	r.Body, err = io.ReadAll(resp.Body)
	if err != nil && ctx.Err() != nil {
		return reply{Status: -1, Body: append(r.Body, "... held open past the hang-up bound"...)}
	}
	if len(r.Body) > 0 {
		_ = json.Unmarshal(r.Body, &r.Msg)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.sid = sid
	}
	return r
}

// open starts a 2025-11-25 session (c.version's, when set).
func (c *client) open() {
	c.t.Helper()
	v := c.version
	if v == "" {
		v = "2025-11-25"
	}
	r := c.post(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": v, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}, nil)
	if r.Status != 200 || c.sid == "" {
		c.t.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	if r := c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, nil); r.Status != http.StatusAccepted {
		c.t.Fatalf("initialized: %d %s", r.Status, r.Body)
	}
}

// call sends a request in the session.
func (c *client) call(method string, params map[string]any) reply {
	c.t.Helper()
	return c.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, nil)
}

// statelessCall sends a 2026-07-28 request (no session) with caps as the client's capabilities.
func (c *client) statelessCall(method, name string, params map[string]any, caps map[string]any) reply {
	c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	p := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": stateless, "io.modelcontextprotocol/clientCapabilities": caps}}
	for k, v := range params {
		p[k] = v
	}
	h := map[string]string{"Mcp-Protocol-Version": stateless, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	save := c.sid
	c.sid = ""
	defer func() { c.sid = save }()
	return c.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p}, h)
}

// requestState makes a 2026-07-28 call of eval that asks for the client's roots and returns
// the requestState of its answer.
func (c *client) requestState(args, caps map[string]any) string {
	c.t.Helper()
	first := c.statelessCall("tools/call", "eval", map[string]any{"name": "eval", "arguments": args}, caps)
	var ir struct {
		RequestState string `json:"requestState"`
	}
	if json.Unmarshal(first.Msg.Result, &ir) != nil || ir.RequestState == "" {
		c.t.Fatalf("no requestState: %s", first.Body)
	}
	return ir.RequestState
}

// limitOf is the tenant limit that refused a call ("" when it was not refused by one).
func limitOf(r reply) string {
	if r.Msg.Error == nil || r.Msg.Error.Code != -32029 {
		return ""
	}
	var d struct {
		Limit string `json:"limit"`
	}
	_ = json.Unmarshal(r.Msg.Error.Data, &d)
	return d.Limit
}

// eval runs script as the client's tenant and returns the whole answer.
func (c *client) eval(script string) reply {
	c.t.Helper()
	return c.call("tools/call", map[string]any{"name": "eval", "arguments": map[string]any{"script": script}})
}

const twoTenants = `{"version": 1,
 "default": {"roots": [{"path": "{TENANTS}/{tenant}", "name": "work", "create": true},
                       {"path": "{SHARED}", "name": "shared", "readOnly": true}],
             "commands": [], "limits": {"callsPerMinute": 100000, "timeoutSecs": 20}},
 "tenants": {"a": {"prompts": {"deny": ["greet"]}, "resources": {"deny": ["notes"]}},
             "quota": {"limits": {"bytesWritten": 64, "outputBytes": 2000, "timeoutSecs": 1, "sessions": 2}},
             "small": {"limits": {"memoryMiB": 64, "timeoutSecs": 60}},
             "gone": {"disabled": true}}}`

func TestCrossTenant(t *testing.T) {
	w := newTenantWorld(t, []string{"a", "b", "gone", "stranger", "quota", "small"}, twoTenants)
	a, b := w.client(t, "a"), w.client(t, "b")
	a.open()
	b.open()
	bDir := filepath.Join(w.tenants, "b")
	secret := filepath.Join(bDir, "secret")
	// Positive control: B writes its canary through its own tool and reads it back, so the
	// suite can see a leak if there is one.
	if r := b.eval(fmt.Sprintf(`printf %%s %s > %s; cat %s`, w.canary, secret, secret)); !strings.Contains(string(r.Body), w.canary) {
		t.Fatalf("tenant b cannot use its own root: %s", r.Body)
	}
	// B's call leaves its tenant scratch directory behind (per-tenant scratch base).
	bScratch := b.eval(`printf %s "$TMPDIR"`)
	noLeak := func(t *testing.T, r reply) {
		t.Helper()
		if strings.Contains(string(r.Body), w.canary) {
			t.Fatalf("tenant b's canary reached tenant a: %s", r.Body)
		}
	}
	attacks := map[string]string{
		"absolute path":    `cat ` + secret,
		"relative path":    `cd "${MCP_ROOTS_PATHS%%$'\n'*}" && cat ../b/secret`,
		"dot-dot in root":  `cat "${MCP_ROOTS_PATHS%%$'\n'*}/../b/secret"`,
		"glob":             `cat ` + w.tenants + `/*/secret`,
		"listing":          `ls -la ` + bDir + `; ls ` + w.tenants,
		"symlink to file":  `r="${MCP_ROOTS_PATHS%%$'\n'*}"; ln -s ` + secret + ` "$r/l1"; cat "$r/l1"`,
		"symlink to dir":   `r="${MCP_ROOTS_PATHS%%$'\n'*}"; ln -s ` + bDir + ` "$r/l2"; cat "$r/l2/secret"`,
		"relative symlink": `r="${MCP_ROOTS_PATHS%%$'\n'*}"; ln -s ../b "$r/l3"; cat "$r/l3/secret"`,
		"scratch of b":     `t="$TMPDIR"; cat "${t%/a/*}/b/"*/* ; ls "${t%/a/*}/b" "${t%/a/*}"`,
		"proc":             `cat /proc/self/environ; cat /proc/1/environ`,
		"write into b":     `printf x > ` + bDir + `/planted; cat ` + bDir + `/planted`,
		"project files":    `cat ` + filepath.Join(w.project, "server.d", "api-keys"),
	}
	for name, script := range attacks {
		t.Run("path/"+name, func(t *testing.T) {
			r := a.eval(script)
			t.Logf("%s", r.Body)
			noLeak(t, r)
			if strings.Contains(string(r.Body), "key-b-") {
				t.Fatalf("tenant b's API key reached tenant a: %s", r.Body)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(bDir, "planted")); err == nil {
		t.Error("tenant a wrote into tenant b's root")
	}
	if !strings.Contains(string(bScratch.Body), "/b/") {
		t.Errorf("tenant b's scratch is not its own: %s", bScratch.Body)
	}

	t.Run("session id", func(t *testing.T) {
		// A presents B's session id: the same 404 as an id that never existed.
		stolen := &client{t: t, w: w, key: w.keys["a"], sid: b.sid}
		r1 := stolen.call("tools/list", map[string]any{})
		unknown := &client{t: t, w: w, key: w.keys["a"], sid: rand.Text()}
		r2 := unknown.call("tools/list", map[string]any{})
		if r1.Status != http.StatusNotFound || r1.Status != r2.Status || !bytes.Equal(r1.Body, r2.Body) {
			t.Fatalf("b's session as a: %d %s; unknown: %d %s", r1.Status, r1.Body, r2.Status, r2.Body)
		}
		// B's session still works (A's attempt did not end it).
		if r := b.call("tools/list", map[string]any{}); r.Status != 200 || r.Msg.Error != nil {
			t.Fatalf("b after the attempt: %d %s", r.Status, r.Body)
		}
	})

	t.Run("subscription and resource URIs", func(t *testing.T) {
		for _, m := range []string{"resources/read", "resources/subscribe"} {
			r := a.call(m, map[string]any{"uri": "file://" + secret})
			noLeak(t, r)
			if r.Msg.Error == nil {
				t.Fatalf("%s of b's file: %s", m, r.Body)
			}
		}
		// A resource hidden from A answers as a missing one.
		hidden := a.call("resources/read", map[string]any{"uri": "file://" + filepath.Join(w.project, "resources", "notes.txt")})
		missing := a.call("resources/read", map[string]any{"uri": "file://" + filepath.Join(w.project, "resources", "nothing.txt")})
		if hidden.Msg.Error == nil || missing.Msg.Error == nil || hidden.Msg.Error.Code != missing.Msg.Error.Code || hidden.Msg.Error.Message != missing.Msg.Error.Message {
			t.Fatalf("hidden resource: %s; missing: %s", hidden.Body, missing.Body)
		}
		if r := b.call("resources/read", map[string]any{"uri": "file://" + filepath.Join(w.project, "resources", "notes.txt")}); r.Msg.Error != nil {
			t.Fatalf("b cannot read the resource it sees: %s", r.Body)
		}
	})

	t.Run("lists and prompts", func(t *testing.T) {
		for _, m := range []string{"prompts/list", "resources/list"} {
			ra, rb := a.call(m, map[string]any{}), b.call(m, map[string]any{})
			if bytes.Contains(ra.Body, []byte(`"greet"`)) || bytes.Contains(ra.Body, []byte(`"notes"`)) {
				t.Errorf("%s shows a an item hidden from it: %s", m, ra.Body)
			}
			if !bytes.Contains(rb.Body, []byte(`"greet"`)) && !bytes.Contains(rb.Body, []byte(`"notes"`)) {
				t.Errorf("%s hides b's items: %s", m, rb.Body)
			}
		}
		hidden := a.call("prompts/get", map[string]any{"name": "greet"})
		missing := a.call("prompts/get", map[string]any{"name": "no-such-prompt"})
		if hidden.Msg.Error == nil || !bytes.Equal(hidden.Msg.Result, missing.Msg.Result) || hidden.Msg.Error.Message != missing.Msg.Error.Message {
			t.Fatalf("hidden prompt: %s; missing: %s", hidden.Body, missing.Body)
		}
	})

	t.Run("completion", func(t *testing.T) {
		ref := func(name string) map[string]any {
			return map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": name}, "argument": map[string]any{"name": "name", "value": "a"}}
		}
		hidden, missing := a.call("completion/complete", ref("greet")), a.call("completion/complete", ref("no-such-prompt"))
		if !bytes.Equal(hidden.Msg.Result, missing.Msg.Result) {
			t.Fatalf("completion of a hidden prompt differs from a missing one's: %s vs %s", hidden.Body, missing.Body)
		}
		if own := b.call("completion/complete", ref("greet")); !bytes.Contains(own.Body, []byte("alpha")) {
			t.Fatalf("b's completion provider did not run: %s", own.Body)
		}
	})

	t.Run("requestState", func(t *testing.T) {
		caps := map[string]any{"roots": map[string]any{}}
		args := map[string]any{"script": "printf hi"}
		state := b.requestState(args, caps)
		retry := map[string]any{"name": "eval", "arguments": args, "requestState": state,
			"inputResponses": map[string]any{"roots": map[string]any{"roots": []any{map[string]any{"uri": "file://" + bDir}}}}}
		stolen := a.statelessCall("tools/call", "eval", retry, caps)
		forged := a.statelessCall("tools/call", "eval", map[string]any{"name": "eval", "arguments": args, "requestState": state + "x",
			"inputResponses": retry["inputResponses"]}, caps)
		if stolen.Msg.Error == nil || stolen.Msg.Error.Code != -32602 || forged.Msg.Error == nil || stolen.Msg.Error.Message != forged.Msg.Error.Message {
			t.Fatalf("b's requestState as a: %s; forged: %s", stolen.Body, forged.Body)
		}
		if own := b.statelessCall("tools/call", "eval", retry, caps); own.Msg.Error != nil || !bytes.Contains(own.Body, []byte("hi")) {
			t.Fatalf("b's own retry: %s", own.Body)
		}
	})

	t.Run("client roots only narrow", func(t *testing.T) {
		caps := map[string]any{"roots": map[string]any{}}
		args := map[string]any{"script": `printf 'roots=%s\n' "$MCP_ROOTS_PATHS"; cat ` + secret}
		first := a.statelessCall("tools/call", "eval", map[string]any{"name": "eval", "arguments": args}, caps)
		var ir struct {
			RequestState string `json:"requestState"`
		}
		if json.Unmarshal(first.Msg.Result, &ir) != nil || ir.RequestState == "" {
			t.Fatalf("no roots question: %s", first.Body)
		}
		widen := []any{map[string]any{"uri": "file://" + bDir}, map[string]any{"uri": "file://" + w.tenants}, map[string]any{"uri": "file:///"}}
		r := a.statelessCall("tools/call", "eval", map[string]any{"name": "eval", "arguments": args, "requestState": ir.RequestState,
			"inputResponses": map[string]any{"roots": map[string]any{"roots": widen}}}, caps)
		noLeak(t, r)
		if bytes.Contains(r.Body, []byte(bDir)) && bytes.Contains(r.Body, []byte("roots="+bDir)) {
			t.Fatalf("a's client roots widened its roots to b's: %s", r.Body)
		}
		if !bytes.Contains(r.Body, []byte(filepath.Join(w.tenants, "a"))) {
			t.Fatalf("a client root containing a's root should yield it: %s", r.Body)
		}
	})

	t.Run("tenants not served", func(t *testing.T) {
		gone, stranger := w.client(t, "gone"), w.client(t, "stranger")
		r1 := gone.post(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}, nil)
		r2 := stranger.post(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}, nil)
		// "stranger" has a key but no entry and there is a default template: served.
		if r1.Status != http.StatusForbidden || r2.Status != 200 {
			t.Fatalf("disabled tenant: %d %s; templated tenant: %d %s", r1.Status, r1.Body, r2.Status, r2.Body)
		}
		none := &client{t: t, w: w, key: "key-nobody-" + rand.Text()}
		if r := none.call("tools/list", map[string]any{}); r.Status != http.StatusUnauthorized {
			t.Fatalf("unknown key: %d %s", r.Status, r.Body)
		}
	})

	t.Run("limits", func(t *testing.T) {
		q := w.client(t, "quota")
		q.open()
		r := q.eval(`r="${MCP_ROOTS_PATHS%%$'\n'*}"; printf '%0100d' 0 > "$r/big"; echo survived`)
		if !strings.Contains(string(r.Body), "wrote more than 64 bytes") || !strings.Contains(string(r.Body), `"isError":true`) || strings.Contains(string(r.Body), "survived") {
			t.Errorf("a write past bytesWritten: %s", r.Body)
		}
		r = q.call("tools/call", map[string]any{"name": "hello", "arguments": map[string]any{"name": strings.Repeat("x", 3000)}})
		if r.Msg.Error == nil && !strings.Contains(string(r.Body), `"isError":true`) {
			t.Errorf("output past outputBytes: %s", r.Body)
		}
		r = q.call("tools/call", map[string]any{"name": "block", "arguments": map[string]any{}})
		if !strings.Contains(strings.ToLower(string(r.Body)), "timed out") {
			t.Errorf("a call past timeoutSecs: %s", r.Body)
		}
		// memoryMiB is the heap limit of the tenant's workers: a script that builds a 128 MiB
		// string under a 64 MiB limit is stopped.
		small := w.client(t, "small")
		small.open()
		r = small.eval(`x=0123456789abcdef; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23; do x="$x$x"; done; printf 'len=%s' "${#x}"`)
		if !strings.Contains(strings.ToLower(string(r.Body)), "memory") || strings.Contains(string(r.Body), "len=134217728") {
			t.Errorf("a call past memoryMiB: %.400s", r.Body)
		}
	})

	t.Run("sessions per tenant", func(t *testing.T) {
		// quota's limits subtest holds one session; one more fits, the next is refused.
		second, third := w.client(t, "quota"), w.client(t, "quota")
		second.open()
		init := map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}
		r := third.post(init, nil)
		if r.Status != http.StatusTooManyRequests || r.Msg.Error == nil || r.Msg.Error.Code != -32029 || !strings.Contains(string(r.Msg.Error.Data), "sessions") {
			t.Fatalf("a third session: %d %s", r.Status, r.Body)
		}
		// Another tenant is not affected; ending a session frees its seat.
		w.client(t, "stranger").open()
		req, _ := http.NewRequest(http.MethodDelete, w.srv.URL, nil)
		req.Header.Set("Authorization", "Bearer "+second.key)
		req.Header.Set("Mcp-Session-Id", second.sid)
		resp, err := w.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", resp.StatusCode)
		}
		third.open()
	})

	t.Run("logs", func(t *testing.T) {
		data, err := os.ReadFile(w.audit)
		if err != nil {
			t.Fatal(err)
		}
		var sawA, sawB bool
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var rec struct {
				Tenant, Kind, Name, Outcome, ArgsSHA256 string `json:"-"`
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(line), &raw); err != nil {
				t.Fatalf("audit line %q: %v", line, err)
			}
			rec.Tenant, _ = raw["tenant"].(string)
			sawA = sawA || rec.Tenant == "a"
			sawB = sawB || rec.Tenant == "b"
			if _, ok := raw["args_sha256"]; !ok {
				t.Errorf("audit line without an arguments hash: %s", line)
			}
		}
		if !sawA || !sawB {
			t.Errorf("audit log lacks a's or b's calls:\n%s", data)
		}
		// Arguments are hashed, never logged: b's canary (in its script) is in neither log.
		for name, log := range map[string]string{"audit": string(data), "server": w.srv.Stderr()} {
			if strings.Contains(log, w.canary) {
				t.Errorf("the %s log holds b's canary", name)
			}
			if strings.Contains(log, w.keys["a"]) || strings.Contains(log, w.keys["b"]) {
				t.Errorf("the %s log holds an API key", name)
			}
		}
	})
}
