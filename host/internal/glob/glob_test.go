package glob

import "testing"

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pat, name string
		want      bool
	}{
		{"*", "", true},
		{"*", "anything/at all", true},
		{"", "", true},
		{"", "a", false},
		{"admin_*", "admin_users", true},
		{"admin_*", "admin_", true},
		{"admin_*", "user_admin", false},
		{"*_admin", "user_admin", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"a**", "a", true},
		{"exact", "exact", true},
		{"exact", "exactly", false},
		{"*.txt", "notes.txt", true},
		{"docs/*", "docs/a/b", true},
		{"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	} {
		if got := Match(c.pat, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pat, c.name, got, c.want)
		}
	}
}
