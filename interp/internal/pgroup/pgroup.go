// Package pgroup carries a process group through a context. GNU timeout runs its command in
// a process group of its own and, when the time runs out, signals the whole group: the
// background jobs a `bash -c` under it started end with it. When the command returns in
// time, timeout signals nothing and those jobs go on as orphans. A Group is that signal.
package pgroup

import "context"

// Group is a process group: Kill signals it, and the groups made inside it, once.
type Group struct {
	ctx  context.Context
	kill context.CancelFunc
}

type key struct{}

// New makes a group inside the one ctx carries (if any) and returns ctx carrying it.
func New(ctx context.Context) (context.Context, *Group) {
	parent := context.Background()
	if p := From(ctx); p != nil {
		parent = p.ctx
	}
	g := &Group{}
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
func (g *Group) Kill() { g.kill() }

// OnKill calls f (on a goroutine of its own) when the group is signalled; stop undoes that
// and reports whether it did so before f was called.
func (g *Group) OnKill(f func()) (stop func() bool) {
	return context.AfterFunc(g.ctx, f)
}
