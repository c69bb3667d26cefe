package pgroup

import (
	"context"
	"testing"
)

func TestKillReachesInnerGroups(t *testing.T) {
	tests := []struct {
		name      string
		killOuter bool
		killInner bool
		wantOuter bool
		wantInner bool
	}{
		{"none", false, false, false, false},
		{"outer", true, false, true, true},
		{"inner", false, true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, outer := New(context.Background(), 2)
			ctx, inner := New(ctx, 15)
			if From(ctx) != inner {
				t.Fatal("From does not return the innermost group")
			}
			gotOuter, gotInner := make(chan struct{}), make(chan struct{})
			stopOuter := outer.OnKill(func() { close(gotOuter) })
			stopInner := inner.OnKill(func() { close(gotInner) })
			if tt.killOuter {
				outer.Kill()
			}
			if tt.killInner {
				inner.Kill()
			}
			// A stop that still finds f pending reports true: the group was not signalled.
			if tt.wantOuter {
				<-gotOuter
			} else if !stopOuter() {
				t.Error("outer group signalled")
			}
			if tt.wantInner {
				<-gotInner
				// The members hear the signal of the group that was signalled.
				want := 15
				if tt.killOuter && !tt.killInner {
					want = 2
				}
				if got := inner.Signal(); got != want {
					t.Errorf("inner group's members got signal %d, want %d", got, want)
				}
			} else if !stopInner() {
				t.Error("inner group signalled")
			}
		})
	}
}

func TestFromWithoutGroup(t *testing.T) {
	if From(context.Background()) != nil {
		t.Fatal("a context without a group has one")
	}
}
