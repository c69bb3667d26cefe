package sandbox

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrMemoryBudget is the typed cause of a call ended by its memory budget.
var ErrMemoryBudget = errors.New("memory budget exceeded")

// Budget is one call's memory budget for what its in-process utilities hold (sed's pattern and
// hold space, the lines sort and diff keep, jq's input, awk's and jq's heap growth, ...). Each
// utility run charges what it allocates as it grows and gives it back when it ends; the first
// charge that would pass the budget fails with ErrMemoryBudget and calls Exceeded once (the
// engine cancels the call with that cause). A nil *Budget has no limit. Safe for concurrent use
// (pipeline stages and background jobs charge the same budget).
type Budget struct {
	max  int64
	used atomic.Int64
	// exceeded runs once, on the first refused charge.
	exceeded func()
	once     sync.Once
}

// NewBudget returns a budget of max bytes (max <= 0: no limit, nil) that calls exceeded the
// first time a charge is refused.
func NewBudget(max int64, exceeded func()) *Budget {
	if max <= 0 {
		return nil
	}
	return &Budget{max: max, exceeded: exceeded}
}

// Max is the budget in bytes (0 for none).
func (b *Budget) Max() int64 {
	if b == nil {
		return 0
	}
	return b.max
}

// Remaining is what can still be charged.
func (b *Budget) Remaining() int64 {
	if b == nil {
		return 1<<63 - 1
	}
	return max(b.max-b.used.Load(), 0)
}

// Charge reserves n bytes, or fails with ErrMemoryBudget (reserving nothing).
func (b *Budget) Charge(n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		b.Exceed()
		return fmt.Errorf("%w (the call's utilities may hold %d MiB)", ErrMemoryBudget, b.max>>20)
	}
	return nil
}

// Release gives back n bytes charged before.
func (b *Budget) Release(n int64) {
	if b != nil && n > 0 {
		b.used.Add(-n)
	}
}

// Exceed reports the budget as exceeded without a charge (a heap watch over code that cannot
// charge, such as awk and jq).
func (b *Budget) Exceed() {
	if b != nil && b.exceeded != nil {
		b.once.Do(b.exceeded)
	}
}

// Err is the error a utility reports when its budget was exceeded.
func (b *Budget) Err() error {
	return fmt.Errorf("%w (the call's utilities may hold %d MiB)", ErrMemoryBudget, b.Max()>>20)
}
