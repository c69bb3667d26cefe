package stress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// reviewFiles is how many files a review-mode call rewrites in TestReviewCommitKill.
const reviewFiles = 24

func oldContent(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("old %02d\n", i)), 20000) }
func newContent(i int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("new %02d\n", i)), 37450)[:262144]
}

// TestReviewCommitKill (issue 32): the server is killed with SIGKILL while it commits an
// approved change set, at a point chosen at random (before the commit, while it stages, while
// it renames, after it answered). Right after the kill every file is its old content or its
// new one, never partial; once the store is opened again (here by `mcp-bash changes list`) the
// interrupted commit is undone or finished: all files old (the set still waits) or all new,
// and no temporary file is left.
func TestReviewCommitKill(t *testing.T) {
	t.Parallel()
	n := pick(4, 100)
	project := t.TempDir()
	harness.WriteFiles(t, project, map[string]string{
		"server.d/server.meta.json": `{"name":"kill"}`,
		"tools/rewrite/tool.sh": "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +o pipefail # yes ends on SIGPIPE\ncd \"$(mcp_args_get '.dir')\" || exit 1\n" +
			fmt.Sprintf("for i in $(seq -w 0 %d); do yes \"new $i\" | head -c 262144 > f$i; done\n", reviewFiles-1) +
			"rm gone\nmv moved moved2\necho done\n",
		"tools/rewrite/tool.meta.json": `{"name":"rewrite","description":"rewrite files","writeMode":"review","inputSchema":{"type":"object","properties":{"dir":{"type":"string"}}}}`,
	})
	phases := map[string]int{}
	outcomes := map[string]int{}
	for iter := range n {
		base := harness.RealTempDir(t)
		root, store := filepath.Join(base, "root"), filepath.Join(base, "store")
		os.Mkdir(root, 0o755)
		for i := range reviewFiles {
			os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d", i)), oldContent(i), 0o644)
		}
		os.WriteFile(filepath.Join(root, "gone"), []byte("gone\n"), 0o644)
		os.WriteFile(filepath.Join(root, "moved"), []byte("moved\n"), 0o644)
		env := []string{"MCPBASH_ROOTS=" + root, "MCPBASH_CHANGES_DIR=" + store}
		c := startWith(t, project, false, `{"elicitation":{}}`, env...)
		c.send(call(`"w"`, "rewrite", map[string]any{"dir": root}))
		var q struct{ ID json.RawMessage }
		c.wait(0, "the approval question", func() bool {
			return c.has(`"w"`) || len(c.requests) > 0 && json.Unmarshal(c.requests[0], &q) == nil
		})
		if q.ID == nil {
			t.Fatalf("iteration %d: the call ended without asking: %s\n%s", iter, c.text(`"w"`), c.stderr.String())
		}
		// Where to kill: 0 at once, 1 once r staged files exist, 2 once r targets are new, 3 after
		// the answer.
		phase, r := rand.IntN(4), 1+rand.IntN(reviewFiles)
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"approve":true}}}`, q.ID))
		answered := func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.has(`"w"`)
		}
		for phase != 0 {
			if answered() {
				break
			}
			if phase == 1 && countTemps(root) >= r || phase == 2 && countNew(root) >= r {
				break
			}
			time.Sleep(100 * time.Microsecond) // a poll of the commit's progress, not a wait for it
		}
		phases[fmt.Sprint(phase)]++
		c.kill()
		// Right after the kill: each file old or new.
		if checkFiles(t, root, iter, "after the kill") == "mixed" {
			outcomes["killed while renaming"]++
		}
		if js, _ := filepath.Glob(filepath.Join(store, "pending", "*", "journal.json")); len(js) > 0 {
			outcomes["killed with a journal"]++
		}
		// Open the store again: the commit is finished or undone.
		cmd := exec.Command(harness.Binary(t), "changes", "list")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + base}, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("iteration %d: changes list: %v\n%s", iter, err, out)
		}
		after := checkFiles(t, root, iter, "after recovery")
		switch after {
		case "old":
			if !strings.Contains(string(out), "tool rewrite") {
				t.Fatalf("iteration %d: the files are old but the set no longer waits:\n%s", iter, out)
			}
		case "new":
			if strings.Contains(string(out), "tool rewrite") {
				t.Fatalf("iteration %d: the files are new but the set still waits:\n%s", iter, out)
			}
		default:
			audit, _ := os.ReadFile(filepath.Join(store, "audit.log"))
			ents, _ := os.ReadDir(root)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("iteration %d (phase %d, r %d): after recovery the files are %s (%d new); root %v\n%s\n%s", iter, phase, r, after, countNew(root), names, audit, out)
		}
		if n := countTemps(root); n > 0 {
			t.Fatalf("iteration %d: %d temporary files left after recovery", iter, n)
		}
		outcomes["recovered "+after]++
	}
	t.Logf("%d kills; phases %v; outcomes %v", n, phases, outcomes)
}

// countTemps counts a commit's temporary files in root.
func countTemps(root string) int {
	ents, _ := os.ReadDir(root)
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".mcpbash-commit-") {
			n++
		}
	}
	return n
}

// countNew counts the files of the new size (a stat each: the poll must be quick to land
// inside the commit's renames).
func countNew(root string) int {
	n := 0
	for i := range reviewFiles {
		if fi, err := os.Stat(filepath.Join(root, fmt.Sprintf("f%02d", i))); err == nil && fi.Size() == 262144 {
			n++
		}
	}
	return n
}

// checkFiles fails unless every file is old or new, and says which: old, new or mixed.
func checkFiles(t *testing.T, root string, iter int, when string) string {
	t.Helper()
	olds, news := 0, 0
	for i := range reviewFiles {
		b, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("f%02d", i)))
		switch {
		case err != nil:
			t.Fatalf("iteration %d, %s: f%02d: %v", iter, when, i, err)
		case bytes.Equal(b, oldContent(i)):
			olds++
		case bytes.Equal(b, newContent(i)):
			news++
		default:
			t.Fatalf("iteration %d, %s: f%02d is partial (%d bytes)", iter, when, i, len(b))
		}
	}
	_, goneErr := os.Stat(filepath.Join(root, "gone"))
	m1, _ := os.ReadFile(filepath.Join(root, "moved"))
	m2, _ := os.ReadFile(filepath.Join(root, "moved2"))
	// A renamed file keeps its old name until its new one holds it: one or both, never neither.
	if m1 == nil && m2 == nil || m1 != nil && string(m1) != "moved\n" || m2 != nil && string(m2) != "moved\n" {
		t.Fatalf("iteration %d, %s: the renamed file is %q and %q", iter, when, m1, m2)
	}
	switch {
	case olds == reviewFiles && goneErr == nil && m1 != nil && m2 == nil:
		return "old"
	case news == reviewFiles && goneErr != nil && m1 == nil && m2 != nil:
		return "new"
	}
	return "mixed"
}
