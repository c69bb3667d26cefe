package tenants

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestValidIDIsTheGrammar: ValidID accepts exactly what the documented grammar does.
func TestValidIDIsTheGrammar(t *testing.T) {
	grammar := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$`)
	ids := []string{"", "a", "acme", "a.b", ".", "..", ".a", "-a", "a/b", "a b", "é", "a\x00", "A_1@x-y.z",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "_a", "@", "a\n"}
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aZ09._@-/ é\n"
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		ids = append(ids, b.String())
	}
	for _, id := range ids {
		if got, want := ValidID(id), grammar.MatchString(id); got != want {
			t.Errorf("ValidID(%q) = %v, the grammar says %v", id, got, want)
		}
	}
}
