package harness

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// ReadKnown reads a list of accepted differences, as the differential suites keep them: one
// "NAME<TAB>reason" a line, blank lines and # comments passed over. A list that cannot be read
// fails the test (it is never taken for an empty one).
func ReadKnown(t testing.TB, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, "\t")
		known[name] = reason
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return known
}
