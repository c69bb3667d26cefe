package host

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/changes"
)

// ChangesEndpoint is where `serve --http` serves the operator's endpoints on review mode's
// change sets (docs/REVIEW.md):
//
//	GET  /changes              the sets waiting
//	GET  /changes/{id}         one set, with its diffs
//	POST /changes/{id}/commit  write it (409 with the conflicts when a file changed meanwhile)
//	POST /changes/{id}/discard drop it
//
// They answer only the operator's bearer secret (MCPBASH_OPERATOR_TOKEN, compared in constant
// time): no tenant credential, API key or remote token opens them, and without the setting they
// are not served at all (404).
const ChangesEndpoint = "/changes"

// changesHandler is the operator endpoint, or nil when MCPBASH_OPERATOR_TOKEN is unset.
func (srv *Server) changesHandler() http.Handler {
	token := srv.cfg.Settings.OperatorToken
	if token == "" {
		return nil
	}
	reply := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(w http.ResponseWriter, code int, msg string) { reply(w, code, map[string]string{"error": msg}) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bash operator"`)
			fail(w, http.StatusUnauthorized, "the operator's bearer secret (MCPBASH_OPERATOR_TOKEN) is required")
			return
		}
		st, err := srv.changeStore()
		if err != nil {
			fail(w, http.StatusServiceUnavailable, "the change store cannot be opened: "+err.Error())
			return
		}
		by := changes.Actor{Kind: "operator", Name: "operator endpoint, from " + r.RemoteAddr}
		parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, ChangesEndpoint), "/"), "/")
		switch {
		case len(parts) == 1 && parts[0] == "" && r.Method == http.MethodGet:
			sets, err := st.List()
			if err != nil {
				fail(w, http.StatusInternalServerError, err.Error())
				return
			}
			out := []map[string]any{}
			for _, s := range sets {
				out = append(out, map[string]any{"id": s.ID, "tool": s.Tool, "tenant": s.Tenant, "subject": s.Subject,
					"session": s.Session, "created": s.Created, "expires": s.Expires, "changes": len(s.Files), "digest": s.Digest,
					"summary": s.Summary(50)})
			}
			reply(w, http.StatusOK, map[string]any{"changeSets": out})
		case len(parts) == 1 && r.Method == http.MethodGet:
			s, err := st.Get(parts[0])
			if err != nil {
				fail(w, notFoundOr(err), err.Error())
				return
			}
			reply(w, http.StatusOK, s)
		case len(parts) == 2 && parts[1] == "commit" && r.Method == http.MethodPost:
			res, err := st.Commit(r.Context(), parts[0], by)
			switch {
			case res == nil:
				fail(w, notFoundOr(err), err.Error())
			case !res.Committed:
				reply(w, http.StatusConflict, map[string]any{"committed": false, "conflicts": res.Conflicts})
			case err != nil:
				reply(w, http.StatusInternalServerError, map[string]any{"committed": true, "error": err.Error()})
			default:
				reply(w, http.StatusOK, map[string]any{"committed": true, "id": parts[0]})
			}
		case len(parts) == 2 && parts[1] == "discard" && r.Method == http.MethodPost:
			if err := st.Discard(parts[0], by); err != nil {
				fail(w, notFoundOr(err), err.Error())
				return
			}
			reply(w, http.StatusOK, map[string]any{"discarded": true, "id": parts[0]})
		default:
			fail(w, http.StatusNotFound, "GET /changes, GET /changes/{id}, POST /changes/{id}/commit or POST /changes/{id}/discard")
		}
	})
}

// notFoundOr is 404 for a set that does not wait, else 400 (a malformed id) or 500.
func notFoundOr(err error) int {
	switch {
	case errors.Is(err, changes.ErrNotPending):
		return http.StatusNotFound
	case err != nil && strings.Contains(err.Error(), "is not a change set id"):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
