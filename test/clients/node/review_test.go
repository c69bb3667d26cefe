package nodeclients

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// reviewTool edits its root in every way review mode holds: append, create, delete, rename,
// mkdir, chmod and a link, and reads back what it wrote.
const reviewTool = `#!/usr/bin/env bash
source "${MCP_SDK}/tool-sdk.sh"
cd "$(mcp_args_get '.dir')" || exit 1
echo 'edited by the tool' >> a.txt
printf 'brand new\n' > new.txt
rm old.txt
mv r1.txt r2.txt
mkdir -p sub && echo inside > sub/in.txt
chmod 755 run.sh
ln -s a.txt link-to-a
[ "$(tail -n1 link-to-a)" = 'edited by the tool' ] && [ -x run.sh ] && [ ! -e old.txt ] && [ -f r2.txt ] || { echo 'the call does not see its own writes' >&2; exit 1; }
echo edited
`

// TestReviewTypeScript: review mode with a real client that supports elicitation. Approving
// writes exactly the new content; declining, cancelling or answering no leaves the root
// byte-identical; a file edited while the user decides stops the commit before it writes.
func TestReviewTypeScript(t *testing.T) {
	node := Node(t)
	project := t.TempDir()
	for name, content := range map[string]string{
		"server.d/server.meta.json": `{"name":"review"}`,
		"tools/edit/tool.sh":        reviewTool,
		"tools/edit/tool.meta.json": `{"name":"edit","description":"edit files","writeMode":"review","inputSchema":{"type":"object","properties":{"dir":{"type":"string"},"approve":{"type":"boolean"}},"required":["dir"]}}`,
	} {
		p := filepath.Join(project, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	answers := []string{"approve", "decline", "cancel", "no", "conflict"}
	var scenarios []map[string]string
	before := map[string]map[string]string{}
	for _, a := range answers {
		root := filepath.Join(base, a)
		os.MkdirAll(root, 0o755)
		for name, content := range map[string]string{"a.txt": "one\n", "old.txt": "old\n", "r1.txt": "moving\n", "run.sh": "echo run\n"} {
			os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
		}
		before[a] = harness.Tree(t, root)
		scenarios = append(scenarios, map[string]string{"name": a, "root": root, "answer": a})
	}
	sc, _ := json.Marshal(scenarios)
	capture, store := t.TempDir(), filepath.Join(base, "store")
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir(), "review.mjs"))
	cmd.Dir = dir()
	cmd.Env = append(env(t, capture, ""), "REVIEW_PROJECT="+project, "REVIEW_SCENARIOS="+string(sc), "MCPBASH_CHANGES_DIR="+store)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("review.mjs: %v\n%s%s", err, stdout, stderr.String())
	}
	var results map[string]struct {
		Meta struct {
			Status, ID string
			Files      []struct{ Path, Change string }
		}
		Text string
	}
	if err := json.Unmarshal(stdout, &results); err != nil {
		t.Fatalf("review.mjs printed %s: %v", stdout, err)
	}
	for _, a := range answers {
		root := filepath.Join(base, a)
		got, res := harness.Tree(t, root), results[a]
		want := before[a]
		switch a {
		case "approve":
			want = map[string]string{
				"a.txt":      `file -rw-r--r-- "one\nedited by the tool\n"`,
				"new.txt":    `file -rw-r--r-- "brand new\n"`,
				"r2.txt":     `file -rw-r--r-- "moving\n"`,
				"run.sh":     `file -rwxr-xr-x "echo run\n"`,
				"sub":        `dir -rwxr-xr-x`,
				"sub/in.txt": `file -rw-r--r-- "inside\n"`,
				"link-to-a":  "link a.txt",
			}
			if res.Meta.Status != "committed" {
				t.Errorf("approve: status %q: %s", res.Meta.Status, res.Text)
			}
			var changes []string
			for _, f := range res.Meta.Files {
				changes = append(changes, f.Change+" "+strings.TrimPrefix(f.Path, root+"/"))
			}
			for _, c := range []string{"changed a.txt", "added new.txt", "deleted old.txt", "renamed r2.txt", "changed run.sh", "added sub", "added sub/in.txt", "added link-to-a"} {
				if !slices.Contains(changes, c) {
					t.Errorf("approve: the change set lacks %q: %v", c, changes)
				}
			}
		case "conflict":
			want["a.txt"] = `file -rw-r--r-- "one\nedited meanwhile\n"`
			if res.Meta.Status != "conflict" || !strings.Contains(res.Text, filepath.Join(root, "a.txt")) {
				t.Errorf("conflict: status %q, text %s", res.Meta.Status, res.Text)
			}
			if _, err := os.Stat(filepath.Join(store, "pending", res.Meta.ID, "set.json")); err != nil {
				t.Errorf("conflict: the set no longer waits: %v", err)
			}
		default:
			if res.Meta.Status != "discarded" {
				t.Errorf("%s: status %q: %s", a, res.Meta.Status, res.Text)
			}
		}
		if d := harness.TreeDiff(want, got); d != "" {
			t.Errorf("%s: the root differs:\n%s", a, d)
		}
	}
	audit, _ := os.ReadFile(filepath.Join(store, "audit.log"))
	for _, want := range []string{`"action":"committed"`, `"action":"discarded"`, `"action":"conflict"`, `"kind":"user","name":"mcp-bash-review 1.0.0 (session stdio-`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("the audit log lacks %s:\n%s", want, audit)
		}
	}
	sessions, lines := validateCaptures(t, capture)
	if sessions != len(answers) {
		t.Errorf("%d server sessions recorded, want %d", sessions, len(answers))
	}
	t.Logf("%d sessions, %d server lines validated", sessions, lines)
}
