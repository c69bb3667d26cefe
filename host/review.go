package host

// Review mode (docs/REVIEW.md): a call whose write mode is "review" runs with a copy-on-write
// layer over its read-write roots (sandbox.Policy.Layer); its writes wait there as a change set
// until a person commits or discards it: the user through elicitation when the client offers
// it, else someone at `mcp-bash changes` or the hosting operator endpoint. Nothing the tool or
// the model sends decides it: the question is the server's, asked after the tool has ended.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/audit"
	"github.com/mcp-bash/mcp-bash/host/internal/changes"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Write modes.
const (
	WriteDirect = "direct"
	WriteReview = "review"
)

// reviewState is the server's change store, opened on first use.
type reviewState struct {
	once  sync.Once
	store *changes.Store
	err   error
	// audit is MCPBASH_AUDIT_LOG outside hosting mode (hosting's own logger otherwise).
	audit *audit.Logger
	// probeOnce tries, once, whether native tools' writes can be held here (probeErr: why not).
	probeOnce sync.Once
	probeErr  error
}

// writeMode is the mode a call of t runs in: review when the operator (MCPBASH_WRITE_MODE), the
// project (server.meta.json), the tool (tool.meta.json) or the tenant asks for it. A tool can
// raise the operator's floor, never lower it; a value other than direct is taken as review (a
// typo must not write directly; validate reports it).
func (srv *Server) writeMode(t *registry.Tool, sc scope) string {
	tool := metaString(t.Meta, "writeMode")
	if srv.cfg.Settings.WriteMode == WriteReview || srv.cfg.Meta.WriteMode == WriteReview ||
		(tool != "" && tool != WriteDirect) || sc.review() {
		return WriteReview
	}
	return WriteDirect
}

// changesDir is MCPBASH_CHANGES_DIR, else $XDG_STATE_HOME/mcp-bash/changes, else
// ~/.local/state/mcp-bash/changes ("" when none can be named).
func changesDir(set *config.Config, getenv func(string) string) string {
	if d := set.ChangesDir; d != "" {
		return d
	}
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "mcp-bash", "changes")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "mcp-bash", "changes")
	}
	return ""
}

// openChanges opens the change store of set; its decisions also go to al, else to
// MCPBASH_AUDIT_LOG opened here (returned, for the caller to close).
func openChanges(set *config.Config, getenv func(string) string, al *audit.Logger) (*changes.Store, *audit.Logger, error) {
	dir := changesDir(set, getenv)
	if dir == "" {
		return nil, nil, errors.New("no place for change sets: set MCPBASH_CHANGES_DIR (or HOME)")
	}
	var opened *audit.Logger
	if al == nil && set.AuditLog != "" {
		var err error
		if opened, err = audit.Open(set.AuditLog); err != nil {
			return nil, nil, err
		}
		al = opened
	}
	st, err := changes.Open(physicalPath(dir), changes.Options{TTL: set.ChangesTTL, MaxPending: set.ChangesMaxPending,
		Audit: func(ev changes.Event) { logChange(al, ev) }})
	if err != nil && opened != nil {
		opened.Close()
		opened = nil
	}
	return st, opened, err
}

// changeStore opens the change store once.
func (srv *Server) changeStore() (*changes.Store, error) {
	r := &srv.review
	r.once.Do(func() {
		r.store, r.audit, r.err = openChanges(srv.cfg.Settings, srv.cfg.Getenv, srv.auditLogger())
	})
	return r.store, r.err
}

// auditLogger is hosting mode's audit log (nil elsewhere).
func (srv *Server) auditLogger() *audit.Logger { return srv.pipe.auditLog }

func logChange(al *audit.Logger, ev changes.Event) {
	by := ""
	if ev.By != nil {
		by = ev.By.Kind
		if ev.By.Name != "" {
			by += ": " + ev.By.Name
		}
	}
	al.LogChange(context.Background(), audit.Change{Action: ev.Action, ID: ev.ID, Tool: ev.Tool, Tenant: ev.Tenant,
		Subject: ev.Subject, Sess: ev.Session, By: by, Digest: ev.Digest, Detail: ev.Detail, Files: ev.Files})
}

// closeReview releases the audit log review mode opened.
func (srv *Server) closeReview() {
	if srv.review.audit != nil {
		srv.review.audit.Close()
	}
}

// reviewUnsafe says why this server cannot keep change sets from every tool ("" when it can):
// processes that leave the sandbox (native tools, allowlisted host commands) run as the server's
// user, and only Landlock keeps them out of the store. Without it, review mode holds only where
// no tool of the project can start such a process.
func (srv *Server) reviewUnsafe(ctx context.Context) string {
	st := srv.cfg.Settings
	if st.RequireConfinement {
		return ""
	}
	if _, err := sandbox.LandlockStatus(); err == nil {
		return ""
	}
	leaves := srv.cfg.Exec == ExecNative
	tools, err := srv.reg.Tools(ctx)
	if err != nil {
		leaves = true // cannot tell: as if one could
	}
	for _, t := range tools {
		if (srv.wantsNative(t) && st.ToolAllowlist != nil) || len(srv.allowedCommands(t)) > 0 {
			leaves = true
		}
	}
	if !leaves {
		return ""
	}
	return "native tools or allowlisted host commands of this project run here without OS confinement, and could rewrite the change sets waiting for review; " +
		"fix: run on Linux with Landlock and set MCPBASH_REQUIRE_CONFINEMENT=true, or give the project no native tools and no allowlisted host commands"
}

// reviewCall is a review-mode call in progress.
type reviewCall struct {
	store *changes.Store
	layer string
	// rw are the call's read-write roots and the protected paths below each (from the policy,
	// never from what the engine reports).
	rw map[string][]string
}

// startReview prepares a review-mode call of tool: the layer directory in the job's policy.
// A refusal is returned as the error (a JSON-RPC error) or as a result.
func (srv *Server) startReview(ctx context.Context, tc ToolCall, tool *registry.Tool, kind string, job *engine.Job) (*reviewCall, *CallToolResult, error) {
	refuse := func(why string) (*reviewCall, *CallToolResult, error) {
		return nil, nil, invalidParams(fmt.Sprintf("Tool '%s' runs in review mode (its writes wait for a person's approval), but %s", tool.Name, why))
	}
	if kind == ExecNative {
		if why := srv.nativeReviewProblem(); why != "" {
			return refuse(why)
		}
	}
	if why := srv.reviewUnsafe(ctx); why != "" {
		return refuse(why)
	}
	st, err := srv.changeStore()
	if err != nil {
		return refuse("its change store cannot be opened: " + err.Error())
	}
	rw := map[string][]string{}
	for _, r := range job.Policy.Roots {
		if isWithin(st.Dir(), r.Path) || isWithin(r.Path, st.Dir()) {
			return refuse(fmt.Sprintf("the changes directory %s and the root %s overlap, so a tool could rewrite change sets; fix: set MCPBASH_CHANGES_DIR outside every root", st.Dir(), r.Path))
		}
		if r.Mode == sandbox.ReadWrite && !r.Protected {
			rw[r.Path] = job.Policy.Nested(r.Path)
		}
	}
	if n := srv.pendingFor(st, tc); n >= srv.cfg.Settings.ChangesMaxPending {
		res := srv.errorResult(tool.Name, fmt.Sprintf("Tool '%s' was not run: %v", tool.Name, changes.ErrFull{Max: srv.cfg.Settings.ChangesMaxPending}), "review", nil)
		return nil, res, nil
	}
	layer, err := st.NewLayer(tc.scope.tenant())
	if err != nil {
		return refuse("its layer directory cannot be made: " + err.Error())
	}
	job.Policy.Layer = layer
	return &reviewCall{store: st, layer: layer, rw: rw}, nil, nil
}

func isWithin(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// sameScope is the pending cap's scope of a call: what its scope shares the cap with (a
// tenant's sets, else its session's).
func sameScope(tc ToolCall) func(*changes.Set) bool {
	tenant, session := tc.scope.pending(tc.Session)
	return func(s *changes.Set) bool { return s.Tenant == tenant && (session == "" || s.Session == session) }
}

func (srv *Server) pendingFor(st *changes.Store, tc ToolCall) int {
	sets, err := st.List()
	if err != nil {
		return 0
	}
	same, n := sameScope(tc), 0
	for _, s := range sets {
		if same(s) {
			n++
		}
	}
	return n
}

// finishReview turns what the layer holds into a change set: asked about when the client can
// be, else kept waiting. It adds what happened to the result (text for the model, the diff as
// a resource for the client, and _meta["mcpbash/changes"]).
func (srv *Server) finishReview(ctx context.Context, rc *reviewCall, tc ToolCall, tool *registry.Tool, out *engine.Outcome, res *CallToolResult) {
	m := out.Review
	if out.Cancelled || m == nil || m.Empty() {
		rc.store.DropLayer(rc.layer)
		if res != nil && !out.Cancelled {
			res.meta()["mcpbash/changes"] = map[string]any{"status": "none"}
		}
		return
	}
	m.Dir = rc.layer // only ever the directory the server made
	status, set, detail := srv.keepReview(ctx, rc, tc, tool, m)
	if res == nil {
		if set != nil {
			srv.logf("tool %s: its call failed; its changes wait for review as change set %s (mcp-bash changes show %s)", tool.Name, set.ID, set.ID)
		}
		return
	}
	addReview(res, tool.Name, status, set, detail)
}

// keepReview builds and keeps the set, then asks the user when it can.
func (srv *Server) keepReview(ctx context.Context, rc *reviewCall, tc ToolCall, tool *registry.Tool, m *sandbox.LayerManifest) (string, *changes.Set, string) {
	if err := checkManifest(m, rc.rw); err != nil {
		rc.store.DropLayer(rc.layer)
		return "discarded", nil, "the engine reported changes outside its roots (" + err.Error() + "); nothing was written"
	}
	set, err := changes.Build(ctx, m)
	if err != nil {
		rc.store.DropLayer(rc.layer)
		return "discarded", nil, "the change set could not be read (" + err.Error() + "); nothing was written"
	}
	if len(set.Files) == 0 {
		rc.store.DropLayer(rc.layer)
		return "none", nil, ""
	}
	set.Tool, set.Session, set.Tenant = tool.Name, tc.Session, tc.scope.tenant()
	set.Subject = tc.Subject
	if err := rc.store.Keep(set, sameScope(tc)); err != nil {
		rc.store.DropLayer(rc.layer)
		return "discarded", set, err.Error() + "; nothing was written"
	}
	if !tc.ElicitSupported || tc.Elicit == nil || tc.stateless {
		return "pending", set, ""
	}
	ans, err := tc.Elicit(ctx, engine.ElicitRequest{Mode: "form", Message: approvalMessage(tool.Name, set), Schema: approvalSchema})
	if err != nil {
		return "pending", set, "the user was asked but did not answer (" + err.Error() + ")"
	}
	by := changes.Actor{Kind: "user", Name: tc.Client}
	if ans.Action != "accept" || !approved(ans.Content) {
		if err := rc.store.Discard(set.ID, by); err != nil {
			return "pending", set, "the user declined, but discarding failed: " + err.Error()
		}
		return "discarded", set, "the user declined; nothing was written"
	}
	r, err := rc.store.Commit(ctx, set.ID, by)
	switch {
	case err != nil && r != nil && r.Committed:
		return "committed", set, err.Error()
	case err != nil:
		return "pending", set, "the user approved, but the commit failed before writing: " + err.Error()
	case !r.Committed:
		return "conflict", set, "the user approved, but files changed since the call read them; nothing was written:\n" + changes.ConflictText(r.Conflicts)
	}
	return "committed", set, "the user approved; the changes were written"
}

// approvalSchema is the form the user answers: one yes/no.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","title":"Write these changes","description":"Yes writes the changes into your files; no discards them.","default":false}},"required":["approve"]}`)

func approved(content json.RawMessage) bool {
	var c struct {
		Approve bool `json:"approve"`
	}
	return json.Unmarshal(content, &c) == nil && c.Approve
}

// maxApprovalDiff bounds the diff shown in the question; maxResultDiff in the result's text and
// maxResourceDiff in its resource.
const (
	maxApprovalDiff = 16 << 10
	maxResultDiff   = 64 << 10
	maxResourceDiff = 1 << 20
)

func approvalMessage(tool string, set *changes.Set) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "The tool %q wants to change files (change set %s):\n%s\n", tool, set.ID, set.Summary(50))
	if p := set.Patch(maxApprovalDiff); p != "" {
		sb.WriteString("\n" + p)
	}
	sb.WriteString("\nWrite these changes? Nothing has been written yet.")
	return sb.String()
}

// addReview adds what happened to the call's changes to its result.
func addReview(res *CallToolResult, tool, status string, set *changes.Set, detail string) {
	meta := map[string]any{"status": status}
	if detail != "" {
		meta["detail"] = detail
	}
	if set == nil {
		res.meta()["mcpbash/changes"] = meta
		if status != "none" {
			res.Content = append(res.Content, Content{Text: "Review: " + detail})
		}
		return
	}
	files := make([]map[string]any, 0, len(set.Files))
	for _, f := range set.Files {
		e := map[string]any{"path": f.Abs(), "change": f.Change, "kind": f.Kind}
		if f.From != "" {
			e["from"] = filepath.Join(f.Root, f.From)
		}
		files = append(files, e)
	}
	meta["id"], meta["digest"], meta["files"] = set.ID, set.Digest, files
	if status == "pending" || status == "conflict" {
		meta["expires"] = set.Expires.Format(time.RFC3339)
	}
	var sb strings.Builder
	switch status {
	case "pending":
		fmt.Fprintf(&sb, "Review: the call's changes were not written. They wait as change set %s for a person's approval (mcp-bash changes show %s, then commit or discard; it expires %s).",
			set.ID, set.ID, set.Expires.Format(time.RFC3339))
		if detail != "" {
			sb.WriteString(" " + detail + ".")
		}
	case "conflict":
		fmt.Fprintf(&sb, "Review: change set %s: %s\nThe set still waits (mcp-bash changes commit %s once the conflicts are resolved, or discard it).", set.ID, detail, set.ID)
	default:
		fmt.Fprintf(&sb, "Review: change set %s: %s.", set.ID, detail)
	}
	sb.WriteString("\n" + set.Summary(200))
	if p := set.Patch(maxResultDiff); p != "" {
		sb.WriteString("\n\n" + p)
	}
	diff := set.Summary(len(set.Files)) + "\n\n" + set.Patch(maxResourceDiff)
	res.Content = append(res.Content, Content{Text: sb.String()},
		Content{Resource: &resourceContent{URI: "mcpbash://changes/" + set.ID, MIMEType: "text/x-diff", Text: &diff}})
	res.meta()["mcpbash/changes"] = meta
}

// checkManifest holds what an engine reports to the call's read-write roots: paths inside them,
// relative and clean, data files the layer's own, links that stay inside their root; and it
// puts the policy's protected paths in place of the engine's.
func checkManifest(m *sandbox.LayerManifest, rw map[string][]string) error {
	for i := range m.Roots {
		r := &m.Roots[i]
		nested, ok := rw[r.Path]
		if !ok {
			return fmt.Errorf("%s is not a read-write root of the call", r.Path)
		}
		r.Protected = nested
		for _, e := range r.Entries {
			for _, p := range []string{e.Path, e.Origin, e.From} {
				if p != "" && !cleanRel(p) {
					return fmt.Errorf("path %q", p)
				}
			}
			if e.Data != "" && !dataName(e.Data) {
				return fmt.Errorf("data file %q", e.Data)
			}
			if e.Kind == "symlink" && !linkInside(e.Path, e.Target) {
				return fmt.Errorf("link %s -> %s", e.Path, e.Target)
			}
		}
		for _, b := range r.Base {
			if !cleanRel(b.Path) {
				return fmt.Errorf("path %q", b.Path)
			}
		}
	}
	return nil
}

func cleanRel(p string) bool {
	return p != "." && !filepath.IsAbs(p) && filepath.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../")
}

func dataName(s string) bool {
	if len(s) < 2 || s[0] != 'f' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// linkInside: a relative target of leading ".." then names only, not climbing above the root
// from the link's directory (the sandbox's own rule, links.go; a commit checks that the
// directories on the way are real directories).
func linkInside(link, target string) bool {
	if target == "" || filepath.IsAbs(target) {
		return false
	}
	up, names := 0, false
	for _, c := range strings.Split(target, "/") {
		switch {
		case c == "" || c == ".":
		case c == "..":
			if names {
				return false
			}
			up++
		default:
			names = true
		}
	}
	return up <= strings.Count(link, "/")
}

// nativeReviewProblem says why a native tool cannot run in review mode here ("" when it can):
// its writes are held by overlay mounts in its own namespaces (Linux, with Landlock), which the
// server tries once (sandbox.LayerProbe) where the layers are made.
func (srv *Server) nativeReviewProblem() string {
	const fix = `; fix: run the tool in the sandbox (remove "exec": "native" from its tool.meta.json), or set its "writeMode" to "direct" where the operator allows it`
	if _, err := sandbox.LandlockStatus(); err != nil {
		return "its native engine holds writes for review only under Landlock: " + err.Error() + fix
	}
	st, err := srv.changeStore()
	if err != nil {
		return "its change store cannot be opened: " + err.Error()
	}
	r := &srv.review
	r.probeOnce.Do(func() {
		base, err := st.LayerBase("")
		if err == nil {
			err = sandbox.LayerProbe(selfBinary(srv.cfg), base)
		}
		r.probeErr = err
	})
	if r.probeErr != nil {
		return "its native engine runs real bash, whose writes can be held in a layer only through an overlay mount in a user namespace, and here " + r.probeErr.Error() + fix
	}
	return ""
}

// changesHide are the directories a native tool in review mode must not see: the change store.
func (srv *Server) changesHide() []string {
	if d := changesDir(srv.cfg.Settings, srv.cfg.Getenv); d != "" {
		return []string{physicalPath(d)}
	}
	return nil
}
