// Package pgroup carries a process group through a context. GNU timeout runs its command in
// a process group of its own and, when the time runs out, signals the whole group: the
// background jobs a `bash -c` under it started end with it. When the command returns in
// time, timeout signals nothing and those jobs go on as orphans. A Group is that signal.
package pgroup

import (
	"context"
	"sync/atomic"
)

// Group is a process group: Kill signals it, and the groups made inside it, once.
type Group struct {
	ctx    context.Context
	kill   context.CancelFunc
	parent *Group
	// sig is the signal Kill sends (timeout -s); killed, that Kill was called.
	sig    int
	killed atomic.Bool
}

type key struct{}

// New makes a group inside the one ctx carries (if any), whose Kill sends sig, and returns
// ctx carrying it.
func New(ctx context.Context, sig int) (context.Context, *Group) {
	parent := context.Background()
	g := &Group{sig: sig}
	if p := From(ctx); p != nil {
		parent, g.parent = p.ctx, p
	}
	// Detached from ctx's own cancellation: only a signal to this group or to the one it
	// lies in ends its members.
	g.ctx, g.kill = context.WithCancel(parent)
	return context.WithValue(ctx, key{}, g), g
}

// From returns the group ctx carries, or nil.
func From(ctx context.Context) *Group {
	g, _ := ctx.Value(key{}).(*Group)
	return g
}

// Kill signals the group.
func (g *Group) Kill() {
	g.killed.Store(true)
	g.kill()
}

// Signal is the signal that reaches the group's members: that of the innermost group around
// them that was signalled, else the group's own (its timeout's, which ends its command's
// context before it signals the group).
func (g *Group) Signal() int {
	for x := g; x != nil; x = x.parent {
		if x.killed.Load() {
			return x.sig
		}
	}
	return g.sig
}

// OnKill calls f (on a goroutine of its own) when the group is signalled; stop undoes that
// and reports whether it did so before f was called.
func (g *Group) OnKill(f func()) (stop func() bool) {
	return context.AfterFunc(g.ctx, f)
}
