package conformance

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Bridge is a test-only Streamable HTTP (MCP 2025-11-25) front for a stdio server: an
// initialize POST without Mcp-Session-Id starts a server process and names the session; later
// POSTs are written to that process's stdin. A request is answered on its own SSE stream (a
// priming event, then the notifications and server requests that belong to it, then its
// response); notifications and responses from the client get 202. GET opens the session's
// standalone stream for server messages no request stream takes; DELETE ends the session.
// Requests whose Host or Origin is not localhost are refused (DNS rebinding protection).
type Bridge struct {
	// Command makes the server process of a new session (stdin and stdout are the bridge's).
	Command func() *exec.Cmd

	mu       sync.Mutex
	sessions map[string]*session
	ended    []*session
}

// maxBody bounds one POST body.
const maxBody = 16 << 20

// Transcript is what one session's server process read and wrote.
type Transcript struct {
	ID      string
	In, Out [][]byte
	Stderr  string
}

// Transcripts returns every session's lines so far (live and ended).
func (b *Bridge) Transcripts() []Transcript {
	b.mu.Lock()
	all := append([]*session(nil), b.ended...)
	for _, s := range b.sessions {
		all = append(all, s)
	}
	b.mu.Unlock()
	var out []Transcript
	for _, s := range all {
		s.mu.Lock()
		out = append(out, Transcript{ID: s.id, In: append([][]byte(nil), s.in...), Out: append([][]byte(nil), s.out...), Stderr: s.stderr.String()})
		s.mu.Unlock()
	}
	return out
}

// Close ends every session.
func (b *Bridge) Close() {
	b.mu.Lock()
	ss := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		ss = append(ss, s)
	}
	b.mu.Unlock()
	for _, s := range ss {
		b.end(s)
	}
}

type session struct {
	id    string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the server's stdout ends

	mu         sync.Mutex
	streams    map[string]*stream // open request streams by request id
	order      []string           // their ids, oldest first
	tokens     map[string]string  // progress token → request id
	standalone *stream
	in, out    [][]byte
	stderr     bytes.Buffer
	eventID    int
	writeMu    sync.Mutex
}

// stream carries server lines to one open SSE response.
type stream struct {
	ch   chan []byte
	gone chan struct{} // closed when the HTTP handler returns
	id   string        // request id key ("" for the standalone stream)
}

func newStream(id string) *stream {
	return &stream{ch: make(chan []byte, 64), gone: make(chan struct{}), id: id}
}

func (st *stream) send(line []byte) {
	select {
	case st.ch <- line:
	case <-st.gone:
	}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// localHost reports whether a Host header value (or an Origin's host) names this machine.
func localHost(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

func jsonError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, code, msg)
}

// knownRevisions are the MCP-Protocol-Version values the server speaks.
var knownRevisions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

func (b *Bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !localHost(r.Host) {
		jsonError(w, http.StatusForbidden, -32000, "Forbidden: Host is not localhost")
		return
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !localHost(u.Host) {
			jsonError(w, http.StatusForbidden, -32000, "Forbidden: Origin is not localhost")
			return
		}
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !knownRevisions[v] {
		jsonError(w, http.StatusBadRequest, -32000, "Bad Request: unsupported MCP-Protocol-Version "+v)
		return
	}
	switch r.Method {
	case http.MethodPost:
		b.post(w, r)
	case http.MethodGet:
		b.get(w, r)
	case http.MethodDelete:
		s := b.lookup(w, r)
		if s != nil {
			b.end(s)
			w.WriteHeader(http.StatusOK)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		jsonError(w, http.StatusMethodNotAllowed, -32000, "Method not allowed")
	}
}

// lookup finds the request's session, answering 400 (no header) or 404 (unknown) itself.
func (b *Bridge) lookup(w http.ResponseWriter, r *http.Request) *session {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		jsonError(w, http.StatusBadRequest, -32000, "Bad Request: Mcp-Session-Id header is required")
		return nil
	}
	b.mu.Lock()
	s := b.sessions[id]
	b.mu.Unlock()
	if s == nil {
		jsonError(w, http.StatusNotFound, -32001, "Session not found")
		return nil
	}
	select {
	case <-s.done:
		b.end(s)
		jsonError(w, http.StatusNotFound, -32001, "Session not found (server exited)")
		return nil
	default:
	}
	return s
}

func (b *Bridge) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.Contains(strings.ToLower(ct), "application/json") {
		jsonError(w, http.StatusUnsupportedMediaType, -32000, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		jsonError(w, http.StatusRequestEntityTooLarge, -32000, "Request body too large")
		return
	}
	body = bytes.TrimSpace(body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if len(body) > 0 && body[0] == '[' {
		jsonError(w, http.StatusBadRequest, -32600, "Invalid Request: batches are not supported")
		return
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		jsonError(w, http.StatusBadRequest, -32700, "Parse error")
		return
	}
	var s *session
	if msg.Method == "initialize" && r.Header.Get("Mcp-Session-Id") == "" {
		if s, err = b.start(); err != nil {
			jsonError(w, http.StatusInternalServerError, -32603, "cannot start server: "+err.Error())
			return
		}
		w.Header().Set("Mcp-Session-Id", s.id)
	} else if s = b.lookup(w, r); s == nil {
		return
	}
	line := append(bytes.ReplaceAll(body, []byte("\n"), nil), '\n')
	if msg.ID == nil || msg.Method == "" {
		// A notification, or the client's answer to a server request.
		if err := s.write(line); err != nil {
			jsonError(w, http.StatusNotFound, -32001, "Session not found (server exited)")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	key := idKey(msg.ID)
	st := newStream(key)
	defer close(st.gone)
	s.mu.Lock()
	if _, dup := s.streams[key]; dup {
		s.mu.Unlock()
		jsonError(w, http.StatusBadRequest, -32600, "Invalid Request: request id already in use")
		return
	}
	s.streams[key] = st
	s.order = append(s.order, key)
	if tok := msg.Params.Meta.ProgressToken; tok != nil {
		s.tokens[idKey(tok)] = key
	}
	s.mu.Unlock()
	defer s.closeStream(st)
	if err := s.write(line); err != nil {
		jsonError(w, http.StatusNotFound, -32001, "Session not found (server exited)")
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		// JSON only: wait for the response; anything else for this request is dropped.
		for {
			select {
			case l := <-st.ch:
				if isResponse(l, key) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(l)
					return
				}
			case <-s.done:
				jsonError(w, http.StatusInternalServerError, -32603, "server exited before answering")
				return
			case <-r.Context().Done():
				return
			}
		}
	}
	b.sse(w, r, s, st, key)
}

// sse streams st as Server-Sent Events until the response to key (if any) has been sent.
func (b *Bridge) sse(w http.ResponseWriter, r *http.Request, s *session, st *stream, key string) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	// Priming event: an id and empty data, and how long to wait before reconnecting.
	_, _ = fmt.Fprintf(w, "id: %s\nretry: 1000\ndata: \n\n", s.nextEventID())
	if fl != nil {
		fl.Flush()
	}
	for {
		select {
		case l := <-st.ch:
			_, _ = fmt.Fprintf(w, "id: %s\nevent: message\ndata: %s\n\n", s.nextEventID(), l)
			if fl != nil {
				fl.Flush()
			}
			if key != "" && isResponse(l, key) {
				return
			}
		case <-s.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (b *Bridge) get(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		jsonError(w, http.StatusNotAcceptable, -32000, "Not Acceptable: Accept must include text/event-stream")
		return
	}
	s := b.lookup(w, r)
	if s == nil {
		return
	}
	st := newStream("")
	defer close(st.gone)
	s.mu.Lock()
	if s.standalone != nil {
		s.mu.Unlock()
		jsonError(w, http.StatusConflict, -32000, "Conflict: the session already has a standalone stream")
		return
	}
	s.standalone = st
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.standalone == st {
			s.standalone = nil
		}
		s.mu.Unlock()
	}()
	b.sse(w, r, s, st, "")
}

func isResponse(line []byte, key string) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == "" && m.ID != nil && idKey(m.ID) == key
}

func (s *session) nextEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eventID++
	return fmt.Sprintf("%s-%d", s.id[:8], s.eventID)
}

func (s *session) write(line []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	s.in = append(s.in, bytes.TrimSuffix(line, []byte("\n")))
	s.mu.Unlock()
	_, err := s.stdin.Write(line)
	return err
}

func (s *session) closeStream(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, st.id)
	for i, k := range s.order {
		if k == st.id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	for tok, k := range s.tokens {
		if k == st.id {
			delete(s.tokens, tok)
		}
	}
}

func (b *Bridge) start() (*session, error) {
	cmd := b.Command()
	s := &session{id: newID(), cmd: cmd, done: make(chan struct{}), streams: map[string]*stream{}, tokens: map[string]string{}}
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = &lockedBuffer{mu: &s.mu, b: &s.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go s.route(stdout)
	b.mu.Lock()
	if b.sessions == nil {
		b.sessions = map[string]*session{}
	}
	b.sessions[s.id] = s
	b.mu.Unlock()
	return s, nil
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// route delivers each server line: a response to its request's stream, progress to the stream
// of the request that holds the token, anything else to the newest open request stream, else
// the standalone stream, else nowhere (it is still recorded and validated).
func (s *session) route(stdout io.Reader) {
	defer close(s.done)
	br := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if l := bytes.TrimRight(line, "\r\n"); len(l) > 0 {
			l = append([]byte(nil), l...)
			if st := s.target(l); st != nil {
				st.send(l)
			}
		}
		if err != nil {
			return
		}
	}
}

func (s *session) target(l []byte) *stream {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	_ = json.Unmarshal(l, &m)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = append(s.out, l)
	switch {
	case m.Method == "" && m.ID != nil:
		return s.streams[idKey(m.ID)]
	case m.Method == "notifications/progress" && m.Params.ProgressToken != nil:
		if k, ok := s.tokens[idKey(m.Params.ProgressToken)]; ok && s.streams[k] != nil {
			return s.streams[k]
		}
	}
	if n := len(s.order); n > 0 {
		return s.streams[s.order[n-1]]
	}
	return s.standalone
}

// end closes the server's stdin, waits for it to exit (killing it after 5 s) and forgets the
// session (its transcript is kept).
func (b *Bridge) end(s *session) {
	b.mu.Lock()
	if b.sessions[s.id] != s {
		b.mu.Unlock()
		return
	}
	delete(b.sessions, s.id)
	b.ended = append(b.ended, s)
	b.mu.Unlock()
	_ = s.stdin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	_ = s.cmd.Wait()
}
