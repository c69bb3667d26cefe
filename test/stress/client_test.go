// Package stress (T-PROTO-4) drives the real binary hard: many concurrent and sequential calls, a client
// that stops reading, huge requests, stdin closed mid-call, and cancellations racing
// completions. `go test ./test/stress/` uses small counts; `-full` (make stress) the full ones.
package stress

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

var full = flag.Bool("full", false, "run the full stress counts (make stress)")

// pick returns the small count, or the full one under -full.
func pick(small, big int) int {
	if *full {
		return big
	}
	return small
}

// project writes a project with the stress tools and returns its root.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"server.d/server.meta.json": `{"name":"stress"}`,
		// echo: answers its argument n.
		"tools/echo/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nmcp_args_get '.n'\n",
		"tools/echo/tool.meta.json": `{"name":"echo","description":"echo n","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`,
		// slow: sleeps ms milliseconds, then answers n.
		"tools/slow/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nsleep \"$(mcp_args_get '.ms | . / 1000')\"\nmcp_args_get '.n'\n",
		"tools/slow/tool.meta.json": `{"name":"slow","description":"sleep","inputSchema":{"type":"object","properties":{"n":{"type":"integer"},"ms":{"type":"number"}}}}`,
		// big: prints kb KiB.
		"tools/big/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nprintf \"%0$(( $(mcp_args_get '.kb') * 1024 ))d\" 0\n",
		"tools/big/tool.meta.json": `{"name":"big","description":"big output","inputSchema":{"type":"object","properties":{"kb":{"type":"integer"}}}}`,
		// len: the length of its argument s.
		"tools/len/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\ns=$(mcp_args_get '.s'); echo \"len=${#s}\"\n",
		"tools/len/tool.meta.json": `{"name":"len","description":"length","inputSchema":{"type":"object","properties":{"s":{"type":"string"}}}}`,
	}
	harness.WriteFiles(t, dir, files)
	return dir
}

// client is a minimal NDJSON client over the real binary: no schema validation (the e2e suite
// does that), O(1) per message, so it keeps up with tens of thousands of messages.
type client struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   io.ReadCloser
	wmu   sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond
	answers map[string][]json.RawMessage // id key → every answer line received for it
	order   map[string]int               // id key → index of its first answer in the stream
	n       int
	eof     bool
	bad     []string
	stderr  bytes.Buffer
	done    chan struct{}
	waitErr error
	// requests are the requests the server sent (elicitation/create ...); killed marks a
	// server the test killed, whose last line may be cut short.
	requests []json.RawMessage
	killed   bool
}

// start runs the server on dir; when paused is true nobody reads its stdout until resume.
func start(t *testing.T, dir string, paused bool, env ...string) *client {
	t.Helper()
	return startWith(t, dir, paused, `{}`, env...)
}

// startWith is start for a client with capabilities caps (a JSON object).
func startWith(t *testing.T, dir string, paused bool, caps string, env ...string) *client {
	t.Helper()
	cmd := exec.Command(harness.Binary(t))
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + os.TempDir()}, env...)
	c := &client{t: t, cmd: cmd, answers: map[string][]json.RawMessage{}, order: map[string]int{}, done: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if c.out, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &lockedBuf{mu: &c.mu, b: &c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-c.done
		}
		if len(c.bad) > 0 {
			t.Errorf("malformed server lines: %q", c.bad)
		}
	})
	if !paused {
		go c.read()
	}
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"stress","version":"1"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

type lockedBuf struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// kill ends the server with SIGKILL and waits for it; its last line may be cut short.
func (c *client) kill() {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// resume starts reading stdout (for a client started paused).
func (c *client) resume() { go c.read() }

func (c *client) read() {
	br := bufio.NewReaderSize(c.out, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		c.mu.Lock()
		cut := c.killed && err != nil
		c.mu.Unlock()
		if len(line) > 0 && !cut {
			c.accept(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			break
		}
	}
	werr := c.cmd.Wait()
	c.mu.Lock()
	c.eof, c.waitErr = true, werr
	c.cond.Broadcast()
	c.mu.Unlock()
	close(c.done)
}

func (c *client) accept(line []byte) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.cond.Broadcast()
	if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
		c.bad = append(c.bad, string(line[:min(len(line), 300)]))
		return
	}
	if m.Method != "" {
		if m.ID != nil {
			c.requests = append(c.requests, append(json.RawMessage(nil), line...))
		}
		return // notifications
	}
	if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
		c.bad = append(c.bad, string(line[:min(len(line), 300)]))
		return
	}
	k := string(m.ID)
	if _, seen := c.order[k]; !seen {
		c.order[k] = c.n
	}
	c.n++
	c.answers[k] = append(c.answers[k], append(json.RawMessage(nil), line...))
}

func (c *client) send(lines ...string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if _, err := c.stdin.Write(b.Bytes()); err != nil {
		c.t.Errorf("write: %v", err)
	}
}

// call builds a tools/call line; id is a JSON literal.
func call(id, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

func cancel(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
}

func ping(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }

// wait blocks until pred holds for the received answers, or fails after timeout, a backstop
// of at least harness.Backstop (the stress suite at full counts asks for more).
func (c *client) wait(timeout time.Duration, what string, pred func() bool) {
	c.t.Helper()
	timeout = max(timeout, harness.Backstop)
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !pred() {
		if c.eof || time.Now().After(deadline) {
			c.t.Fatalf("%s: not reached within %v (eof=%v, %d answers); stderr:\n%.3000s", what, timeout, c.eof, c.n, c.stderr.String())
		}
		c.cond.Wait()
	}
}

// has reports whether id (a JSON literal) was answered; callers hold c.mu.
func (c *client) has(id string) bool { return len(c.answers[id]) > 0 }

// text returns the first answer's text content for id.
func (c *client) text(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.answers[id]) == 0 {
		return ""
	}
	var m struct {
		Result struct {
			Content []struct{ Text string }
		}
		Error *struct{ Message string }
	}
	_ = json.Unmarshal(c.answers[id][0], &m)
	if m.Error != nil {
		return "error: " + m.Error.Message
	}
	var b strings.Builder
	for _, x := range m.Result.Content {
		b.WriteString(x.Text)
	}
	return b.String()
}

// duplicates lists ids answered more than once.
func (c *client) duplicates() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var d []string
	for k, v := range c.answers {
		if len(v) > 1 {
			d = append(d, k)
		}
	}
	return d
}

func (c *client) rss() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

func idf(prefix string, i int) string { return fmt.Sprintf("%q", fmt.Sprintf("%s-%d", prefix, i)) }
