// Package arch holds the repository to its documented design (docs/ARCHITECTURE.md).
package arch

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

const module = "github.com/mcp-bash/mcp-bash/"

// layers is the layering of docs/ARCHITECTURE.md, top first: a package may import only packages
// of a lower layer (a larger number), never one of its own layer or above. A path ending in
// "/..." covers the folder and everything below it; the longest match wins.
var layers = []struct {
	layer int
	paths []string
}{
	{0, []string{"test/..."}},
	{1, []string{"cmd/mcp-bash", "examples/...", "deploy/..."}},
	{2, []string{"host"}},
	{3, []string{"host/internal/worker", "host/internal/auth/authtest"}},
	{4, []string{"host/internal/registry", "host/internal/bundle", "host/internal/scaffold", "host/internal/bootstrap",
		"host/internal/payloadlog", "host/internal/providers", "host/internal/native", "host/internal/auth",
		"host/internal/tenants", "host/internal/audit", "host/internal/metrics", "host/internal/changes"}},
	{5, []string{"host/internal/hooks"}},
	{6, []string{"host/internal/config", "host/internal/jsonrpc", "host/internal/sse", "host/internal/fairq", "host/internal/glob"}},
	{7, []string{"interp", "wasm"}},
	// The evaluator's own packages may import each other (Go forbids cycles among them).
	{8, []string{"interp/internal/..."}},
	{9, []string{"sdk"}},
	{10, []string{"sandbox/engine"}},
	// jq's bounds search regular expressions with the sandbox's stoppable matchers.
	{11, []string{"sdk/jqorder"}},
	{12, []string{"sandbox"}},
	{13, []string{"sandbox/internal/..."}},
	{14, []string{"sdk/wasmguest", "interp/udiff", "wasm/wasmtest", "test/harness"}},
}

// peersMayImport are the trees whose packages may import each other: the evaluator's packages
// are one room's internals, layered among themselves by Go's ban on cycles.
var peersMayImport = map[string]bool{"interp/internal/...": true}

// layerOf is the layer of a module package (its path without the module prefix), or -1.
func layerOf(pkg string) (int, string) {
	best, match := -1, ""
	for _, l := range layers {
		for _, p := range l.paths {
			ok := pkg == p
			if dir, tree := strings.CutSuffix(p, "/..."); tree {
				ok = pkg == dir || strings.HasPrefix(pkg, dir+"/")
			}
			if ok && len(p) > len(match) {
				best, match = l.layer, p
			}
		}
	}
	return best, match
}

// goBin is the go command: $GO (as the Makefile passes it), else go on PATH.
func goBin() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// TestLayering: `go list -deps` shows no package of ours importing one of its own layer or a
// layer above it, and every package of ours has a layer.
func TestLayering(t *testing.T) {
	cmd := exec.Command(goBin(), "list", "-deps", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}", "./...")
	cmd.Dir = harness.RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, "|")
		pkg, ours := strings.CutPrefix(path, module)
		if !ours {
			continue
		}
		from, _ := layerOf(pkg)
		if from < 0 {
			problems = append(problems, pkg+" has no layer: add it to docs/ARCHITECTURE.md and test/arch/layers_test.go")
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			to, tree := layerOf(dep)
			if _, fromTree := layerOf(pkg); to == from && tree == fromTree && strings.HasSuffix(tree, "/...") && peersMayImport[tree] {
				continue
			}
			if to <= from {
				problems = append(problems, pkg+" (layer "+itoa(from)+") imports "+dep+" (layer "+itoa(to)+")")
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestLayeringIsDocumented: docs/ARCHITECTURE.md names every path of the table above.
func TestLayeringIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		for _, p := range l.paths {
			if !strings.Contains(string(doc), "`"+strings.TrimSuffix(p, "/...")) {
				t.Errorf("docs/ARCHITECTURE.md does not name %s (layer %d)", p, l.layer)
			}
		}
	}
}

func itoa(n int) string {
	if n < 0 {
		return "none"
	}
	return strconv.Itoa(n)
}
