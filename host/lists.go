package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
)

// listKinds maps each list method to its registry kind and result member.
var listKinds = []struct {
	method, member string
	kind           registry.Kind
	loadErr        string
}{
	{"tools/list", "tools", registry.KindTools, "Unable to load tool registry"},
	{"resources/list", "resources", registry.KindResources, "Unable to load resource registry"},
	{"resources/templates/list", "resourceTemplates", registry.KindResourceTemplates, "Unable to load resource template registry"},
	{"prompts/list", "prompts", registry.KindPrompts, "Unable to load prompt registry"},
}

// registerLists wires the four paginated list methods to the registry.
func (srv *Server) registerLists() {
	for _, lk := range listKinds {
		lk := lk
		srv.handlers[lk.method] = handler{fn: func(ctx context.Context, s *Session, r *Request) (any, error) {
			var p struct {
				Cursor *string `json:"cursor"`
				Limit  *int    `json:"limit"`
			}
			if err := decodeParams(r.Params, &p); err != nil {
				return nil, err
			}
			cursor, limit := "", 0
			if p.Cursor != nil {
				cursor = *p.Cursor
			}
			if p.Limit != nil {
				limit = *p.Limit
			}
			// The TTL check runs on list requests too, so a change is announced before the
			// list that shows it.
			srv.notifyChanges(ctx)
			page, err := srv.reg.List(ctx, lk.kind, cursor, limit)
			switch {
			case errors.Is(err, registry.ErrInvalidCursor):
				return nil, invalidParams("Invalid cursor")
			case err != nil:
				srv.logf("%s: %v", lk.method, err)
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, lk.loadErr, err.Error())
			}
			items, total, err := r.scope.page(ctx, lk.kind, page.Items, page.Total)
			if err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, lk.loadErr, err.Error())
			}
			if lk.kind == registry.KindResources && !s.capsFor(ctx).ui() {
				// MCP Apps resources are for clients that declared the UI extension.
				items, total = withoutUI(items), total-srv.uiResourceCount(ctx, r.scope)
			}
			return &listResult{member: lk.member, items: items, total: total, nextCursor: page.NextCursor}, nil
		}}
	}
}

// notifyChanges re-checks the registries and tells every session that may receive them which
// kinds changed.
func (srv *Server) notifyChanges(ctx context.Context) {
	changed, err := srv.reg.Refresh(ctx)
	if err != nil {
		srv.logf("registry refresh: %v", err)
		return
	}
	if len(changed) == 0 {
		return
	}
	var methods []string
	for _, k := range changed {
		method := "notifications/tools/list_changed"
		switch k {
		case registry.KindResources, registry.KindResourceTemplates:
			method = "notifications/resources/list_changed"
		case registry.KindPrompts:
			method = "notifications/prompts/list_changed"
		}
		if !slices.Contains(methods, method) {
			methods = append(methods, method)
		}
	}
	for _, s := range srv.liveSessions() {
		s.announce(methods)
	}
}

// announce sends list_changed notifications: a legacy session gets them once ready (from
// 2025-06-18: older revisions advertise no listChanged); 2026-07-28 clients only on the
// subscriptions/listen streams that asked.
func (s *Session) announce(methods []string) {
	legacy := s.state.Load() == stateReady && advertisesListChanged(s.Protocol())
	for _, method := range methods {
		if legacy {
			s.Notify(method, map[string]any{})
		}
		for _, l := range s.listenersFor(method) {
			s.notifyOn(l.out, method, map[string]any{"_meta": subscriptionMeta(l.id)})
		}
	}
}

var uiMarker = []byte(`"provider":"ui"`)

func withoutUI(items []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		if !bytes.Contains(it, uiMarker) {
			out = append(out, it)
		}
	}
	return out
}

func (srv *Server) uiResourceCount(ctx context.Context, sc scope) int {
	res, err := srv.reg.Resources(ctx)
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range res {
		// Only those the total counted (the ones the scope sees).
		if r.Provider == "ui" && sc.visible(tenants.KindResource, r.Name) {
			n++
		}
	}
	return n
}
