// Package harness drives the real mcp-bash binary in end-to-end tests: it builds the binary
// once, starts it on a project, speaks NDJSON over its stdio, and validates every line the
// server writes against the official MCP schema of the negotiated revision.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Main runs a package's tests, then removes the binaries this package built for them (each is
// tens of megabytes and would otherwise stay in the temporary directory after every run) and
// runs cleanups. Use it from TestMain: os.Exit(harness.Main(m)).
func Main(m *testing.M, cleanups ...func()) int {
	code := m.Run()
	for _, p := range []string{buildPath, hooksPath} {
		if p != "" {
			os.RemoveAll(filepath.Dir(p))
		}
	}
	for _, c := range cleanups {
		c()
	}
	return code
}

// Binary returns the path of the mcp-bash binary under test: MCPBASH_TEST_BINARY when set,
// else a build of ./cmd/mcp-bash made once per test process.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MCPBASH_TEST_BINARY"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpbash-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "mcp-bash")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/mcp-bash")
		cmd.Dir = RepoRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// TestHooksBinary returns a build of the binary with -tags mcpbash_testhooks (made once per
// test process): it can point the HTTPS provider at a local TLS server. Production builds
// cannot.
func TestHooksBinary(t testing.TB) string {
	t.Helper()
	hooksOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpbash-e2e-hooks-")
		if err != nil {
			hooksErr = err
			return
		}
		hooksPath = filepath.Join(dir, "mcp-bash")
		cmd := exec.Command("go", "build", "-tags", "mcpbash_testhooks", "-o", hooksPath, "./cmd/mcp-bash")
		cmd.Dir = RepoRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			hooksErr = fmt.Errorf("go build -tags mcpbash_testhooks: %v\n%s", err, out)
		}
	})
	if hooksErr != nil {
		t.Fatal(hooksErr)
	}
	return hooksPath
}

var (
	hooksOnce sync.Once
	hooksPath string
	hooksErr  error
)

var (
	schemasOnce sync.Once
	schemas     *Schemas
)

// SharedSchemas returns the process-wide schema set.
func SharedSchemas() *Schemas {
	schemasOnce.Do(func() { schemas = NewSchemas(SchemaDir()) })
	return schemas
}

// Options configure a server process.
type Options struct {
	// Dir is the working directory (and, unless Args say otherwise, where the project is found).
	Dir string
	// Args are extra command-line arguments.
	Args []string
	// Env is added to a minimal environment (PATH, HOME, TMPDIR); the host environment is not
	// inherited so tests are hermetic.
	Env []string
	// Revision is assumed before initialize negotiates one (default 2025-11-25).
	Revision string
	// Binary overrides the binary under test (e.g. TestHooksBinary).
	Binary string
	// Prefix runs the binary through another program: ["wine64"] runs a Windows build.
	Prefix []string
}

// Client is one running server and the lines it wrote.
type Client struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer

	mu       sync.Mutex
	cond     *sync.Cond
	lines    [][]byte
	eof      bool
	methods  map[string]string // request id key → method, for response validation
	reqRevs  map[string]string // request id key → the revision its _meta declared (2026-07-28)
	revision string
	// stateless is set once a request declared 2026-07-28 in its _meta before any initialize:
	// notifications are then validated against that revision.
	stateless, initialized bool
	nextID                 int
	done                   chan struct{}
	exitErr                error
}

// Start runs the binary and begins collecting its output. The process is killed at test end if
// still running.
func Start(t testing.TB, o Options) *Client {
	t.Helper()
	cmd := o.command(t, o.Args)
	c := &Client{t: t, cmd: cmd, methods: map[string]string{}, reqRevs: map[string]string{}, revision: o.Revision, done: make(chan struct{})}
	if c.revision == "" {
		c.revision = "2025-11-25"
	}
	c.cond = sync.NewCond(&c.mu)
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &lockedWriter{mu: &c.mu, w: &c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(stdout)
	// Not an assertion: a server still busy 10 s after its input ends (a test that left a long
	// call running) is simply killed.
	stopAtEnd(t, cmd, c.done, func() { _ = c.stdin.Close() }, 10*time.Second, c.Stderr)
	return c
}

// stopAtEnd stops the server cmd when the test ends: ask asks it to exit, and it is killed
// when it has not within grace; done is closed once it has exited. A data race it reported
// then fails the test.
func stopAtEnd(t testing.TB, cmd *exec.Cmd, done <-chan struct{}, ask func(), grace time.Duration, stderr func() string) {
	t.Cleanup(func() {
		ask()
		select {
		case <-done:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			<-done
		}
		checkRaces(t, stderr())
	})
}

// command is the binary o names (else the one under test) with args, in o.Dir, with a
// minimal environment (PATH, a fresh HOME, TMPDIR) plus o.Env.
func (o Options) command(t testing.TB, args []string) *exec.Cmd {
	t.Helper()
	bin := o.Binary
	if bin == "" {
		bin = Binary(t)
	}
	argv := append(append(append([]string(nil), o.Prefix...), bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = o.Dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + os.TempDir()}, o.Env...)
	return cmd
}

// checkRaces fails the test when the server (built with -race, as `make test-race` does)
// reported a data race: the report goes to stderr and the server carries on, so nothing else
// would notice.
func checkRaces(t testing.TB, stderr string) {
	t.Helper()
	if i := strings.Index(stderr, "WARNING: DATA RACE"); i >= 0 {
		t.Errorf("the server reported a data race:\n%s", stderr[i:min(len(stderr), i+6000)])
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *Client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			c.accept(bytes.TrimSuffix(line, []byte("\n")), err == nil)
		}
		if err != nil {
			break
		}
	}
	werr := c.cmd.Wait()
	c.mu.Lock()
	c.eof, c.exitErr = true, werr
	c.cond.Broadcast()
	c.mu.Unlock()
	close(c.done)
}

// accept records a server line and validates it against the schema.
func (c *Client) accept(line []byte, terminated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !terminated {
		c.t.Errorf("server wrote an unterminated line: %.200s", line)
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(line, &probe)
	method := ""
	rev := c.revision
	if c.stateless && !c.initialized {
		rev = StatelessRevision
	}
	if probe.Method == "" && probe.ID != nil {
		method = c.methods[idKey(probe.ID)]
		if r, ok := c.reqRevs[idKey(probe.ID)]; ok {
			rev = r
		} else {
			rev = c.revision // a request without _meta is answered in the legacy way
		}
	}
	if method == "server/discover" {
		rev = StatelessRevision // a 2026-07-28 method, whatever the session speaks
	}
	// initialize's answer fixes the revision for every later line.
	if method == "initialize" && probe.Result != nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(probe.Result, &r) == nil && r.ProtocolVersion != "" {
			c.revision, c.initialized = r.ProtocolVersion, true
			rev = c.revision
		}
	}
	if err := SharedSchemas().ValidateServerLine(rev, line, method); err != nil {
		c.t.Errorf("schema violation (%s): %v\n  line: %.500s", rev, err, line)
	}
	c.lines = append(c.lines, append([]byte(nil), line...))
	c.cond.Broadcast()
}

func idKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return string(id)
	}
	return buf.String()
}

// Send writes raw client lines (each gets a newline). Requests are remembered by id so that
// their responses are validated as the right result type.
func (c *Client) Send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		c.remember([]byte(l))
		if _, err := io.WriteString(c.stdin, l+"\n"); err != nil {
			c.t.Fatalf("write to server: %v", err)
		}
	}
}

// SendRaw writes bytes exactly as given (for framing tests).
func (c *Client) SendRaw(b []byte) {
	c.t.Helper()
	for _, l := range bytes.Split(b, []byte("\n")) {
		c.remember(l)
	}
	if _, err := c.stdin.Write(b); err != nil {
		c.t.Fatalf("write to server: %v", err)
	}
}

func (c *Client) remember(line []byte) {
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF")))
	var msgs []json.RawMessage
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &msgs)
	} else {
		msgs = []json.RawMessage{line}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(m, &probe) == nil && probe.ID != nil && probe.Method != "" {
			c.methods[idKey(probe.ID)] = probe.Method
			if v, _ := probe.Params.Meta[MetaProtocolVersion].(string); v == StatelessRevision && !c.initialized {
				c.reqRevs[idKey(probe.ID)] = v
				c.stateless = true
			}
		}
	}
}

// CloseStdin signals EOF to the server.
func (c *Client) CloseStdin() { _ = c.stdin.Close() }

// Pid is the server's process id (for /proc probes such as its resident memory).
func (c *Client) Pid() int { return c.cmd.Process.Pid }

// Backstop is the least time the harness waits for an event (a response, a notification, the
// server's exit) before it fails the test. It only turns a hang into a failure: no test asserts
// how long anything took, and a loaded 2-core CI machine runs tens of times slower than a
// quiet one. A shorter timeout given to Wait or WaitFor is raised to it.
const Backstop = 3 * time.Minute

// Wait waits for the process to exit and returns its exit error (nil for status 0). timeout is
// a backstop (at least Backstop).
func (c *Client) Wait(timeout time.Duration) error {
	c.t.Helper()
	timeout = max(timeout, Backstop)
	select {
	case <-c.done:
		return c.exitErr
	case <-time.After(timeout):
		c.t.Fatalf("server did not exit within %v; stderr:\n%s", timeout, c.Stderr())
		return nil
	}
}

// Lines returns a copy of every line the server wrote so far.
func (c *Client) Lines() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.lines...)
}

// Stderr returns what the server wrote to stderr.
func (c *Client) Stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// Revision is the negotiated protocol revision.
func (c *Client) Revision() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revision
}

// WaitFor waits until a line matching pred arrives (checking lines already received) and
// returns it. timeout is a backstop (at least Backstop).
func (c *Client) WaitFor(timeout time.Duration, what string, pred func(Msg) bool) Msg {
	c.t.Helper()
	timeout = max(timeout, Backstop)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := 0
	for {
		for ; seen < len(c.lines); seen++ {
			m := ParseMsg(c.lines[seen])
			if pred(m) {
				return m
			}
		}
		if c.eof || ctx.Err() != nil {
			c.t.Fatalf("no %s within %v (eof=%v); lines:\n%s\nstderr:\n%s", what, timeout, c.eof, joinLines(c.lines), c.stderr.String())
		}
		c.cond.Wait()
	}
}

func joinLines(ls [][]byte) string {
	var b strings.Builder
	for _, l := range ls {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// Response waits for the response to id (a JSON literal such as `1` or `"x"`).
func (c *Client) Response(id string) Msg {
	c.t.Helper()
	want := idKey(json.RawMessage(id))
	return c.WaitFor(Backstop, "response to id "+id, func(m Msg) bool {
		return m.ID != nil && m.Method == "" && idKey(m.ID) == want
	})
}

// Call sends a request with a fresh numeric id and waits for its response.
func (c *Client) Call(method string, params any) Msg {
	c.t.Helper()
	return c.CallWithin(Backstop, method, params)
}

// CallWithin is Call with another wait for the response (for a call known to be slow, such as
// the first call of a WebAssembly guest, which compiles it).
func (c *Client) CallWithin(wait time.Duration, method string, params any) Msg {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := 1000 + c.nextID
	c.mu.Unlock()
	line := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		line["params"] = params
	}
	b, _ := json.Marshal(line)
	c.Send(string(b))
	want := idKey(json.RawMessage(fmt.Sprint(id)))
	return c.WaitFor(wait, "response to id "+fmt.Sprint(id), func(m Msg) bool {
		return m.ID != nil && m.Method == "" && idKey(m.ID) == want
	})
}

// Initialize performs the handshake for a revision and returns the initialize result.
func (c *Client) Initialize(revision string, capabilities map[string]any) Msg {
	c.t.Helper()
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	m := c.Call("initialize", map[string]any{"protocolVersion": revision, "capabilities": capabilities,
		"clientInfo": map[string]any{"name": "mcp-bash-e2e", "version": "1.0.0"}})
	if m.Error != nil {
		c.t.Fatalf("initialize failed: %s", m.Raw)
	}
	c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// Msg is one decoded server line.
type Msg struct {
	Raw    []byte
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

// ParseMsg decodes a line; undecodable lines yield a Msg with only Raw set.
func ParseMsg(line []byte) Msg {
	m := Msg{Raw: line}
	_ = json.Unmarshal(line, &m)
	return m
}

// Decode unmarshals the result into v.
func (m Msg) Decode(t testing.TB, v any) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("expected a result, got error: %s", m.Raw)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		t.Fatalf("decode result: %v: %s", err, m.Raw)
	}
}

// StatelessRevision is the protocol revision negotiated per request rather than by initialize.
const StatelessRevision = "2026-07-28"

// MetaProtocolVersion is the _meta key that carries a request's protocol revision.
const MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// RequestMeta is the _meta of a 2026-07-28 request: its revision and client capabilities
// (nil: none), and a log level when level is not "".
func RequestMeta(caps map[string]any, level string) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	m := map[string]any{
		MetaProtocolVersion:                          StatelessRevision,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcp-bash-e2e", "version": "1.0.0"},
	}
	if level != "" {
		m["io.modelcontextprotocol/logLevel"] = level
	}
	return m
}
