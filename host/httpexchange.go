package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/sse"
)

// An exchange is one POST that carries requests: the outbox of those requests' messages. It
// answers with application/json when the first thing the requests produce is their response,
// and switches to an SSE stream as soon as anything comes before it (progress, logs, a question
// to the client), or when the answer takes longer than the keep-alive interval
// (docs/DECISIONS.md). The response ends the stream.

const (
	modeUndecided = iota
	modeJSON
	modeSSE
	modeEnded
)

// errNoStream: a request to the client cannot be sent, the client accepting JSON only.
var errNoStream = errors.New("the client accepts no event stream on this request and has no GET stream to carry a request")

type exchange struct {
	t             *httpTransport
	hs            *httpSession // nil: a 2026-07-28 request, outside any session
	w             http.ResponseWriter
	jsonOK, sseOK bool
	batch         bool
	prime         bool // send a priming event first (2025-11-25)
	stateless     bool
	// sessionID, on initialize, opens the session when the answer goes out and says its id
	// ("": initialize failed).
	sessionID func() string
	// cancelReq cancels the request (2026-07-28: a disconnect is a cancellation).
	cancelReq func()
	// owner is the buffer budget share its stream counts against.
	owner   *sse.Owner
	started time.Time
	// rctx is the HTTP request's context, done when the client goes away; watched (stopWatch)
	// only once a disconnect changes something: a stream, a held exchange, a 2026-07-28 request.
	rctx context.Context

	mu        sync.Mutex
	mode      int
	want      int // responses still owed
	held      bool
	collected [][]byte // a batch's responses while undecided
	stream    *sse.Stream
	conn      *sse.Conn
	gone      bool // the client went away
	done      chan struct{}
	finished  bool
	stopWatch func() bool // set once the disconnect is watched
}

func (t *httpTransport) newExchange(w http.ResponseWriter, hs *httpSession, jsonOK, sseOK bool, want int, batch bool) *exchange {
	ex := &exchange{t: t, hs: hs, w: w, jsonOK: jsonOK, sseOK: sseOK, want: want, batch: batch,
		started: time.Now(), done: make(chan struct{})}
	if hs != nil {
		ex.owner = hs.owner
	}
	return ex
}

// hold keeps the exchange open after its request's handler returned without an answer
// (subscriptions/listen); the answer, a disconnect or the drain ends it.
func (ex *exchange) hold() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.held = true
	ex.watchLocked()
}

// watchLocked starts watching for the client's disconnect (disconnected); mu is held.
//
// A 2025-xx request answered with one JSON body is not watched: a disconnect cancels nothing
// in those revisions, and an answer written after it only fails on the closed connection. The
// watch (a context.AfterFunc on the request's context, about 0.5 KB and five allocations per
// request) starts when a disconnect must act: the answer becomes a stream (it must stay
// resumable, not be written into a dead connection), the exchange is held, or the request is a
// 2026-07-28 one (a disconnect cancels it). AfterFunc runs disconnected on its own goroutine,
// also when the client is already gone, so calling it with mu held cannot deadlock.
func (ex *exchange) watchLocked() {
	if ex.stopWatch == nil && ex.rctx != nil {
		ex.stopWatch = context.AfterFunc(ex.rctx, ex.disconnected)
	}
}

// unwatch stops the disconnect watch, if one started.
func (ex *exchange) unwatch() {
	ex.mu.Lock()
	stop := ex.stopWatch
	ex.mu.Unlock()
	if stop != nil {
		stop()
	}
}

func (ex *exchange) isHeld() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.held && !ex.finished
}

func (ex *exchange) finish() {
	if !ex.finished {
		ex.finished = true
		close(ex.done)
	}
}

// send is the outbox of the exchange's requests.
func (ex *exchange) send(ctx context.Context, line []byte, kind msgKind) error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.mode == modeEnded || ex.finished {
		return errOutboxClosed
	}
	final := false
	if kind == kindResponse {
		ex.want--
		final = ex.want <= 0
	}
	if ex.mode == modeUndecided {
		switch {
		case kind == kindResponse && ex.jsonOK:
			ex.collected = append(ex.collected, line)
			if final {
				ex.writeJSON()
				ex.finish()
			}
			return nil
		case kind != kindResponse && !ex.sseOK:
			if kind == kindNotification {
				return nil // a JSON-only client gets its answer alone
			}
			if ex.hs != nil {
				return ex.hs.send(ctx, line, kind) // a question: on the GET stream, if one opens
			}
			return errNoStream
		}
		ex.startSSE()
	}
	err := ex.stream.Push(line, kind == kindNotification, final)
	if final {
		ex.finish()
	}
	if errors.Is(err, sse.ErrDropped) {
		return nil // counted by the stream; a notification the reader was too slow for
	}
	return err
}

// writeJSON answers with the collected response(s); mu is held.
func (ex *exchange) writeJSON() {
	ex.mode = modeJSON
	h := ex.w.Header()
	h["Content-Type"] = contentTypeJSON
	if ex.sessionID != nil {
		if id := ex.sessionID(); id != "" {
			h.Set(hdrSessionID, id)
		}
	}
	var body []byte
	status := http.StatusOK
	if ex.batch {
		body = append(body, '[')
		for i, l := range ex.collected {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, l...)
		}
		body = append(body, ']')
	} else {
		body = ex.collected[0]
		if ex.stateless {
			status = statelessStatus(body)
		}
	}
	ex.collected = nil
	if ex.gone {
		return
	}
	// The answer says its length: net/http would send one of more than 2 KB chunked. It
	// stays in net/http's buffer until end flushes it, once the requests' work has returned
	// what it held (end).
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	_ = http.NewResponseController(ex.w).SetWriteDeadline(time.Now().Add(sse.WriteTimeout))
	ex.w.WriteHeader(status)
	_, _ = ex.w.Write(body)
}

// contentTypeJSON is the Content-Type of JSON answers, one slice for all (net/http copies the
// header when it writes it, and never changes a value).
var contentTypeJSON = []string{"application/json"}

// statelessStatus is the HTTP status of a 2026-07-28 answer: the errors the transport page
// gives a status of their own, else 200.
func statelessStatus(line []byte) int {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Error == nil {
		return http.StatusOK
	}
	switch m.Error.Code {
	case -32601:
		return http.StatusNotFound
	case codeHeaderMismatch, codeMissingClientCapability, codeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// startSSE turns the answer into an event stream; mu is held.
func (ex *exchange) startSSE() {
	ex.mode = modeSSE
	ex.watchLocked()
	sseHeaders(ex.w)
	if ex.sessionID != nil {
		if id := ex.sessionID(); id != "" {
			ex.w.Header().Set(hdrSessionID, id)
		}
	}
	if ex.hs != nil && !ex.stateless {
		ex.stream = ex.hs.newStream()
	} else {
		ex.stream = sse.NewOwned("", ex.t.srv.cfg.Settings.HTTP.StreamBuffer, ex.owner)
	}
	if !ex.gone {
		ex.w.WriteHeader(http.StatusOK)
		ex.conn = sse.NewConn(ex.w)
		_ = ex.stream.Attach(ex.conn, 0, false)
	}
	if ex.prime {
		ex.stream.Prime()
	}
	for _, l := range ex.collected {
		_ = ex.stream.Push(l, false, false)
	}
	ex.collected = nil
}

// keepAlive sends a comment on the stream, first turning a late answer into one.
func (ex *exchange) keepAlive(now time.Time, interval time.Duration) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	switch {
	case ex.mode == modeSSE:
		ex.stream.Comment("keep-alive")
	case ex.mode == modeUndecided && ex.sseOK && ex.sessionID == nil && now.Sub(ex.started) >= interval:
		ex.startSSE()
		ex.stream.Comment("keep-alive")
	}
}

// disconnected runs when the client's connection ends: nothing more is written to it; a
// 2026-07-28 request is cancelled (a 2025-xx one goes on: its client may resume).
func (ex *exchange) disconnected() {
	ex.mu.Lock()
	ex.gone = true
	st, c := ex.stream, ex.conn
	ex.conn = nil
	ex.mu.Unlock()
	if st != nil && c != nil {
		st.Detach(c)
	}
	if ex.cancelReq != nil {
		ex.cancelReq()
	}
}

// end closes the exchange when its handler returns: nothing is written to the response after
// this. A request that produced no answer (cancelled) gets an empty stream, or 202 from a
// JSON-only client; a stream not yet read to its end stays resumable.
func (ex *exchange) end() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	switch ex.mode {
	case modeJSON:
		// The answer goes out now, before the handler's own end (the exchange's bookkeeping,
		// net/http's end of the request), which then runs while the client reads it. Not
		// earlier, in writeJSON: by now the calls have given back their slots, admission
		// tickets and ids, so a client that sends its next request the moment it has the
		// answer finds them free, as it did when net/http wrote the answer after the handler.
		if !ex.gone {
			_ = http.NewResponseController(ex.w).Flush()
		}
	case modeUndecided:
		if !ex.gone {
			if len(ex.collected) > 0 {
				ex.writeJSON() // a batch some of whose requests were cancelled
			} else if ex.sseOK {
				sseHeaders(ex.w)
				ex.w.WriteHeader(http.StatusOK)
			} else {
				ex.w.WriteHeader(http.StatusAccepted)
			}
		}
	case modeSSE:
		if ex.conn != nil {
			ex.stream.Detach(ex.conn)
			ex.conn = nil
		}
		ex.stream.Close()
		if ex.hs != nil && !ex.stateless {
			ex.hs.streamEnded(ex.stream)
		} else {
			ex.stream.Release() // a stream without ids cannot be resumed
		}
	}
	ex.mode = modeEnded
	ex.finish()
}
