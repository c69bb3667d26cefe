package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// TestCheckManifest: what an engine reports of a layer is held to the call's read-write roots
// before anything of it is read or written.
func TestCheckManifest(t *testing.T) {
	rw := map[string][]string{"/r": {"tools"}}
	ok := sandbox.LayerRoot{Path: "/r", Entries: []sandbox.Entry{{Path: "a/b", Kind: "file", Data: "f12"}, {Path: "a/l", Kind: "symlink", Target: "../x"},
		{Path: "m", Kind: "file", Origin: "a/b", From: "a/b"}}, Base: []sandbox.Base{{Path: "a/b"}}}
	for _, tc := range []struct {
		name   string
		mutate func(r *sandbox.LayerRoot)
		want   string
	}{
		{"fine", func(*sandbox.LayerRoot) {}, ""},
		{"another root", func(r *sandbox.LayerRoot) { r.Path = "/etc" }, "not a read-write root"},
		{"climbs", func(r *sandbox.LayerRoot) { r.Entries[0].Path = "../etc/passwd" }, "path"},
		{"absolute", func(r *sandbox.LayerRoot) { r.Entries[0].Path = "/etc/passwd" }, "path"},
		{"unclean", func(r *sandbox.LayerRoot) { r.Entries[0].Path = "a/../tools/x" }, "path"},
		{"the root itself", func(r *sandbox.LayerRoot) { r.Entries[0].Path = "." }, "path"},
		{"origin outside", func(r *sandbox.LayerRoot) { r.Entries[2].Origin = "../../secret" }, "path"},
		{"base outside", func(r *sandbox.LayerRoot) { r.Base[0].Path = "../x" }, "path"},
		{"data elsewhere", func(r *sandbox.LayerRoot) { r.Entries[0].Data = "../../../etc/shadow" }, "data file"},
		{"link out", func(r *sandbox.LayerRoot) { r.Entries[1].Target = "../../x" }, "link"},
		{"absolute link", func(r *sandbox.LayerRoot) { r.Entries[1].Target = "/etc" }, "link"},
		{"link climbs after a name", func(r *sandbox.LayerRoot) { r.Entries[1].Target = "x/../../y" }, "link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			r.Entries = append([]sandbox.Entry(nil), ok.Entries...)
			r.Base = append([]sandbox.Base(nil), ok.Base...)
			r.Protected = []string{"engine says nothing is protected"}
			tc.mutate(&r)
			m := &sandbox.LayerManifest{Roots: []sandbox.LayerRoot{r}}
			err := checkManifest(m, rw)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want %q, got %v", tc.want, err)
			case tc.want == "" && strings.Join(m.Roots[0].Protected, ",") != "tools":
				t.Fatalf("protected paths are the engine's: %v", m.Roots[0].Protected)
			}
		})
	}
}

// TestWriteModeFloors: review when the operator, the project, the tool or the tenant asks; a
// tool cannot lower a floor; a typo is review.
func TestWriteModeFloors(t *testing.T) {
	tool := func(mode string) *registry.Tool {
		t := &registry.Tool{Meta: map[string]json.RawMessage{}}
		if mode != "" {
			t.Meta["writeMode"] = json.RawMessage(`"` + mode + `"`)
		}
		return t
	}
	for _, tc := range []struct {
		operator, project, tool string
		tenant                  bool
		want                    string
	}{
		{"direct", "", "", false, WriteDirect},
		{"direct", "", "direct", false, WriteDirect},
		{"direct", "", "review", false, WriteReview},
		{"direct", "", "reveiw", false, WriteReview},
		{"review", "", "direct", false, WriteReview},
		{"direct", "review", "direct", false, WriteReview},
		{"direct", "", "direct", true, WriteReview},
	} {
		srv := &Server{}
		srv.cfg.Settings = &config.Config{WriteMode: tc.operator}
		srv.cfg.Meta.WriteMode = tc.project
		var sc scope = operatorScope{srv}
		if tc.tenant {
			sc = &tenantScope{srv: srv, t: reviewTenant(t)}
		}
		if got := srv.writeMode(tool(tc.tool), sc); got != tc.want {
			t.Errorf("%+v: %s", tc, got)
		}
	}
}

// reviewTenant is a tenant whose tenants-file entry says "writeMode": "review".
func reviewTenant(t *testing.T) *tenants.Tenant {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "tenants.json")
	doc := `{"version":1,"tenants":{"acme":{"roots":[{"path":"` + dir + `"}],"writeMode":"review"}}}`
	if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := tenants.Open(f, tenants.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tn, err := st.Lookup("acme")
	if err != nil {
		t.Fatal(err)
	}
	return tn
}
