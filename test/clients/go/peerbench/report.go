package peerbench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

type row struct {
	name string
	unit string // how to print: "rate", "us", "ms", "mib"
	get  func(Sample) float64
}

var (
	helloRate = func(s Sample) float64 { return s.Hello.Rate }
	peakMiB   = func(s Sample) float64 { return float64(s.PeakRSSKiB) / 1024 }
	anonMiB   = func(s Sample) float64 { return float64(s.AnonKiB) / 1024 }
	coldMs    = func(s Sample) float64 { return ms(s.ColdStart) }
	concRate  = func(s Sample) float64 { return s.ConcRate }
)

var rows = []row{
	{"hello tools/call, sequential: calls/s", "rate", helloRate},
	{"hello latency p50 (µs)", "us", func(s Sample) float64 { return us(s.Hello.P50) }},
	{"hello latency p99 (µs)", "us", func(s Sample) float64 { return us(s.Hello.P99) }},
	{"hello server CPU per call (µs)", "us", func(s Sample) float64 { return us(s.Hello.CPUPerCall) }},
	{"ping, sequential: calls/s", "rate", func(s Sample) float64 { return s.Ping.Rate }},
	{"ping latency p50 (µs)", "us", func(s Sample) float64 { return us(s.Ping.P50) }},
	{"ping latency p99 (µs)", "us", func(s Sample) float64 { return us(s.Ping.P99) }},
	{"ping server CPU per call (µs)", "us", func(s Sample) float64 { return us(s.Ping.CPUPerCall) }},
	{"hello, 100 in flight: wall (ms)", "ms", func(s Sample) float64 { return ms(s.ConcWall) }},
	{"hello, 100 in flight: calls/s", "rate", func(s Sample) float64 { return s.ConcRate }},
	{"peak RSS, VmHWM (MiB)", "mib", peakMiB},
	{"RSS at end: anonymous (MiB)", "mib", anonMiB},
	{"RSS at end: file-backed, i.e. binary pages (MiB)", "mib", func(s Sample) float64 { return float64(s.FileKiB) / 1024 }},
	{"cold start, spawn → initialize result (ms)", "ms", coldMs},
}

// httpRows are reported for servers driven over HTTP only.
var httpRows = []row{
	{"memory per idle session: RssAnon growth (KiB)", "kib", func(s Sample) float64 { return s.SessionKiB }},
}

func (r *Result) http() bool { return len(r.Servers) > 0 && r.Servers[0].HTTP }

func (r *Result) rows() []row {
	if r.http() {
		return append(slices.Clone(rows), httpRows...)
	}
	return rows
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func format(unit string, v float64) string {
	switch unit {
	case "rate":
		return fmt.Sprintf("%.0f", v)
	case "us":
		if v < 100 {
			return fmt.Sprintf("%.1f", v)
		}
		return fmt.Sprintf("%.0f", v)
	case "ms":
		return fmt.Sprintf("%.2f", v)
	case "kib":
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

func (r *Result) values(i int, get func(Sample) float64) []float64 {
	v := make([]float64, len(r.Samples[i]))
	for k, s := range r.Samples[i] {
		v[k] = get(s)
	}
	return v
}

func (r *Result) med(i int, get func(Sample) float64) float64 { return median(r.values(i, get)) }

// runRatios are ours/peer within each run (same run, adjacent in time).
func (r *Result) runRatios(peer int, get func(Sample) float64) []float64 {
	out := make([]float64, 0, len(r.Samples[0]))
	for k := range r.Samples[0] {
		out = append(out, get(r.Samples[0][k])/get(r.Samples[peer][k]))
	}
	return out
}

// Bar is one acceptance bar of issue 11.
type Bar struct {
	Text     string
	Unit     string // benchmark metric unit for the ratio
	Peer     int    // index into Servers
	Get      func(Sample) float64
	AtLeast  bool // ratio ≥ Limit, else ratio ≤ Limit
	Limit    float64
	Ratio    float64   // ratio of medians
	PerRun   []float64 // ratios within each run
	Holds    bool
	RunsHold int
}

// Bars evaluates the performance issue's bars on the result (server 0 is ours, 1 mcp-go): over
// stdio, sequential hello at least mcp-go's rate, 100 calls in flight at least half of it, the
// anonymous memory at the end and the cold start at most 1.2× mcp-go's; over HTTP, sequential
// hello at least mcp-go's rate. (The binary's file-backed pages are shared page cache, the
// same for every process of it: the memory bar is the process's own memory.)
func (r *Result) Bars() []Bar {
	bars := []Bar{
		{Text: "sequential hello calls/s ≥ 1.0× mcp-go", Unit: "hello-rate/mcp-go", Peer: 1, Get: helloRate, AtLeast: true, Limit: 1.0},
		{Text: "hello with 100 in flight, calls/s ≥ 0.5× mcp-go", Unit: "inflight-rate/mcp-go", Peer: 1, Get: concRate, AtLeast: true, Limit: 0.5},
		{Text: "RSS at end, anonymous ≤ 1.2× mcp-go", Unit: "anon-rss/mcp-go", Peer: 1, Get: anonMiB, Limit: 1.2},
		{Text: "cold start ≤ 1.2× mcp-go", Unit: "cold-start/mcp-go", Peer: 1, Get: coldMs, Limit: 1.2},
	}
	if r.http() {
		bars = []Bar{
			{Text: "HTTP sequential hello calls/s ≥ 1.0× mcp-go", Unit: "http-hello-rate/mcp-go", Peer: 1, Get: helloRate, AtLeast: true, Limit: 1.0},
		}
	}
	for i := range bars {
		b := &bars[i]
		b.Ratio = r.med(0, b.Get) / r.med(b.Peer, b.Get)
		b.PerRun = r.runRatios(b.Peer, b.Get)
		ok := func(x float64) bool {
			if b.AtLeast {
				return x >= b.Limit
			}
			return x <= b.Limit
		}
		b.Holds = ok(b.Ratio)
		for _, x := range b.PerRun {
			if ok(x) {
				b.RunsHold++
			}
		}
	}
	return bars
}

// index is the position of the server called name, or -1.
func (r *Result) index(name string) int {
	for i, s := range r.Servers {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// Markdown renders the comparison table, the bars and the per-run spread.
func (r *Result) Markdown() string {
	var sb strings.Builder
	o := r.Options
	transport := "stdio"
	if r.http() {
		transport = "Streamable HTTP on loopback (2025-11-25 sessions; one net/http client with keep-alive for all servers)"
	}
	fmt.Fprintf(&sb, "Transport: %s.  \n", transport)
	fmt.Fprintf(&sb, "Machine: %s.  \n", r.Machine)
	fmt.Fprintf(&sb, "Run: %s, load average %s at the start and %s at the end; %d runs per server, servers interleaved in rotating order; "+
		"each cell is the median over runs (sequential phases %v each, cold start = median of %d spawns per run, concurrency = median of %d bursts of %d per run).\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.LoadStart, r.LoadEnd, o.Runs, o.SeqDuration, o.ColdStarts, o.Bursts, o.InFlight)
	if o.Think > 0 {
		fmt.Fprintf(&sb, "Sequential clients pause %v (busy) after each call: calls/s counts the pauses.\n\n", o.Think)
	}
	for _, s := range r.Servers {
		if s.Info != "" {
			fmt.Fprintf(&sb, "- %s: %s\n", s.Name, s.Info)
		}
	}
	sb.WriteString("\n| metric |")
	for _, s := range r.Servers {
		fmt.Fprintf(&sb, " %s |", s.Name)
	}
	for _, s := range r.Servers[1:] {
		fmt.Fprintf(&sb, " %s / %s |", r.Servers[0].Name, s.Name)
	}
	sb.WriteString("\n|---|")
	sb.WriteString(strings.Repeat("---:|", 2*len(r.Servers)-1))
	sb.WriteString("\n")
	for _, rw := range r.rows() {
		fmt.Fprintf(&sb, "| %s |", rw.name)
		for i := range r.Servers {
			fmt.Fprintf(&sb, " %s |", format(rw.unit, r.med(i, rw.get)))
		}
		for i := 1; i < len(r.Servers); i++ {
			fmt.Fprintf(&sb, " %.2f× |", r.med(0, rw.get)/r.med(i, rw.get))
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\n| bar | ratio of medians | ratios within each run | holds |\n|---|---:|---|---|\n")
	for _, b := range r.Bars() {
		per := make([]string, len(b.PerRun))
		for k, x := range b.PerRun {
			per[k] = fmt.Sprintf("%.2f", x)
		}
		verdict := "**missed**"
		if b.Holds {
			verdict = "yes"
		}
		fmt.Fprintf(&sb, "| %s | %.2f× | %s (%d/%d runs meet it) | %s |\n", b.Text, b.Ratio, strings.Join(per, ", "), b.RunsHold, len(b.PerRun), verdict)
	}
	if f := r.index("floor"); f > 0 && len(r.Servers) > 1 && !r.http() {
		cold, anon := r.med(f, coldMs), r.med(f, anonMiB)
		fmt.Fprintf(&sb, "\nCalibration (floor): starting a Go process that answers one line takes %.2f ms, %.2f× %s's cold start; "+
			"its anonymous memory at the end is %.1f MiB, %.2f× %s's.\n",
			cold, cold/r.med(1, coldMs), r.Servers[1].Name, anon, anon/r.med(1, anonMiB), r.Servers[1].Name)
	}
	if f := r.index("floor"); f > 0 && r.http() {
		fmt.Fprintf(&sb, "\nThe floor keeps no sessions: its %.1f KiB per idle session is the garbage of handling the requests that "+
			"open them, the measurement's noise floor.\n", r.med(f, func(s Sample) float64 { return s.SessionKiB }))
	}
	sb.WriteString("\nPer-run values (noise):\n\n")
	for i, s := range r.Servers {
		rate := r.values(i, helloRate)
		cold := r.values(i, coldMs)
		rs := make([]string, len(rate))
		cs := make([]string, len(cold))
		for k := range rate {
			rs[k] = format("rate", rate[k])
			cs[k] = format("ms", cold[k])
		}
		fmt.Fprintf(&sb, "- %s: hello calls/s %s; cold start ms %s\n", s.Name, strings.Join(rs, ", "), strings.Join(cs, ", "))
	}
	return sb.String()
}
