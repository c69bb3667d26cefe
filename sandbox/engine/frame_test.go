package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// TestFrameCauses: the run's one context ends with the first cause (the timeout is its timer,
// not a second context), and Finish names it: a timeout, an output cap, a client's
// cancellation, or none when the run ended on its own before the timer.
func TestFrameCauses(t *testing.T) {
	cases := []struct {
		name string
		// act ends the run (or not) and returns once the frame's context is done.
		act   func(f *Frame, cancelParent context.CancelFunc)
		check func(o *Outcome) bool
	}{
		{"timeout", func(f *Frame, _ context.CancelFunc) { <-f.Ctx.Done() },
			func(o *Outcome) bool { return o.TimedOut && o.Limit == LimitNone && !o.Cancelled }},
		{"stdout cap before the timeout", func(f *Frame, _ context.CancelFunc) {
			_, _ = f.Stdout.Write(make([]byte, 64))
			<-f.Ctx.Done()
		}, func(o *Outcome) bool { return o.Limit == LimitStdout && !o.TimedOut }},
		{"client cancellation", func(f *Frame, cancel context.CancelFunc) {
			cancel()
			<-f.Ctx.Done()
		}, func(o *Outcome) bool { return o.Cancelled && !o.TimedOut }},
		{"ended before the timer", func(f *Frame, _ context.CancelFunc) {},
			func(o *Outcome) bool { return !o.TimedOut && !o.Cancelled && o.Limit == LimitNone }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			timeout := 20 * time.Millisecond
			if tc.name != "timeout" {
				timeout = time.Hour // only the case under test can end the run
			}
			job := &Job{Policy: sandbox.Policy{Limits: sandbox.Limits{Timeout: timeout, MaxStdoutBytes: 16}},
				Cancelled: func() bool { return parent.Err() != nil }}
			f, err := BeginFrame(parent, job, sandbox.Scratch{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tc.act(f, cancel)
			var out Outcome
			f.Finish(&out, 0, nil)
			if !tc.check(&out) {
				t.Fatalf("outcome %+v, cause %v", out, context.Cause(f.Ctx))
			}
			if errors.Is(context.Cause(f.Ctx), ErrTimedOut) != (tc.name == "timeout") {
				t.Fatalf("cause %v", context.Cause(f.Ctx))
			}
		})
	}
}
