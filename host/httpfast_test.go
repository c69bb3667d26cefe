package host

import (
	"mime"
	"net/http"
	"strings"
	"testing"
)

// acceptsByParsing is accepts as it parsed every part of Accept (the reference).
func acceptsByParsing(vals []string) (jsonOK, sseOK bool) {
	if len(vals) == 0 {
		return true, true
	}
	for _, v := range vals {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || params["q"] == "0" {
				continue
			}
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/*", "application/json":
				jsonOK = true
			case "text/*", "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

// TestAcceptsFastPath: reading bare media types without mime.ParseMediaType answers as parsing
// every part did.
func TestAcceptsFastPath(t *testing.T) {
	for _, h := range [][]string{nil, {""}, {"application/json, text/event-stream"}, {"Application/JSON"}, {"TEXT/Event-Stream"},
		{"*/*"}, {"application/*;q=0.5, text/*"}, {"application/json;q=0, text/event-stream"}, {"application/json garbage"},
		{"application / json"}, {"text/html", "application/json"}, {",,application/json,"}, {"application/json;charset=utf-8"},
		{"application/jsonx, text/event-streams"}, {"*/*;q=0"}, {"\tapplication/json\t"}} {
		r := &http.Request{Header: http.Header{}}
		for _, v := range h {
			r.Header.Add("Accept", v)
		}
		j, s := accepts(r)
		wj, ws := acceptsByParsing(r.Header.Values("Accept"))
		if j != wj || s != ws {
			t.Errorf("Accept %q: %v %v, want %v %v", h, j, s, wj, ws)
		}
	}
}
