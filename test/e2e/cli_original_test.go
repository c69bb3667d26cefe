package e2e

import (
	"archive/zip"
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestOriginalCLIAccepted: every verb and flag of the original's CLI (recorded from its --help
// texts in testdata/original-cli.txt) is accepted: "VERB FLAG [VALUE] --help" parses the flag
// and prints that verb's help with exit 0, where an unknown flag exits 2 and an unknown verb
// prints the root's help.
func TestOriginalCLIAccepted(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "original-cli.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		var verb, flags []string
		for _, w := range fields {
			switch {
			case w == "(root)":
			case strings.HasPrefix(w, "-"):
				flags = append(flags, w)
			default:
				verb = append(verb, w)
			}
		}
		n += 1 + len(flags)
		t.Run(strings.Join(append([]string{"mcp-bash"}, verb...), " "), func(t *testing.T) {
			t.Parallel()
			probe := func(args ...string) {
				t.Helper()
				out, e, code := runCLI(t, dir, nil, append(append(append([]string{}, verb...), args...), "--help")...)
				// An unknown verb prints the root's help: the usage must name the verb itself (or
				// list it among its aliases: ready is health's).
				named := strings.Contains(out, strings.Join(append([]string{"mcp-bash"}, verb...), " "))
				if len(verb) > 0 && !named {
					_, aliases, _ := strings.Cut(out, "Aliases:\n")
					aliases, _, _ = strings.Cut(aliases, "\n")
					named = strings.Contains(", "+strings.TrimSpace(aliases)+",", " "+verb[len(verb)-1]+",")
				}
				if code != 0 || !strings.Contains(out, "Usage:") || !named {
					t.Errorf("mcp-bash %s %s --help: exit %d (the original accepts it)\n%s%s", strings.Join(verb, " "), strings.Join(args, " "), code, out, e)
				}
			}
			probe()
			for _, fl := range flags {
				if name, value, ok := strings.Cut(fl, "="); ok {
					probe(name, value)
				} else {
					probe(name)
				}
			}
		})
	}
	if n < 90 {
		t.Errorf("only %d verbs and flags in the recorded CLI", n)
	}
}

// The original's verbs our CLI lacked, run for real: vendor, publish, scaffold ui and test.
func TestVendorVerifyUpgrade(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{"server.d/server.meta.json": `{"name":"v"}`})
	bin := filepath.Join(root, ".mcp-bash", "bin", "mcp-bash")
	if out, e, code := runCLI(t, root, nil, "vendor", "--dry-run"); code != 0 || !strings.Contains(out, "nothing written") {
		t.Fatalf("dry run: %d %s %s", code, out, e)
	}
	if _, err := os.Stat(bin); err == nil {
		t.Fatal("--dry-run wrote the binary")
	}
	if _, e, code := runCLI(t, root, nil, "vendor"); code != 0 {
		t.Fatalf("vendor: %d %s", code, e)
	}
	if out, _, code := runCmd(t, root, nil, bin, "--version"); code != 0 || !strings.HasPrefix(out, "mcp-bash ") {
		t.Errorf("vendored binary: %d %s", code, out)
	}
	if _, e, code := runCLI(t, root, nil, "vendor", "--verify"); code != 0 {
		t.Errorf("verify: %d %s", code, e)
	}
	if _, e, code := runCLI(t, root, nil, "vendor"); code != 2 || !strings.Contains(e, "--upgrade") {
		t.Errorf("vendor over an existing copy: %d %s", code, e)
	}
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("tampered")
	f.Close()
	if _, e, code := runCLI(t, root, nil, "vendor", "--verify"); code != 1 || !strings.Contains(e, "does not match") {
		t.Errorf("verify after tampering: %d %s", code, e)
	}
	if _, e, code := runCLI(t, root, nil, "vendor", "--upgrade"); code != 0 {
		t.Fatalf("upgrade: %d %s", code, e)
	}
	if _, e, code := runCLI(t, root, nil, "vendor", "--verify"); code != 0 {
		t.Errorf("verify after upgrade: %d %s", code, e)
	}
}

func TestPublish(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"pub","version":"1.2.3","description":"d","author":"Ada"}`,
		"tools/t/tool.sh":           "#!/usr/bin/env bash\necho t\n", "tools/t/tool.meta.json": `{"name":"t","description":"t"}`,
	})
	out := filepath.Join(t.TempDir(), "pub.mcpb")
	if _, e, code := runCLI(t, root, nil, "bundle", "--output", out); code != 0 {
		t.Fatalf("bundle: %d %s", code, e)
	}
	var mu sync.Mutex
	var got struct {
		auth, name string
		body       []byte
	}
	status := http.StatusCreated
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/bundles" {
			http.NotFound(w, r)
			return
		}
		got.auth, got.name = r.Header.Get("Authorization"), r.Header.Get("X-Bundle-Name")
		got.body, _ = io.ReadAll(r.Body)
		w.WriteHeader(status)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	env := []string{"MCP_REGISTRY_URL=" + srv.URL}
	if o, e, code := runCLI(t, root, env, "publish", out, "--dry-run"); code != 0 || !strings.Contains(o, "nothing was sent") {
		t.Errorf("dry run: %d %s %s", code, o, e)
	}
	if _, e, code := runCLI(t, root, env, "publish", out); code != 2 || !strings.Contains(e, "MCP_REGISTRY_TOKEN") {
		t.Errorf("without a token: %d %s", code, e)
	}
	if o, e, code := runCLI(t, root, append(env, "MCP_REGISTRY_TOKEN=tok-123"), "publish", out); code != 0 || !strings.Contains(o, "published pub 1.2.3") {
		t.Fatalf("publish: %d %s %s", code, o, e)
	}
	want, _ := os.ReadFile(out)
	mu.Lock()
	if got.auth != "Bearer tok-123" || got.name != "pub.mcpb" || string(got.body) != string(want) {
		t.Errorf("upload: auth %q name %q body %d bytes (want %d)", got.auth, got.name, len(got.body), len(want))
	}
	status = http.StatusConflict
	mu.Unlock()
	if _, e, code := runCLI(t, root, env, "publish", out, "--token", "tok"); code != 1 || !strings.Contains(e, "409") {
		t.Errorf("conflict: %d %s", code, e)
	}
	// Not a bundle: a zip without a manifest, and a file that is no zip.
	bad := filepath.Join(t.TempDir(), "bad.mcpb")
	zf, _ := os.Create(bad)
	zw := zip.NewWriter(zf)
	w, _ := zw.Create("other.txt")
	w.Write([]byte("x"))
	zw.Close()
	zf.Close()
	if _, e, code := runCLI(t, root, env, "publish", bad, "--dry-run"); code != 2 || !strings.Contains(e, "no manifest.json") {
		t.Errorf("no manifest: %d %s", code, e)
	}
}

func TestScaffoldUIAndTest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, e, code := runCLI(t, dir, nil, "new", "apps"); code != 0 {
		t.Fatalf("new: %s", e)
	}
	root := filepath.Join(dir, "apps")
	for _, args := range [][]string{{"scaffold", "ui", "dash"}, {"scaffold", "tool", "weather", "--ui"}, {"scaffold", "ui", "--tool", "hello"}, {"scaffold", "test"}} {
		if _, e, code := runCLI(t, root, nil, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, e)
		}
	}
	for _, f := range []string{"ui/dash/index.html", "ui/dash/ui.meta.json", "tools/weather/ui/index.html", "tools/hello/ui/ui.meta.json", "test/run.sh", "test/README.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, e, code := runCLI(t, root, nil, "scaffold", "ui", "--tool", "nope"); code == 0 || !strings.Contains(e, "no tool nope") {
		t.Errorf("ui for a missing tool: %d %s", code, e)
	}
	if _, e, code := runCLI(t, root, nil, "scaffold", "test"); code == 0 || !strings.Contains(e, "test/run.sh") {
		t.Errorf("scaffold test twice: %d %s", code, e)
	}
	// The generated runner validates the project and runs every smoke test.
	o, e, code := runCmd(t, root, []string{"MCPBASH_BIN=" + harness.Binary(t)}, "bash", "test/run.sh")
	if code != 0 || !strings.Contains(o, "tests: 2 passed, 0 failed") {
		t.Errorf("test/run.sh: %d %s %s", code, o, e)
	}
	var list struct{ Resources []map[string]any }
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	c.Call("resources/list", nil).Decode(t, &list)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r["uri"].(string))
	}
	if strings.Join(uris, " ") != "ui://apps/dash ui://apps/hello ui://apps/weather" {
		t.Errorf("ui resources: %v", uris)
	}
}
