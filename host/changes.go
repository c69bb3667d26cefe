package host

import (
	"context"
	"errors"

	"github.com/mcp-bash/mcp-bash/host/internal/audit"
	"github.com/mcp-bash/mcp-bash/host/internal/changes"
)

// ChangeSet is one review-mode call's changes waiting for a person's word (docs/REVIEW.md).
type ChangeSet = changes.Set

// ChangeConflict is a path that changed in its root since the call read it.
type ChangeConflict = changes.Conflict

// ErrNoChangeSet: no change set waits under the id (never made, decided or expired).
var ErrNoChangeSet = changes.ErrNotPending

// Changes is review mode's store as a person uses it (`mcp-bash changes`, the hosting operator
// endpoint). It needs no project: the store is the operator's (MCPBASH_CHANGES_DIR).
type Changes struct {
	st    *changes.Store
	audit *audit.Logger
}

// OpenChanges opens the change store the environment of o names. It finishes or undoes commits
// a crash interrupted, and drops what expired.
func OpenChanges(o Options) (*Changes, error) {
	set, err := o.settings()
	if err != nil {
		return nil, err
	}
	st, al, err := openChanges(set, o.getenv(), nil)
	if err != nil {
		return nil, err
	}
	return &Changes{st: st, audit: al}, nil
}

// Close releases the audit log.
func (c *Changes) Close() {
	if c.audit != nil {
		c.audit.Close()
	}
}

// Dir is the store's directory.
func (c *Changes) Dir() string { return c.st.Dir() }

// List returns the sets waiting, oldest first.
func (c *Changes) List() ([]*ChangeSet, error) { return c.st.List() }

// Get returns a waiting set.
func (c *Changes) Get(id string) (*ChangeSet, error) { return c.st.Get(id) }

// Commit writes a waiting set into its roots on by's word (by names the person, for the audit
// log), or returns the conflicts that stopped it before it wrote anything.
func (c *Changes) Commit(ctx context.Context, id, kind, by string) (bool, []ChangeConflict, error) {
	r, err := c.st.Commit(ctx, id, changes.Actor{Kind: kind, Name: by})
	if r == nil {
		return false, nil, err
	}
	return r.Committed, r.Conflicts, err
}

// Discard drops a waiting set on by's word: nothing of it is written.
func (c *Changes) Discard(id, kind, by string) error {
	return c.st.Discard(id, changes.Actor{Kind: kind, Name: by})
}

// IsNoChangeSet reports whether err says no set waits under the id.
func IsNoChangeSet(err error) bool { return errors.Is(err, changes.ErrNotPending) }

// ChangeSetSummary is a set's changes one per line (at most max, then how many more).
func ChangeSetSummary(s *ChangeSet, max int) string { return s.Summary(max) }

// ChangeSetPatch is a set's text diffs (at most max bytes, then a note).
func ChangeSetPatch(s *ChangeSet, max int) string { return s.Patch(max) }
