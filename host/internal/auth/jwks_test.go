package auth

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// TestKeySetDocumentCap: a key set larger than maxDocBytes is refused, not read into memory.
func TestKeySetDocumentCap(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"keys":[],"pad":"` + strings.Repeat("a", maxDocBytes) + `"}`))
	}))
	defer srv.Close()
	ks := &keySet{client: srv.Client(), issuer: srv.URL, jwksURL: srv.URL + "/jwks", minRefresh: time.Minute, maxAge: time.Hour,
		now: time.Now, log: slog.New(slog.DiscardHandler)}
	_, err := ks.lookup(context.Background(), "k", jose.RS256)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want the size cap", err)
	}
}

// TestKeySetSkipsUnusableKeys: one exotic or symmetric key does not fail the whole set.
func TestKeySetSkipsUnusableKeys(t *testing.T) {
	var warned []string
	keys, err := parseJWKS([]byte(`{"keys":[
		{"kty":"oct","k":"c2VjcmV0","kid":"sym"},
		{"kty":"XYZ","kid":"exotic"},
		{"kty":"EC","crv":"P-256","kid":"enc","use":"enc","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
		{"kty":"EC","crv":"P-256","kid":"sig","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
	]}`), func(msg string, _ ...any) { warned = append(warned, msg) })
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].KeyID != "sig" {
		t.Fatalf("kept %d keys: %+v", len(keys), keys)
	}
	if len(warned) != 2 {
		t.Fatalf("warnings %v, want the symmetric and the exotic key", warned)
	}
	if _, err := parseJWKS([]byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`), func(string, ...any) {}); err == nil {
		t.Fatal("a set with no usable key was accepted")
	}
}
