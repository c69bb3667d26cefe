package security

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reviewTenants puts tenant "r" in review mode; "d" writes directly.
const reviewTenants = `{"version": 1,
 "default": {"roots": [{"path": "{TENANTS}/{tenant}", "name": "work", "create": true}],
             "commands": [], "limits": {"callsPerMinute": 100000, "timeoutSecs": 20}},
 "tenants": {"r": {"writeMode": "review"}, "d": {}}}`

// TestTenantReview: a tenant's "writeMode": "review" holds its calls' writes (in its worker
// processes, confined), in sessions and in stateless requests alike; its tools cannot reach the
// change store; the operator commits with MCPBASH_OPERATOR_TOKEN, which no tenant key opens, and
// the audit log says who decided what.
func TestTenantReview(t *testing.T) {
	store := filepath.Join(t.TempDir(), "changes")
	operator := strings.Repeat("op", 20)
	w := newTenantWorld(t, []string{"r", "d"}, reviewTenants, "MCPBASH_CHANGES_DIR="+store, "MCPBASH_OPERATOR_TOKEN="+operator)
	changesOf := func(r reply) (status, id string) {
		var res struct {
			Meta struct {
				Changes struct{ Status, ID string } `json:"mcpbash/changes"`
			} `json:"_meta"`
		}
		json.Unmarshal(r.Msg.Result, &res)
		return res.Meta.Changes.Status, res.Meta.Changes.ID
	}
	rw, dw := filepath.Join(w.tenants, "r"), filepath.Join(w.tenants, "d")
	r := w.client(t, "r")
	r.open()
	rep := r.eval(`cd "${MCP_ROOTS_PATHS%%$'\n'*}" && echo held > held.txt && cat held.txt && ls ` + store + ` 2>&1`)
	status, id := changesOf(rep)
	if status != "pending" || !strings.Contains(string(rep.Msg.Result), "held") {
		t.Fatalf("review tenant: %s", rep.Body)
	}
	if out := string(rep.Msg.Result); strings.Contains(out, "layers") || !strings.Contains(out, "No such file or directory") {
		t.Fatalf("the tenant's tool sees the change store: %s", out)
	}
	if _, err := os.Stat(filepath.Join(rw, "held.txt")); err == nil {
		t.Fatal("the review tenant's write reached its root")
	}
	// A stateless request of the same tenant: held too (its set waits: the tool re-runs on every round).
	rep = r.statelessCall("tools/call", "eval", map[string]any{"name": "eval", "arguments": map[string]any{"script": `cd "${MCP_ROOTS_PATHS%%$'\n'*}" && echo also > stateless.txt`}}, nil)
	if st, _ := changesOf(rep); st != "pending" {
		t.Fatalf("stateless review call: %s", rep.Body)
	}
	// The direct tenant writes at once.
	d := w.client(t, "d")
	d.open()
	if rep := d.eval(`cd "${MCP_ROOTS_PATHS%%$'\n'*}" && echo direct > direct.txt`); rep.Msg.Error != nil {
		t.Fatalf("direct tenant: %s", rep.Body)
	}
	if b, _ := os.ReadFile(filepath.Join(dw, "direct.txt")); string(b) != "direct\n" {
		t.Fatalf("the direct tenant's write: %q", b)
	}
	// The operator endpoint: the tenant's key is refused, the operator's secret commits.
	do := func(method, path, token string) int {
		req, _ := http.NewRequest(method, w.srv.Base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := w.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := do("POST", "/changes/"+id+"/commit", w.keys["r"]); code != http.StatusUnauthorized {
		t.Fatalf("a tenant's key on the operator endpoint: %d", code)
	}
	if code := do("POST", "/changes/"+id+"/commit", operator); code != http.StatusOK {
		t.Fatalf("operator commit: %d", code)
	}
	if b, _ := os.ReadFile(filepath.Join(rw, "held.txt")); string(b) != "held\n" {
		t.Fatalf("after the operator's commit: %q", b)
	}
	audit, _ := os.ReadFile(w.audit)
	for _, want := range []string{`"event":"changes"`, `"action":"kept"`, `"action":"committed"`, `"tenant":"r"`, `"by":"operator: operator endpoint`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("audit log lacks %s:\n%s", want, audit)
		}
	}
}
