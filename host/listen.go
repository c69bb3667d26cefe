package host

import (
	"context"
	"encoding/json"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// subscriptions/listen (2026-07-28) replaces the legacy session's list_changed notifications and
// resources/subscribe: the client opens a long-lived request naming the notifications it wants,
// the server acknowledges what it agreed to, and every notification sent for it carries the
// request's id as _meta.io.modelcontextprotocol/subscriptionId. The stream ends with a result
// when the server tears it down (here: the client's input ended) and with no answer when the
// client cancels it. An open stream holds no worker; the streams and the resources watched
// that a scope may hold at once are its seats (seatTable), and opening one is admitted and
// audited as a call is (pipeline.go).

// listener is one open subscriptions/listen stream.
type listener struct {
	id                        json.RawMessage
	out                       outbox // the stream its notifications and its end go to
	tools, prompts, resources bool
	subs                      []*subscription // its resourceSubscriptions
	release                   func()          // gives back its seats (once)
}

type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

func subscriptionMeta(id json.RawMessage) map[string]any {
	return map[string]any{metaSubscriptionID: id}
}

func (srv *Server) subscriptionsListen(ctx context.Context, s *Session, r *Request) (any, error) {
	if statelessInfo(ctx) == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", nil)
	}
	var p struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Notifications == nil {
		return nil, invalidParams("Invalid params: notifications is required")
	}
	// Agree only to what this server can send: the feature must exist and each resource must be
	// readable now (as resources/subscribe requires).
	has := map[string]bool{}
	for _, f := range srv.features() {
		has[f.name] = true
	}
	want := p.Notifications
	agreed := subscriptionFilter{
		ToolsListChanged:     want.ToolsListChanged && has["tools"],
		PromptsListChanged:   want.PromptsListChanged && has["prompts"],
		ResourcesListChanged: want.ResourcesListChanged && has["resources"],
	}
	var uris []string
	if _, ok := srv.handlers["resources/read"]; ok {
		seen, most := map[string]bool{}, r.scope.seats().subscriptions
		for _, uri := range want.ResourceSubscriptions {
			if uri != "" && !seen[uri] {
				seen[uri] = true
				uris = append(uris, uri)
			}
			if most > 0 && len(uris) > most {
				break // refused below; the rest need not be looked at
			}
		}
	}
	// The stream's seats are taken before any resource is read: a scope over its share is
	// refused at once, whatever it asked for.
	release, err := srv.pipe.seats.take(r.scope, true, len(uris))
	if err != nil {
		return nil, err
	}
	opened := false
	defer func() {
		if !opened {
			release()
		}
	}()
	var subs []*subscription
	for _, uri := range uris {
		if ctx.Err() != nil {
			return nil, errSuppressed // the client hung up (or cancelled) while it was being opened
		}
		c, err := srv.readResource(ctx, s, r.scope, uri, "")
		if err != nil {
			continue
		}
		agreed.ResourceSubscriptions = append(agreed.ResourceSubscriptions, uri)
		subs = append(subs, &subscription{id: "listen-" + jsonrpc.IDKey(r.ID) + "-" + uri, uri: uri, hash: contentHash(c), listenID: r.ID})
	}
	// Load and scan the registries first, so that changes from the acknowledgement on are seen
	// as changes (a stateless client may listen before it ever lists).
	srv.reg.Warm(ctx)
	srv.notifyChanges(ctx)
	// The acknowledgement comes before anything else carrying this subscription's id.
	s.notifyFor(ctx, "notifications/subscriptions/acknowledged", map[string]any{"notifications": agreed, "_meta": subscriptionMeta(r.ID)})
	l := &listener{id: r.ID, out: s.outFor(ctx), tools: agreed.ToolsListChanged, prompts: agreed.PromptsListChanged, resources: agreed.ResourcesListChanged,
		subs: subs, release: release}
	key := jsonrpc.IDKey(r.ID)
	s.listenMu.Lock()
	if s.listenEnded {
		s.listenMu.Unlock()
		return listenEnd(r.ID), nil // the input ended while this stream was being opened
	}
	if h, ok := l.out.(holder); ok {
		h.hold() // the exchange stays open after this handler returns without an answer
	}
	if _, dup := s.listeners[key]; dup {
		s.listenMu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request", "Duplicate request id "+key+" is an open subscriptions/listen stream")
	}
	if s.listeners == nil {
		s.listeners = map[string]*listener{}
	}
	s.listeners[key] = l
	opened = true
	s.listenMu.Unlock()
	s.subs.mu.Lock()
	if s.subs.byID == nil {
		s.subs.byID = map[string]*subscription{}
	}
	for _, sub := range subs {
		s.subs.byID[sub.id] = sub
	}
	start := len(subs) > 0 && !s.subs.started
	if start {
		s.subs.started = true
	}
	s.subs.mu.Unlock()
	if start {
		srv.startPolling(s)
	}
	if ctx.Err() != nil { // cancelled while it was being opened
		s.dropListener(key)
		return nil, errSuppressed
	}
	// The stream stays open without holding a worker: it is answered when the input ends
	// (endListeners) and dropped without an answer when the client cancels it (dropListener).
	return nil, errHeld
}

func listenEnd(id json.RawMessage) map[string]any {
	return map[string]any{"_meta": subscriptionMeta(id), "resultType": resultComplete}
}

// dropListener closes a stream the client cancelled; it reports whether one was open.
func (s *Session) dropListener(key string) bool {
	s.listenMu.Lock()
	l, ok := s.listeners[key]
	delete(s.listeners, key)
	s.listenMu.Unlock()
	if ok {
		s.subs.mu.Lock()
		for _, sub := range l.subs {
			delete(s.subs.byID, sub.id)
		}
		s.subs.mu.Unlock()
		l.release()
	}
	return ok
}

// endListeners closes every open stream when the session's input ends: gracefully, with a
// SubscriptionsListenResult, unless the client asked to exit.
func (s *Session) endListeners(answer bool) {
	s.listenMu.Lock()
	s.listenEnded = true
	ls := s.listeners
	s.listeners = nil
	s.listenMu.Unlock()
	s.subs.mu.Lock()
	for _, l := range ls {
		for _, sub := range l.subs {
			delete(s.subs.byID, sub.id)
		}
		l.release()
	}
	s.subs.mu.Unlock()
	if !answer {
		return
	}
	for _, l := range ls {
		res, err := s.srv.finishStateless("subscriptions/listen", listenEnd(l.id), false)
		if line := s.replyLine(l.id, res, err); line != nil {
			s.sendTo(l.out, line, kindResponse)
		}
	}
}

// holder is an outbox that a handler may keep open after returning without an answer (the
// HTTP exchange of a subscriptions/listen stream).
type holder interface{ hold() }

// listenersFor returns the open streams that asked for a kind of list_changed notification.
func (s *Session) listenersFor(method string) []*listener {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	var out []*listener
	for _, l := range s.listeners {
		if (method == "notifications/tools/list_changed" && l.tools) ||
			(method == "notifications/prompts/list_changed" && l.prompts) ||
			(method == "notifications/resources/list_changed" && l.resources) {
			out = append(out, l)
		}
	}
	return out
}

// listenerOut is the stream of the open listen request with this id (nil: none).
func (s *Session) listenerOut(id json.RawMessage) outbox {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	if l := s.listeners[jsonrpc.IDKey(id)]; l != nil {
		return l.out
	}
	return nil
}

func (s *Session) hasListeners() bool {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	return len(s.listeners) > 0
}
