package nodeclients

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The TypeScript clients over Streamable HTTP: each example is served by `serve --http` on
// loopback behind harness.Recorder, which records every message both ways (JSON bodies and SSE
// events, per session, per request for 2026-07-28) and validates each server message against
// the schema of its revision when the test ends.

// sessionExamples are the examples lib.mjs runSessions drives.
var sessionExamples = []string{"00-hello-tool", "01-args-and-validation", "02-logging-and-levels", "03-progress-and-cancellation",
	"05-resources-basics", "11-resource-templates", "07-prompts-basics", "10-completions", "08-elicitation", "conformance"}

// serveExamples serves each example of a copy of examples/ over HTTP and returns the recording
// proxies by example.
func serveExamples(t *testing.T, examples string, names []string) map[string]*harness.Recorder {
	t.Helper()
	recs := map[string]*harness.Recorder{}
	for _, name := range names {
		if recs[name] != nil {
			continue
		}
		srv := harness.StartHTTP(t, harness.Options{Dir: filepath.Join(examples, name)})
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s server (%s) logged:\n%s", name, srv.URL, srv.Stderr())
			}
		})
		recs[name] = harness.NewRecorder(t, srv.URL)
	}
	return recs
}

func recordedMessages(recs map[string]*harness.Recorder) int {
	n := 0
	for _, r := range recs {
		n += r.Messages()
	}
	return n
}

// TestTypeScriptSDKsHTTP runs the scripted sessions of lib.mjs with StreamableHTTPClientTransport:
// SDK v1 (2025-11-25 sessions), SDK v2 with legacy negotiation (sessions) and with auto
// negotiation (server/discover, then 2026-07-28 without a session).
func TestTypeScriptSDKsHTTP(t *testing.T) {
	node := Node(t)
	for _, c := range []struct{ name, script, arg string }{
		{"sdk-v1", "sdk-v1.mjs", ""},
		{"sdk-v2-legacy", "sdk-v2.mjs", "legacy"},
		{"sdk-v2-auto", "sdk-v2.mjs", "auto"},
	} {
		t.Run(c.name, func(t *testing.T) {
			examples := copyExamples(t)
			recs := serveExamples(t, examples, sessionExamples)
			urls := map[string]string{}
			for name, r := range recs {
				urls[name] = r.URL
			}
			enc, _ := json.Marshal(urls)
			ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
			defer cancel()
			args := []string{filepath.Join(dir(), c.script)}
			if c.arg != "" {
				args = append(args, c.arg)
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir = dir()
			cmd.Env = append(env(t, t.TempDir(), examples), "MCPBASH_HTTP_URLS="+string(enc))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s: %v\n%s", c.script, err, out)
			} else {
				t.Logf("%s", out)
			}
			n := 0
			for l := range strings.Lines(string(out)) {
				if strings.HasPrefix(l, "ok ") {
					n++
				}
			}
			if n < 11 {
				t.Errorf("only %d sessions passed", n)
			}
			if n := recordedMessages(recs); n < 40 {
				t.Errorf("only %d server messages recorded", n)
			}
		})
	}
}

// TestInspectorCLIHTTP runs the Inspector CLI against the endpoint (--transport http), one
// invocation per method, and checks the printed result.
func TestInspectorCLIHTTP(t *testing.T) {
	node := Node(t)
	examples := copyExamples(t)
	e := env(t, t.TempDir(), examples)
	cases := inspectorCases
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.example
	}
	recs := serveExamples(t, examples, names)
	for _, c := range cases {
		inspect(t, node, e, c.example, []string{recs[c.example].URL, "--transport", "http"}, c.args, c.want, c.exit)
	}
	if n := recordedMessages(recs); n < len(cases) {
		t.Errorf("only %d server messages recorded for %d invocations", n, len(cases))
	}
}
