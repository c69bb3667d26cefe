package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestSecurityTable checks that every test (or fuzz target) SECURITY.md names exists, that every
// threat row names at least one, and that threat IDs match both ways: every threat ID that a
// test file mentions (attack corpus case IDs such as "T-FS-1/dotdot-etc-passwd", comments
// naming the threat a test covers) is a row of the table, and every row is referenced by a test
// (its ID appears in a test file, or the row names an existing test).
func TestSecurityTable(t *testing.T) {
	root := harness.RepoRoot()
	doc, err := os.ReadFile(filepath.Join(root, "SECURITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`)
	idRE := regexp.MustCompile(`\bT-[A-Z]+-\d+\b`)
	mentioned := map[string]string{} // threat ID → a test file that mentions it
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, "_test.go") {
			b, _ := os.ReadFile(p)
			for _, m := range funcRE.FindAllStringSubmatch(string(b), -1) {
				defined[m[1]] = true
			}
			for _, id := range idRE.FindAllString(string(b), -1) {
				if _, seen := mentioned[id]; !seen {
					mentioned[id], _ = filepath.Rel(root, p)
				}
			}
		}
		return nil
	})
	rows := 0
	ids := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| T-") {
			continue
		}
		rows++
		cells := strings.Split(line, "|")
		id := strings.TrimSpace(cells[1])
		if ids[id] {
			t.Errorf("threat ID %s appears in two rows", id)
		}
		ids[id] = true
		tests := regexp.MustCompile("`((?:Test|Fuzz)\\w+)`").FindAllStringSubmatch(cells[len(cells)-2], -1)
		if len(tests) == 0 {
			t.Errorf("threat without tests: %s", id)
		}
		named := false
		for _, m := range tests {
			if !defined[m[1]] {
				t.Errorf("%s names %s, which does not exist", id, m[1])
			} else {
				named = true
			}
		}
		if _, ok := mentioned[id]; !ok && !named {
			t.Errorf("threat %s is referenced by no test", id)
		}
	}
	for id, file := range mentioned {
		if !ids[id] {
			t.Errorf("%s mentions threat %s, which SECURITY.md does not define", file, id)
		}
	}
	if rows < 10 {
		t.Errorf("only %d threat rows parsed", rows)
	}
}
