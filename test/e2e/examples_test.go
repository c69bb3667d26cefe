package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestExamples replays the transcript in every example's README against the real binary: the
// C> lines are sent, and the server's lines after the initialize answer must match the S> lines;
// E> NAME=value lines set the server's environment.
func TestExamples(t *testing.T) {
	readmes, _ := filepath.Glob(filepath.Join(harness.RepoRoot(), "examples", "*", "README.md"))
	if len(readmes) < 10 {
		t.Fatalf("found %d examples", len(readmes))
	}
	for _, readme := range readmes {
		dir := filepath.Dir(readme)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(readme)
			if err != nil {
				t.Fatal(err)
			}
			// The default tool timeout is a backstop (an E> line may set another): the calls are
			// sent at once, and a wasm command's first call waits for a compile that takes tens
			// of seconds on a loaded machine, inside its script's timeout. stdin closes right
			// after the calls are sent, so the shutdown drain must outlast them too.
			env := []string{"MCPBASH_DEFAULT_TOOL_TIMEOUT=120", "MCPBASH_SHUTDOWN_TIMEOUT=150"}
			var in, want []string
			for _, l := range strings.Split(string(data), "\n") {
				switch {
				case strings.HasPrefix(l, "E> "): // the server's environment, NAME=value
					env = append(env, l[3:])
				case strings.HasPrefix(l, "C> "):
					in = append(in, l[3:])
				case strings.HasPrefix(l, "S> "):
					want = append(want, l[3:])
				}
			}
			if len(in) < 3 || len(want) == 0 {
				t.Fatalf("%s has no transcript", readme)
			}
			// Run on a copy so caches and scratch files never touch the repository.
			proj := t.TempDir()
			if out, err := runCmdOut("cp", "-a", dir+"/.", proj); err != nil {
				t.Fatalf("copy: %v %s", err, out)
			}
			c := harness.Start(t, harness.Options{Dir: proj, Env: env})
			c.Send(in...)
			c.CloseStdin()
			if err := c.Wait(3 * time.Minute); err != nil { // backstop: the drain above ends it
				t.Fatalf("exit: %v\n%s", err, c.Stderr())
			}
			got := c.Lines()
			if len(got) == 0 {
				t.Fatal("no output")
			}
			// The transcripts leave out the list_changed notifications that follow initialized
			// (one per kind; test/e2e/testdata/spine shows them).
			got = got[1:]
			for len(got) > 0 && bytes.Contains(got[0], []byte(`/list_changed","params":{}}`)) {
				got = got[1:]
			}
			if d := compareByID(want, got); d != "" {
				t.Errorf("%s\ngot:\n%s\nstderr:\n%s", d, joinRaw(got), c.Stderr())
			}
		})
	}
}

func joinRaw(ls [][]byte) string {
	var b strings.Builder
	for _, l := range ls {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// compareByID compares server lines where requests may be answered in any order (they run
// concurrently): responses are matched by id, notifications must keep their relative order.
func compareByID(want []string, got [][]byte) string {
	split := func(lines [][]byte) (map[string][]byte, [][]byte) {
		byID := map[string][]byte{}
		var notes [][]byte
		for _, l := range lines {
			m := harness.ParseMsg(l)
			if m.ID != nil && m.Method == "" {
				byID[string(m.ID)] = l
			} else {
				notes = append(notes, l)
			}
		}
		return byID, notes
	}
	wantLines := make([][]byte, len(want))
	for i, w := range want {
		wantLines[i] = []byte(w)
	}
	wantIDs, wantNotes := split(wantLines)
	gotIDs, gotNotes := split(got)
	if len(wantIDs) != len(gotIDs) {
		return "responses: got " + strconv.Itoa(len(gotIDs)) + ", want " + strconv.Itoa(len(wantIDs))
	}
	for id, w := range wantIDs {
		g, ok := gotIDs[id]
		if !ok {
			return "no response with id " + id
		}
		if d := harness.CompareLines([]string{string(w)}, [][]byte{g}); d != "" {
			return "id " + id + ": " + d
		}
	}
	var wn []string
	for _, n := range wantNotes {
		wn = append(wn, string(n))
	}
	if d := harness.CompareLines(wn, gotNotes); d != "" {
		return "notifications: " + d
	}
	return ""
}
