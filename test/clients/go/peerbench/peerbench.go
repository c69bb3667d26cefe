// Package peerbench measures mcp-bash against two Go MCP servers in the same run: an mcp-go and
// an official go-sdk stdio server (../peers) with an equivalent Go "hello" tool. Every server is
// driven by the same minimal NDJSON client in this package, so the client is identical across
// servers and costs next to nothing: requests are pre-encoded, responses matched by id with a
// byte scan.
//
// Per run and server: cold start (spawn → initialize response, median of ColdStarts spawns), then
// one long-lived process: sequential tools/call hello for SeqDuration (calls/s, p50/p99, server
// CPU per call from /proc/<pid>/stat utime+stime deltas), the same for ping, then Bursts bursts
// of InFlight concurrent hello calls (wall time, calls/s), then peak RSS (VmHWM). The servers are
// interleaved within each run, in a rotating order, so machine noise hits all of them alike; the
// table shows medians over Runs runs and the ratios ours/peer.
//
// Every server gets the same small environment (PATH, HOME, LANG; stderr to /dev/null);
// PEERBENCH_GODEBUG, when set, is passed to all of them as GODEBUG.
//
// With Server.HTTP the same phases run over MCP Streamable HTTP on loopback (http.go): each
// server listens on 127.0.0.1:0, the client is one minimal net/http client shared by all, and a
// run also measures the memory of idle sessions.
package peerbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Server is one server under test.
type Server struct {
	Name string   // column heading
	Path string   // binary
	Args []string // arguments
	Dir  string   // working directory
	Info string   // version, for the report
	// HTTP: the server serves Streamable HTTP (its Args make it listen on 127.0.0.1:0 and log
	// {"msg":"listening","url":...} on stderr) and is driven over HTTP with 2025-11-25 sessions.
	HTTP bool
}

// Options sizes a comparison.
type Options struct {
	Runs        int           // runs per server (medians over these), ≥ 5 for the report
	ColdStarts  int           // spawns per run for the cold-start median, ≥ 20 for the report
	SeqDuration time.Duration // sequential phase per method per run
	Warmup      int           // calls before measuring
	InFlight    int           // concurrent calls per burst
	Bursts      int           // bursts per run (the run's value is their median)
	// IdleSessions is how many sessions an HTTP run opens, and leaves idle, to measure the
	// memory of a session.
	IdleSessions int
	// Think is a sequential client's pause after each call (0: none), spent busy so that the
	// client keeps its CPU while the server idles, as a net/http client does for its share of
	// a round trip. A stdio run with Think shows what a server's idle gaps cost it, apart from
	// HTTP (docs/PERFORMANCE.md); calls/s then counts the pauses too.
	Think time.Duration
	Log   io.Writer // progress, may be nil
}

// DefaultOptions are the sizes of the published table.
func DefaultOptions() Options {
	return Options{Runs: 5, ColdStarts: 25, SeqDuration: time.Second, Warmup: 200, InFlight: 100, Bursts: 20, IdleSessions: 500}
}

// Sample is one run of one server.
type Sample struct {
	Hello, Ping Seq
	ConcWall    time.Duration // median burst wall time, InFlight hello calls
	ConcRate    float64       // InFlight / ConcWall
	PeakRSSKiB  int64         // VmHWM at the end of the run
	AnonKiB     int64         // RssAnon at the end of the run (heap, stacks)
	FileKiB     int64         // RssFile at the end of the run (mapped binary pages)
	ColdStart   time.Duration // median spawn → initialize response
	SessionKiB  float64       // HTTP: RssAnon growth per idle session
}

// Seq is one sequential phase.
type Seq struct {
	Calls      int
	Rate       float64 // calls/s
	P50, P99   time.Duration
	CPUPerCall time.Duration // server user+system CPU / calls
}

// Result is a whole comparison: Samples[i] are the runs of Servers[i].
type Result struct {
	Servers []Server
	Samples [][]Sample
	Options Options
	Machine string
	Started time.Time
	// Load averages (1, 5, 15 min) when the run started and ended: other work on the machine.
	LoadStart, LoadEnd string
}

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peerbench","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	helloArgs       = `{"name":"Ada"}`
	wantMessage     = "Hello, Ada!"
)

type method struct {
	prefix, suffix string
}

var (
	helloReq = method{`{"jsonrpc":"2.0","id":`, `,"method":"tools/call","params":{"name":"hello","arguments":` + helloArgs + `}}` + "\n"}
	pingReq  = method{`{"jsonrpc":"2.0","id":`, `,"method":"ping"}` + "\n"}
)

// conn is a client's connection to one server process: the stdio client or the HTTP client.
type conn interface {
	initialize() error
	call(m method) ([]byte, error)
	burst(n int) (time.Duration, error)
	pid() int
	close()
}

// open starts a server and initializes a session with it.
func open(s Server) (conn, error) {
	var c conn
	if s.HTTP {
		hc, err := startHTTP(s)
		if err != nil {
			return nil, err
		}
		c = hc
	} else {
		sc, err := start(s)
		if err != nil {
			return nil, err
		}
		c = sc
	}
	if err := c.initialize(); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// serverEnv is the environment every server gets.
func serverEnv(s Server) []string {
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + s.Dir, "LANG=C.UTF-8"}
	if v := os.Getenv("PEERBENCH_GODEBUG"); v != "" {
		env = append(env, "GODEBUG="+v)
	}
	return env
}

// client is the minimal NDJSON client shared by all servers.
type client struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	w     *bufio.Writer
	r     *bufio.Reader
	buf   []byte
	next  int64
}

func start(s Server) (*client, error) {
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = serverEnv(s)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &client{cmd: cmd, stdin: in, w: bufio.NewWriterSize(in, 64<<10), r: bufio.NewReaderSize(out, 64<<10), next: 1}, nil
}

func (c *client) pid() int { return c.cmd.Process.Pid }

func (c *client) close() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// write queues one request and returns its id.
func (c *client) write(m method) int64 {
	id := c.next
	c.next++
	c.buf = append(c.buf[:0], m.prefix...)
	c.buf = strconv.AppendInt(c.buf, id, 10)
	c.buf = append(c.buf, m.suffix...)
	c.w.Write(c.buf)
	return id
}

// read returns the next response (notifications and server requests are skipped) and its id.
func (c *client) read() (int64, []byte, error) {
	for {
		line, err := c.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			rest, err2 := c.r.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), err2
		}
		if err != nil {
			return 0, nil, fmt.Errorf("reading from server: %w", err)
		}
		id, ok := responseID(line)
		if !ok {
			continue
		}
		if err := resultOK(line); err != nil {
			return 0, nil, err
		}
		return id, line, nil
	}
}

// resultOK refuses an error response and a tool's error result.
func resultOK(line []byte) error {
	if !bytes.Contains(line, []byte(`"result":`)) || bytes.Contains(line, []byte(`"isError":true`)) {
		return fmt.Errorf("error response: %s", line)
	}
	return nil
}

// responseID finds the numeric id of a response line: fast path for the usual field order,
// json for anything else. Lines with a method (notifications, server requests) are not responses.
func responseID(line []byte) (int64, bool) {
	const p = `{"jsonrpc":"2.0","id":`
	if bytes.HasPrefix(line, []byte(p)) {
		rest := line[len(p):]
		n, i := int64(0), 0
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			n = n*10 + int64(rest[i]-'0')
		}
		if i > 0 && i < len(rest) && rest[i] == ',' && !bytes.HasPrefix(rest[i:], []byte(`,"method":`)) {
			return n, true
		}
	}
	var m struct {
		ID     *int64 `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.ID == nil || m.Method != "" {
		return 0, false
	}
	return *m.ID, true
}

func (c *client) call(m method) ([]byte, error) {
	id := c.write(m)
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	got, line, err := c.read()
	if err != nil {
		return nil, err
	}
	if got != id {
		return nil, fmt.Errorf("response id %d, want %d", got, id)
	}
	return line, nil
}

func (c *client) initialize() error {
	c.w.WriteString(initLine + "\n")
	if err := c.w.Flush(); err != nil {
		return err
	}
	id, _, err := c.read()
	if err != nil {
		return err
	}
	if id != 0 {
		return fmt.Errorf("initialize answered with id %d", id)
	}
	c.w.WriteString(initializedLine + "\n")
	return c.w.Flush()
}

// checkHello verifies that a hello result has the shape of examples/00-hello-tool.
func checkHello(line []byte) error {
	var r struct {
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	var text map[string]any
	if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" || json.Unmarshal([]byte(r.Result.Content[0].Text), &text) != nil ||
		text["message"] != wantMessage || len(text) != 1 || r.Result.StructuredContent["message"] != wantMessage || len(r.Result.StructuredContent) != 1 {
		return fmt.Errorf("hello result has the wrong shape: %s", line)
	}
	return nil
}

// cpuTicks is utime+stime+cutime+cstime of a process, in clock ticks (USER_HZ, 100 on Linux).
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime..cstime are fields 14..17.
	if len(f) < 15 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var sum int64
	for _, s := range f[11:15] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum, nil
}

const userHZ = 100

// memStatus reads VmHWM, RssAnon and RssFile (KiB) from /proc/<pid>/status.
func memStatus(pid int) (hwm, anon, file int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	found := 0
	for l := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmHWM":
			dst = &hwm
		case "RssAnon":
			dst = &anon
		case "RssFile":
			dst = &file
		default:
			continue
		}
		if *dst, err = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err != nil {
			return 0, 0, 0, err
		}
		found++
	}
	if found != 3 {
		return 0, 0, 0, errors.New("no VmHWM/RssAnon/RssFile in /proc/<pid>/status")
	}
	return hwm, anon, file, nil
}

func coldStart(s Server) (time.Duration, error) {
	t0 := time.Now()
	c, err := open(s)
	if err != nil {
		return 0, err
	}
	d := time.Since(t0)
	c.close()
	return d, nil
}

func sequential(c conn, m method, d, think time.Duration) (Seq, error) {
	lat := make([]time.Duration, 0, 1<<16)
	t0, err := cpuTicks(c.pid())
	if err != nil {
		return Seq{}, err
	}
	start := time.Now()
	for time.Since(start) < d || len(lat) < 100 {
		s := time.Now()
		if _, err := c.call(m); err != nil {
			return Seq{}, err
		}
		lat = append(lat, time.Since(s))
		for t := time.Now(); think > 0 && time.Since(t) < think; {
			// busy: a sleeping client would idle both sides
		}
	}
	wall := time.Since(start)
	t1, err := cpuTicks(c.pid())
	if err != nil {
		return Seq{}, err
	}
	slices.Sort(lat)
	n := len(lat)
	return Seq{Calls: n, Rate: float64(n) / wall.Seconds(), P50: lat[n/2], P99: lat[n*99/100],
		CPUPerCall: time.Duration((t1 - t0) * int64(time.Second) / userHZ / int64(n))}, nil
}

func (c *client) burst(n int) (time.Duration, error) {
	pending := make(map[int64]bool, n)
	t0 := time.Now()
	for range n {
		pending[c.write(helloReq)] = true
	}
	if err := c.w.Flush(); err != nil {
		return 0, err
	}
	for range n {
		id, _, err := c.read()
		if err != nil {
			return 0, err
		}
		if !pending[id] {
			return 0, fmt.Errorf("unexpected response id %d", id)
		}
		delete(pending, id)
	}
	return time.Since(t0), nil
}

func runOne(s Server, o Options) (Sample, error) {
	var smp Sample
	cold := make([]time.Duration, 0, o.ColdStarts)
	for range o.ColdStarts {
		d, err := coldStart(s)
		if err != nil {
			return smp, fmt.Errorf("cold start: %w", err)
		}
		cold = append(cold, d)
	}
	smp.ColdStart = median(cold)

	c, err := open(s)
	if err != nil {
		return smp, err
	}
	defer c.close()
	line, err := c.call(helloReq)
	if err != nil {
		return smp, fmt.Errorf("hello: %w", err)
	}
	if err := checkHello(line); err != nil {
		return smp, err
	}
	for range o.Warmup {
		if _, err := c.call(helloReq); err != nil {
			return smp, err
		}
		if _, err := c.call(pingReq); err != nil {
			return smp, err
		}
	}
	if smp.Hello, err = sequential(c, helloReq, o.SeqDuration, o.Think); err != nil {
		return smp, fmt.Errorf("sequential hello: %w", err)
	}
	if smp.Ping, err = sequential(c, pingReq, o.SeqDuration, o.Think); err != nil {
		return smp, fmt.Errorf("sequential ping: %w", err)
	}
	walls := make([]time.Duration, 0, o.Bursts)
	for range o.Bursts {
		d, err := c.burst(o.InFlight)
		if err != nil {
			return smp, fmt.Errorf("concurrency: %w", err)
		}
		walls = append(walls, d)
	}
	smp.ConcWall = median(walls)
	smp.ConcRate = float64(o.InFlight) / smp.ConcWall.Seconds()
	if smp.PeakRSSKiB, smp.AnonKiB, smp.FileKiB, err = memStatus(c.pid()); err != nil {
		return smp, err
	}
	if s.HTTP && o.IdleSessions > 0 {
		if smp.SessionKiB, err = idleSessions(s, o.IdleSessions); err != nil {
			return smp, fmt.Errorf("idle sessions: %w", err)
		}
	}
	return smp, nil
}

// Run compares the servers: o.Runs runs, each measuring every server once, in rotating order.
func Run(servers []Server, o Options) (*Result, error) {
	res := &Result{Servers: servers, Samples: make([][]Sample, len(servers)), Options: o, Machine: Machine(), Started: time.Now(), LoadStart: loadavg()}
	defer func() { res.LoadEnd = loadavg() }()
	for r := range o.Runs {
		for k := range servers {
			i := (k + r) % len(servers)
			s, err := runOne(servers[i], o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", servers[i].Name, err)
			}
			if o.Log != nil {
				fmt.Fprintf(o.Log, "run %d/%d %-8s hello %6.0f/s p50 %v cpu %v/call | ping %6.0f/s | conc %v | rss %d KiB | cold %v | %.1f KiB/idle session\n",
					r+1, o.Runs, servers[i].Name, s.Hello.Rate, s.Hello.P50.Round(time.Microsecond), s.Hello.CPUPerCall.Round(time.Microsecond),
					s.Ping.Rate, s.ConcWall.Round(time.Microsecond), s.PeakRSSKiB, s.ColdStart.Round(time.Microsecond), s.SessionKiB)
			}
			res.Samples[i] = append(res.Samples[i], s)
		}
	}
	return res, nil
}

func median[T int64 | float64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// Machine describes this machine in one line.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for l := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(string(b), "MemTotal: %d kB", &kb)
		mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
	}
	return fmt.Sprintf("%s, %d logical CPUs%s%s, %s %s/%s", model, runtime.NumCPU(), mem, kernel, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Build compiles the two peers and the floor calibration program into dir and returns their
// paths (mcp-go, go-sdk, floor). moduleDir is test/clients/go.
func Build(moduleDir, dir string) (mcpgo, gosdk, floor string, err error) {
	mcpgo, gosdk, floor = filepath.Join(dir, "peer-mcpgo"), filepath.Join(dir, "peer-gosdk"), filepath.Join(dir, "floor")
	for _, b := range [][2]string{{mcpgo, "./peers/mcpgo"}, {gosdk, "./peers/gosdk"}, {floor, "./peers/floor"}} {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", b[0], b[1])
		cmd.Dir = moduleDir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", "", fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	return mcpgo, gosdk, floor, nil
}

// ModuleDir finds test/clients/go from the working directory.
func ModuleDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if !strings.HasSuffix(filepath.ToSlash(gomod), "test/clients/go/go.mod") {
		return "", fmt.Errorf("run inside test/clients/go (go.mod here is %q)", gomod)
	}
	return filepath.Dir(gomod), nil
}

// Setup builds what a comparison needs under tmp: the peers, our binary unless ours is given
// (MCPBASH_TEST_BINARY), and a copy of examples/00-hello-tool. It returns the three servers
// and, last, the floor calibration program; with overHTTP, each serves Streamable HTTP on
// 127.0.0.1:0 (mcp-bash serve --http, the peers' -http).
func Setup(tmp, ours string, overHTTP bool) ([]Server, error) {
	mod, err := ModuleDir()
	if err != nil {
		return nil, err
	}
	repo := filepath.Clean(filepath.Join(mod, "..", "..", ".."))
	if ours == "" {
		ours = filepath.Join(tmp, "mcp-bash")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", ours, "./cmd/mcp-bash")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build mcp-bash: %v\n%s", err, out)
		}
	}
	mcpgo, gosdk, floor, err := Build(mod, tmp)
	if err != nil {
		return nil, err
	}
	project := filepath.Join(tmp, "hello-project")
	if out, err := exec.Command("cp", "-a", filepath.Join(repo, "examples", "00-hello-tool"), project).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cp: %v %s", err, out)
	}
	ver := func(cmd *exec.Cmd) string {
		cmd.Dir = mod
		out, err := cmd.Output()
		if err != nil {
			return "unknown version"
		}
		return strings.TrimSpace(string(out))
	}
	oursArgs, peerArgs, how := []string{"--project-root", project, "--exec", "sandbox"}, []string(nil), ""
	if overHTTP {
		oursArgs, peerArgs, how = append([]string{"serve", "--http", "127.0.0.1:0"}, oursArgs...), []string{"-http", "127.0.0.1:0"}, ", Streamable HTTP"
	}
	servers := []Server{
		{Name: "mcp-bash", Path: ours, Args: oursArgs, Dir: project,
			Info: ver(exec.Command(ours, "--version")) + ", examples/00-hello-tool (Bash + SDK) in the sandbox" + how},
		{Name: "mcp-go", Path: mcpgo, Args: peerArgs, Dir: tmp,
			Info: "github.com/mark3labs/mcp-go " + ver(exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/mark3labs/mcp-go")) + ", Go hello tool (peers/mcpgo)" + how},
		{Name: "go-sdk", Path: gosdk, Args: peerArgs, Dir: tmp,
			Info: "github.com/modelcontextprotocol/go-sdk " + ver(exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/modelcontextprotocol/go-sdk")) + ", Go hello tool (peers/gosdk)" + how},
		{Name: "floor", Path: floor, Args: peerArgs, Dir: tmp,
			Info: "calibration, not a peer: a Go program that answers every message with a canned result, no MCP library (peers/floor)" + how},
	}
	for i := range servers {
		servers[i].HTTP = overHTTP
	}
	return servers, nil
}
