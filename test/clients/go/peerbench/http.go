package peerbench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The HTTP client shared by all servers: net/http with keep-alive connections, the requests of
// a 2025-11-25 session (Mcp-Session-Id and MCP-Protocol-Version headers), each POST answered
// either as application/json or as an SSE stream (the answer is the stream's response event).
type httpClient struct {
	cmd  *exec.Cmd
	url  string
	sid  string
	hc   *http.Client
	next atomic.Int64
}

var listeningURL = regexp.MustCompile(`"url":"(http://127\.0\.0\.1:[0-9]+/mcp)"`)

// startHTTP starts a server whose arguments make it listen on 127.0.0.1:0 and waits for the
// line on stderr that says where; the rest of stderr is read and dropped.
func startHTTP(s Server) (*httpClient, error) {
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = serverEnv(s)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stderr)
		found := false
		for {
			line, err := br.ReadBytes('\n')
			if m := listeningURL.FindSubmatch(line); !found && m != nil {
				urls <- string(m[1])
				found = true
			}
			if err != nil {
				if !found {
					close(urls)
				}
				return
			}
		}
	}()
	c := &httpClient{cmd: cmd, hc: &http.Client{Transport: &http.Transport{
		MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute, DisableCompression: true,
	}}}
	select {
	case u, ok := <-urls:
		if !ok {
			c.close()
			return nil, errors.New("the server exited before it listened")
		}
		c.url = u
	case <-time.After(30 * time.Second):
		c.close()
		return nil, errors.New("the server did not listen within 30s")
	}
	return c, nil
}

func (c *httpClient) pid() int { return c.cmd.Process.Pid }

func (c *httpClient) close() {
	c.hc.CloseIdleConnections()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// post sends one message in session sid and returns the status, the session id the server
// gave, and the response message (nil for 202).
func (c *httpClient) post(body []byte, sid string) (int, string, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json, text/event-stream"}
	if sid != "" {
		req.Header["Mcp-Session-Id"] = []string{sid}
		req.Header["Mcp-Protocol-Version"] = []string{"2025-11-25"}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, "", nil, err
	}
	if resp.StatusCode == http.StatusAccepted {
		return resp.StatusCode, "", nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return 0, "", nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	msg := bytes.TrimSpace(b)
	if ct := resp.Header.Get("Content-Type"); len(ct) >= 17 && ct[:17] == "text/event-stream" {
		msg = nil
		for l := range bytes.Lines(b) {
			if d, ok := bytes.CutPrefix(bytes.TrimRight(l, "\r\n"), []byte("data:")); ok {
				if _, ok := responseID(bytes.TrimSpace(d)); ok {
					msg = bytes.TrimSpace(d)
					break
				}
			}
		}
		if msg == nil {
			return 0, "", nil, fmt.Errorf("SSE answer without a response: %s", b)
		}
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), msg, nil
}

// session opens a session: initialize, then notifications/initialized.
func (c *httpClient) session() (string, error) {
	_, sid, msg, err := c.post([]byte(initLine), "")
	if err != nil {
		return "", err
	}
	if id, ok := responseID(msg); !ok || id != 0 || sid == "" {
		return "", fmt.Errorf("initialize answered %q without a session (%q)", msg, sid)
	}
	status, _, _, err := c.post([]byte(initializedLine), sid)
	if err != nil {
		return "", err
	}
	if status != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: HTTP %d", status)
	}
	return sid, nil
}

func (c *httpClient) initialize() (err error) {
	c.sid, err = c.session()
	return err
}

func (c *httpClient) request(m method, id int64, buf []byte) []byte {
	buf = append(buf[:0], m.prefix...)
	buf = strconv.AppendInt(buf, id, 10)
	return append(buf, m.suffix...)
}

func (c *httpClient) callID(m method, id int64, buf []byte) ([]byte, error) {
	_, _, msg, err := c.post(c.request(m, id, buf), c.sid)
	if err != nil {
		return nil, err
	}
	got, ok := responseID(msg)
	if !ok || got != id {
		return nil, fmt.Errorf("response %s, want id %d", msg, id)
	}
	return msg, resultOK(msg)
}

func (c *httpClient) call(m method) ([]byte, error) { return c.callID(m, c.next.Add(1), nil) }

// burst sends n hello calls at once, each its own POST, and waits for every answer.
func (c *httpClient) burst(n int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	t0 := time.Now()
	for range n {
		id := c.next.Add(1)
		wg.Go(func() {
			if _, err := c.callID(helloReq, id, nil); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	d := time.Since(t0)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return d, nil
}

// idleSessions measures the memory of idle sessions in a fresh server process (no garbage from
// the other phases): after a first k/10 sessions (what the first sessions allocate once, pools
// and maps, is not counted per session), it opens k more and leaves them idle. The result is the
// growth of the server's anonymous RSS (heap, stacks) per session, in KiB: for a Go server up
// to about twice the live heap a session keeps, as the collector lets the heap grow to twice
// what is live before it collects.
func idleSessions(s Server, k int) (float64, error) {
	c, err := startHTTP(s)
	if err != nil {
		return 0, err
	}
	defer c.close()
	for range max(k/10, 1) {
		if _, err := c.session(); err != nil {
			return 0, err
		}
	}
	_, before, _, err := memStatus(c.pid())
	if err != nil {
		return 0, err
	}
	for range k {
		if _, err := c.session(); err != nil {
			return 0, err
		}
	}
	_, after, _, err := memStatus(c.pid())
	if err != nil {
		return 0, err
	}
	return float64(after-before) / float64(k), nil
}
