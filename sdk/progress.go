package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// runWithProgress implements mcp_run_with_progress --pattern RE [--extract match1|ratio|json]
// [--total N] -- CMD...: CMD runs through the sandbox's command resolution with its stderr
// parsed line by line, live, into progress notifications (and still copied to stderr).
//   - match1 (default): the first capture group is a percentage;
//   - ratio: two groups are done and total (percent = done*100/total);
//   - json: the matching line is JSON with progress (and optional total, message).
func runWithProgress(s *State, ctx context.Context, env *engine.Env, args []string) int {
	var pattern, extract string
	var total float64
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch args[i] {
		case "--pattern":
			pattern = next()
		case "--extract":
			extract = next()
		case "--total":
			total, _ = strconv.ParseFloat(next(), 64)
		default:
			fmt.Fprintf(env.Stderr, "mcp_run_with_progress: unsupported option %s\n", args[i])
			return 2
		}
	}
	if i >= len(args)-1 {
		fmt.Fprintln(env.Stderr, "mcp_run_with_progress: usage: mcp_run_with_progress --pattern RE [--extract match1|ratio|json] -- CMD...")
		return 2
	}
	cmd := args[i+1:]
	if pattern == "" {
		pattern = `([0-9]+(?:\.[0-9]+)?)%`
	}
	re, err := sandbox.CompileRegexp(pattern)
	if err != nil {
		fmt.Fprintf(env.Stderr, "mcp_run_with_progress: bad pattern: %v\n", err)
		return 2
	}
	if env.Exec == nil {
		fmt.Fprintln(env.Stderr, "mcp_run_with_progress: cannot run commands here")
		return 126
	}
	p := &progressParser{ctx: ctx, s: s, re: re, extract: extract, total: total, out: env.Stderr}
	rc := env.Exec(ctx, cmd, nil, env.Stdin, env.Stdout, p)
	p.flush()
	return rc
}

// progressParser is an io.Writer that turns matching lines into progress.
type progressParser struct {
	ctx     context.Context
	s       *State
	re      *regexp.Regexp
	extract string
	total   float64
	out     io.Writer
	mu      sync.Mutex
	buf     []byte
}

func (p *progressParser) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out != nil {
		p.out.Write(b)
	}
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n") // progress bars often redraw with CR
		if i < 0 {
			break
		}
		p.line(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
	if len(p.buf) > 64<<10 {
		p.buf = p.buf[:0] // a line that never ends is not progress
	}
	return len(b), nil
}

func (p *progressParser) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.line(string(p.buf))
		p.buf = nil
	}
}

func (p *progressParser) line(l string) {
	if p.s.Call.ProgressToken == nil || p.s.Call.Sink == nil {
		return
	}
	m := p.re.FindStringSubmatch(l)
	if m == nil {
		return
	}
	msg := strings.TrimSpace(l)
	var pct float64
	switch p.extract {
	case "json":
		var v struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(l)), &v) != nil {
			return
		}
		pct = v.Progress
		if v.Total > 0 {
			pct = v.Progress * 100 / v.Total
		}
		if v.Message != "" {
			msg = v.Message
		}
	case "ratio":
		if len(m) < 3 {
			return
		}
		done, err1 := strconv.ParseFloat(m[1], 64)
		all, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil || all <= 0 {
			return
		}
		pct = done * 100 / all
	default:
		if len(m) < 2 {
			return
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return
		}
		pct = v
		if p.total > 0 {
			pct = v * 100 / p.total
		}
	}
	pct = max(0, min(100, float64(int(pct))))
	p.s.Call.Sink.Progress(p.ctx, pct, nil, msg)
}
