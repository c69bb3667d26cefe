package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// Wildcard, as a JSON string anywhere in an expected line, matches any value (for volatile
// fields such as cursors, timestamps and paths).
const Wildcard = "<any>"

// RunGolden runs one transcript: files named project/... are written to a fresh project dir
// (the server's working directory); `in` holds client lines (<CR> and <BOM> stand for those
// bytes; {{root}} for the project dir); `env` and `args` configure the process; `out` holds the
// expected server lines in order; `exit` the expected exit status (default 0). stdin is closed
// after `in`, so every transcript is also a one-shot pipe test.
func RunGolden(t *testing.T, path string) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	sections := map[string]string{}
	for _, f := range ar.Files {
		if rel, ok := strings.CutPrefix(f.Name, "project/"); ok {
			writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), f.Data)
			continue
		}
		sections[f.Name] = strings.ReplaceAll(string(f.Data), "{{root}}", dir)
	}
	o := Options{Dir: dir}
	o.Env = append(o.Env, nonEmptyLines(sections["env"])...)
	o.Args = nonEmptyLines(sections["args"])
	c := Start(t, o)
	var in bytes.Buffer
	for _, l := range strings.SplitAfter(sections["in"], "\n") {
		l = strings.ReplaceAll(l, "<CR>", "\r")
		l = strings.ReplaceAll(l, "<BOM>", "\uFEFF")
		in.WriteString(l)
	}
	c.SendRaw(in.Bytes())
	c.CloseStdin()
	err = c.Wait(20 * time.Second)
	wantExit := 0
	if s := strings.TrimSpace(sections["exit"]); s != "" {
		wantExit, _ = strconv.Atoi(s)
	}
	gotExit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		gotExit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if gotExit != wantExit {
		t.Errorf("exit status %d, want %d; stderr:\n%s", gotExit, wantExit, c.Stderr())
	}
	got := c.Lines()
	want := nonEmptyLines(sections["out"])
	if d := CompareLines(want, got); d != "" {
		t.Errorf("%s: transcript mismatch: %s\ngot:\n%s\nstderr:\n%s", filepath.Base(path), d, joinLines(got), c.Stderr())
	}
	if wantErr := strings.TrimSpace(sections["stderr"]); wantErr != "" && !strings.Contains(c.Stderr(), wantErr) {
		t.Errorf("stderr does not contain %q:\n%s", wantErr, c.Stderr())
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// CompareLines compares expected JSON lines with actual ones, in order; "" means equal.
func CompareLines(want []string, got [][]byte) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		w, err := decodeNumbers([]byte(want[i]))
		if err != nil {
			return fmt.Sprintf("expected line %d is not JSON: %v", i+1, err)
		}
		g, err := decodeNumbers(got[i])
		if err != nil {
			return fmt.Sprintf("line %d is not JSON: %v", i+1, err)
		}
		if d := match(w, g, "$"); d != "" {
			return fmt.Sprintf("line %d: %s", i+1, d)
		}
	}
	return ""
}

// decodeNumbers keeps numbers exact (large ids must compare digit for digit).
func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func match(w, g any, path string) string {
	if s, ok := w.(string); ok && s == Wildcard {
		return ""
	}
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %v, want an object", path, g)
		}
		for k := range gv {
			if _, ok := wv[k]; !ok {
				return fmt.Sprintf("%s: unexpected member %q", path, k)
			}
		}
		for k, v := range wv {
			gk, ok := gv[k]
			if !ok {
				return fmt.Sprintf("%s: missing member %q", path, k)
			}
			if d := match(v, gk, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		gv, ok := g.([]any)
		if !ok || len(gv) != len(wv) {
			return fmt.Sprintf("%s: got %v, want %v", path, g, w)
		}
		for i := range wv {
			if d := match(wv[i], gv[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	if !bytes.Equal(wb, gb) {
		return fmt.Sprintf("%s: got %s, want %s", path, gb, wb)
	}
	return ""
}
