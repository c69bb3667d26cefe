package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// HTTPServer is the binary serving Streamable HTTP (`serve --http 127.0.0.1:0`).
type HTTPServer struct {
	t   testing.TB
	cmd *exec.Cmd
	// URL is the MCP endpoint; Base the server's root (probes, metadata).
	URL, Base string

	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// StartHTTP starts the binary with `serve --http 127.0.0.1:0` and o.Args, and waits until it
// listens. At test end it is stopped with SIGTERM (then killed if it does not exit).
func StartHTTP(t testing.TB, o Options) *HTTPServer {
	t.Helper()
	cmd := o.command(t, append([]string{"serve", "--http", "127.0.0.1:0"}, o.Args...))
	s := &HTTPServer{t: t, cmd: cmd, done: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			var rec struct {
				Msg string `json:"msg"`
				URL string `json:"url"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				listening <- rec.URL
			}
		}
		s.err = cmd.Wait()
		close(s.done)
	}()
	select {
	case u := <-listening:
		s.URL = u
		s.Base = strings.TrimSuffix(u, "/mcp")
	case <-s.done:
		t.Fatalf("server exited before listening: %v\n%s", s.err, s.Stderr())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("server did not listen within 30s\n%s", s.Stderr())
	}
	stopAtEnd(t, cmd, s.done, func() { _ = cmd.Process.Signal(syscall.SIGTERM) }, 20*time.Second, s.Stderr)
	return s
}

// Stderr is what the server logged so far.
func (s *HTTPServer) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// PID is the server process's id (to read its memory from /proc).
func (s *HTTPServer) PID() int { return s.cmd.Process.Pid }

// Signal sends sig to the server process.
func (s *HTTPServer) Signal(sig os.Signal) { _ = s.cmd.Process.Signal(sig) }

// Wait waits for the server to exit and returns its exit error.
func (s *HTTPServer) Wait(timeout time.Duration) error {
	s.t.Helper()
	select {
	case <-s.done:
		return s.err
	case <-time.After(timeout):
		s.t.Fatalf("server did not exit within %v\n%s", timeout, s.Stderr())
		return nil
	}
}

// SSEEvent is one server-sent event.
type SSEEvent struct {
	ID, Data string
	Retry    string
	Comment  bool
}

// ReadSSE reads events from r and sends each on out until r ends; comments are sent too.
func ReadSSE(r io.Reader, out chan<- SSEEvent) {
	defer close(out)
	br := bufio.NewReaderSize(r, 1<<16)
	var ev SSEEvent
	var data []string
	has := false
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if has {
				ev.Data = strings.Join(data, "\n")
				out <- ev
			}
			ev, data, has = SSEEvent{}, nil, false
		case strings.HasPrefix(line, ":"):
			out <- SSEEvent{Comment: true, Data: strings.TrimSpace(line[1:])}
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			has = true
			switch field {
			case "id":
				ev.ID = value
			case "data":
				data = append(data, value)
			case "retry":
				ev.Retry = value
			}
		}
		if err != nil {
			return
		}
	}
}

// HTTPTranscripts records the messages of every session that goes through a Recorder.
type transcript struct {
	key     string
	in, out [][]byte
}

// Recorder is a reverse proxy to an MCP endpoint that records every client message and every
// server message (JSON bodies and SSE events), per session (per request for 2026-07-28), and
// validates each server message against the schema of its revision when the test ends.
type Recorder struct {
	URL string

	mu    sync.Mutex
	byKey map[string]*transcript
	order []*transcript
	n     int
}

// NewRecorder starts a recording proxy in front of target (an MCP endpoint URL).
func NewRecorder(t testing.TB, target string) *Recorder {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{byKey: map[string]*transcript{}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.URL.Path = u.Path
			pr.Out.Host = u.Host
		},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			tr := resp.Request.Context().Value(recKey{}).(*transcript)
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				rec.rename(tr, id)
			}
			ct := resp.Header.Get("Content-Type")
			switch {
			case strings.HasPrefix(ct, "text/event-stream"):
				pr, pw := io.Pipe()
				body := resp.Body
				resp.Body = struct {
					io.Reader
					io.Closer
				}{pr, body}
				go func() {
					events := make(chan SSEEvent)
					go ReadSSE(io.TeeReader(body, pw), events)
					for ev := range events {
						if !ev.Comment && ev.Data != "" {
							rec.out(tr, []byte(ev.Data))
						}
					}
					pw.Close()
				}()
			case strings.HasPrefix(ct, "application/json"):
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				resp.Body = io.NopCloser(bytes.NewReader(b))
				if resp.StatusCode/100 == 2 || bytes.Contains(b, []byte(`"jsonrpc"`)) {
					rec.outBody(tr, b)
				}
			}
			return nil
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		tr := rec.transcriptFor(r, body)
		if len(bytes.TrimSpace(body)) > 0 {
			rec.in(tr, body)
		}
		proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), recKey{}, tr)))
	}))
	rec.URL = srv.URL + u.Path
	t.Cleanup(func() {
		srv.Close()
		rec.validate(t)
	})
	return rec
}

type recKey struct{}

func (rec *Recorder) transcriptFor(r *http.Request, body []byte) *transcript {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	key := r.Header.Get("Mcp-Session-Id")
	if key == "" || r.Header.Get("Mcp-Protocol-Version") == StatelessRevision || bytes.Contains(body, []byte(MetaProtocolVersion)) {
		rec.n++
		key = fmt.Sprintf("request-%d", rec.n)
	}
	tr := rec.byKey[key]
	if tr == nil {
		tr = &transcript{key: key}
		rec.byKey[key] = tr
		rec.order = append(rec.order, tr)
	}
	return tr
}

// rename files a transcript under the session id the server gave it.
func (rec *Recorder) rename(tr *transcript, id string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	delete(rec.byKey, tr.key)
	tr.key = id
	rec.byKey[id] = tr
}

func (rec *Recorder) in(tr *transcript, body []byte) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	tr.in = append(tr.in, splitBatch(body)...)
}

func (rec *Recorder) out(tr *transcript, msg []byte) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	tr.out = append(tr.out, append([]byte(nil), msg...))
}

func (rec *Recorder) outBody(tr *transcript, body []byte) {
	for _, m := range splitBatch(body) {
		rec.out(tr, m)
	}
}

func splitBatch(body []byte) [][]byte {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(body, &items) == nil {
			out := make([][]byte, len(items))
			for i, it := range items {
				var c bytes.Buffer
				_ = json.Compact(&c, it)
				out[i] = c.Bytes()
			}
			return out
		}
	}
	var c bytes.Buffer
	if json.Compact(&c, body) != nil {
		return [][]byte{body}
	}
	return [][]byte{c.Bytes()}
}

// Messages is the number of server messages recorded so far.
func (rec *Recorder) Messages() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, tr := range rec.order {
		n += len(tr.out)
	}
	return n
}

func (rec *Recorder) validate(t testing.TB) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, tr := range rec.order {
		n += len(tr.out)
		for _, err := range ValidateTranscript(tr.in, tr.out) {
			t.Errorf("%s: %v", tr.key, err)
		}
	}
	t.Logf("recorder: %d transcripts, %d server messages validated", len(rec.order), n)
}
