package host

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// toolSink forwards a running tool's progress and logs to the client at once, with the
// client's own token, strictly increasing progress and a per-request rate limit.
type toolSink struct {
	s     *Session
	out   outbox // the call's exchange
	token json.RawMessage
	// progress and logs are the call's two budgets (MCPBASH_MAX_PROGRESS_PER_MIN,
	// MCPBASH_MAX_LOGS_PER_MIN).
	progress, logs budget
	// level is the request's log level, read per log line: the session's (logging/setLevel may
	// change it mid-call), or the request's own in 2026-07-28, where false means no logs at all.
	level   func() (Level, bool)
	mu      sync.Mutex
	last    float64
	sent    bool
	closed  bool
	dropped int
}

// budget is a sliding one-minute rate limit.
type budget struct {
	perMin int
	window []time.Time
}

func newToolSink(ctx context.Context, s *Session, token json.RawMessage, progressPerMin, logsPerMin int) *toolSink {
	if progressPerMin <= 0 {
		progressPerMin = 100
	}
	if logsPerMin <= 0 {
		logsPerMin = progressPerMin
	}
	return &toolSink{s: s, out: s.outFor(ctx), token: token, progress: budget{perMin: progressPerMin}, logs: budget{perMin: logsPerMin},
		level: func() (Level, bool) { return s.Level(), true }}
}

// allow applies b's sliding one-minute rate limit, counting what it drops. Called with mu held.
func (k *toolSink) allow(b *budget) bool {
	now := time.Now()
	cut := now.Add(-time.Minute)
	i := 0
	for i < len(b.window) && b.window[i].Before(cut) {
		i++
	}
	b.window = b.window[i:]
	if len(b.window) >= b.perMin {
		k.dropped++
		return false
	}
	b.window = append(b.window, now)
	return true
}

func (k *toolSink) Progress(ctx context.Context, progress float64, total *float64, message string) {
	if k.token == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || (k.sent && progress <= k.last) || !k.allow(&k.progress) {
		return
	}
	k.sent, k.last = true, progress
	p := map[string]any{"progressToken": k.token, "progress": progress}
	if total != nil {
		p["total"] = *total
	}
	if message != "" {
		p["message"] = message
	}
	k.s.notifyOn(k.out, "notifications/progress", p)
}

func (k *toolSink) Log(ctx context.Context, level, logger string, data json.RawMessage) {
	l, ok := ParseLevel(level)
	if !ok {
		l = LevelInfo
	}
	if floor, ok := k.level(); !ok || l < floor {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || !k.allow(&k.logs) {
		return
	}
	if logger == "" {
		logger = "mcp.tools"
	}
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	k.s.notifyOn(k.out, "notifications/message", map[string]any{"level": l.String(), "logger": logger, "data": data})
}

// Dropped is how many notifications the rate limit dropped.
func (k *toolSink) Dropped() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dropped
}

func (k *toolSink) Close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
}
