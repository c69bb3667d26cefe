package host

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/metrics"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// tenantOf resolves id under a tenants file given as JSON ({DIR} is replaced by dir).
func tenantOf(t *testing.T, dir, doc, id string) *tenants.Tenant {
	t.Helper()
	f, err := tenants.Parse([]byte(strings.ReplaceAll(doc, "{DIR}", dir)))
	if err != nil {
		t.Fatal(err)
	}
	tn, err := tenants.NewStatic(f).Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

// TestNarrowTenantRoots: a call's roots never leave its tenant's, whatever the client names.
func TestNarrowTenantRoots(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/sub", "b", "shared"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tn := tenantOf(t, dir, `{"version":1,"default":{"roots":[{"path":"{DIR}/{tenant}"},{"path":"{DIR}/shared","readOnly":true}]}}`, "a")
	root := func(p string) engine.Root { return engine.Root{Path: filepath.Join(dir, p)} }
	for _, tc := range []struct {
		name   string
		client []engine.Root
		want   []string // paths relative to dir; "ro:" marks read-only
	}{
		{"none: the tenant's", nil, []string{"a", "ro:shared"}},
		{"inside", []engine.Root{root("a/sub")}, []string{"a/sub"}},
		{"another tenant's", []engine.Root{root("b")}, nil},
		{"containing: the tenant's roots", []engine.Root{{Path: dir}}, []string{"a", "ro:shared"}},
		{"a shared root stays read-only", []engine.Root{root("shared")}, []string{"ro:shared"}},
		{"filesystem root", []engine.Root{{Path: "/"}}, []string{"a", "ro:shared"}},
		{"dot-dot", []engine.Root{{Path: filepath.Join(dir, "a", "..", "b")}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range narrowRoots(tn, tc.client) {
				rel, _ := filepath.Rel(dir, r.Path)
				if r.ReadOnly {
					rel = "ro:" + rel
				}
				got = append(got, rel)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("roots %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTenantLists: commands and wasm modules of a tenant.
func TestTenantLists(t *testing.T) {
	dir := t.TempDir()
	doc := `{"version":1,"default":{"roots":[{"path":"{DIR}","readOnly":true}]},"tenants":{"ops":{"commands":["git"],"wasm":["tally"]},"none":{"wasm":[]}}}`
	ops, none, other := tenantOf(t, dir, doc, "ops"), tenantOf(t, dir, doc, "none"), tenantOf(t, dir, doc, "x")
	if got := tenantCommands(ops, []string{"git", "curl"}); !slices.Equal(got, []string{"git"}) {
		t.Errorf("ops commands %v", got)
	}
	if got := tenantCommands(other, []string{"git"}); got != nil {
		t.Errorf("a tenant without a command list got %v", got)
	}
	wasmTool := func(name string) *registry.Tool {
		return &registry.Tool{Name: name, Kind: registry.ToolWasm, Abs: "/p/tools/" + name + "/" + name + ".wasm"}
	}
	for _, tc := range []struct {
		tenant *tenants.Tenant
		tool   string
		want   bool
	}{{ops, "tally", true}, {ops, "other", false}, {none, "tally", false}, {other, "anything", true}} {
		if got := tenantMayRun(tc.tenant, wasmTool(tc.tool)); got != tc.want {
			t.Errorf("tenant %s wasm tool %s: %v, want %v", tc.tenant.ID(), tc.tool, got, tc.want)
		}
	}
}

// TestTenantUsable: a tenant's roots may not lie inside the project, nor a read-write one
// contain it.
func TestTenantUsable(t *testing.T) {
	base := t.TempDir()
	srv := testServer(t, withHosting(&hosting{m: metrics.New(metrics.Options{}), log: slog.New(slog.DiscardHandler), usable: map[*tenants.Tenant]error{}}))
	project := srv.cfg.Dirs.Root
	outside := filepath.Join(base, "t")
	for _, d := range []string{outside, filepath.Join(project, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, roots string
		ok          bool
	}{
		{"outside", `[{"path":"` + outside + `"}]`, true},
		{"inside the project", `[{"path":"` + filepath.Join(project, "data") + `","readOnly":true}]`, false},
		{"containing the project, read-write", `[{"path":"` + filepath.Dir(project) + `"}]`, false},
		{"containing the project, read-only", `[{"path":"` + filepath.Dir(project) + `","readOnly":true}]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tn := tenantOf(t, base, `{"version":1,"tenants":{"a":{"roots":`+tc.roots+`}}}`, "a")
			if err := srv.tenantUsable(tn); (err == nil) != tc.ok {
				t.Errorf("tenantUsable = %v, want ok %v", err, tc.ok)
			}
		})
	}
}
