package e2e

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := harness.RealTempDir(t)
	harness.WriteFiles(t, dir, files)
	return dir
}

// A 20 MiB line is over the default 16 MiB limit: it gets a clean error and the session goes on.
func TestOversizedLine(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: t.TempDir()})
	c.Initialize("2025-11-25", nil)
	big := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("a", 20<<20) + `"}}`
	c.Send(big, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	e := c.WaitFor(20*time.Second, "line-limit error", func(m harness.Msg) bool { return m.Error != nil && m.Error.Code == -32600 })
	if !bytes.Contains(e.Error.Data, []byte("16777216-byte line limit")) {
		t.Errorf("error data does not name the limit: %s", e.Raw)
	}
	c.Response(`"after"`)
}

// MCPBASH_MAX_LINE_BYTES configures the limit; a line just under it is served.
func TestConfiguredLineLimit(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: t.TempDir(), Env: []string{"MCPBASH_MAX_LINE_BYTES=4096"}})
	c.Initialize("2025-11-25", nil)
	pad := func(n int) string {
		return `{"jsonrpc":"2.0","id":"p","method":"ping","params":{"pad":"` + strings.Repeat("b", n) + `"}}`
	}
	ok := pad(3000)
	c.Send(ok)
	c.Response(`"p"`)
	c.Send(pad(5000))
	e := c.WaitFor(5*time.Second, "line-limit error", func(m harness.Msg) bool { return m.Error != nil })
	if !bytes.Contains(e.Error.Data, []byte("4096-byte line limit")) {
		t.Errorf("unexpected error: %s", e.Raw)
	}
	c.Send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	c.Response("9")
}

// stdin EOF with nothing in flight ends the process promptly and with status 0.
func TestEOFExits(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: t.TempDir()})
	c.Initialize("2025-11-25", nil)
	c.CloseStdin()
	if err := c.Wait(5 * time.Second); err != nil {
		t.Fatalf("exit: %v\n%s", err, c.Stderr())
	}
}

// Requests sent right before EOF (a one-shot pipe) are all answered.
func TestOneShotPipeAnswersEverything(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: t.TempDir()})
	lines := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for i := 2; i < 200; i++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/list"}`)
	}
	c.Send(lines...)
	c.CloseStdin()
	if err := c.Wait(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	// 198 answers, the initialize result and one list_changed per kind after initialized.
	if got := len(c.Lines()); got != 202 {
		t.Fatalf("got %d lines, want 202\n%s", got, c.Stderr())
	}
}

// Diagnostics go to stderr; stdout carries protocol only (every line is schema-checked by the
// harness, so a stray stdout line fails the test).
func TestDiagnosticsOnStderr(t *testing.T) {
	t.Parallel()
	dir := writeProject(t, map[string]string{
		"server.d/server.meta.json":   `{"name":"diag"}`,
		"tools/bad/tool.sh":           "#!/bin/bash\necho hi\n",
		"tools/bad/tool.meta.json":    `{"name": "bad", `,
		"tools/ok/tool.sh":            "#!/bin/bash\necho ok\n",
		"tools/ok/tool.meta.json":     `{"name":"ok","description":"fine"}`,
		"tools/dotted/tool.sh":        "#!/bin/bash\n",
		"tools/dotted/tool.meta.json": `{"name":"has.dot","description":"served, as by the original and MCP 2025-11-25"}`,
		"tools/spaced/tool.sh":        "#!/bin/bash\n",
		"tools/spaced/tool.meta.json": `{"name":"has space","description":"outside MCP's name characters"}`,
	})
	c := harness.Start(t, harness.Options{Dir: dir})
	c.Initialize("2025-11-25", nil)
	r := c.Call("tools/list", nil)
	var res struct {
		Tools []struct{ Name string }
	}
	r.Decode(t, &res)
	var names []string
	for _, x := range res.Tools {
		names = append(names, x.Name)
	}
	// The malformed meta falls back to defaults (name "tool"); the dotted name is served, the
	// name with a space is skipped.
	if strings.Join(names, ",") != "has.dot,ok,tool" {
		t.Errorf("tools = %v", names)
	}
	c.CloseStdin()
	_ = c.Wait(5 * time.Second)
	for _, want := range []string{"malformed metadata", "invalid tool name \"has space\""} {
		if !strings.Contains(c.Stderr(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, c.Stderr())
		}
	}
}
