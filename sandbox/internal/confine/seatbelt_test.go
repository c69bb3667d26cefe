package confine

import (
	"regexp"
	"strings"
	"testing"
)

// TestSeatbeltProfile: the macOS profile carries Landlock's policy (roots read-write, read-only
// roots and the program readable, protected project paths unwritable in any case, the network
// only with Net), resolves paths physically, and refuses what it cannot express.
func TestSeatbeltProfile(t *testing.T) {
	resolve := func(p string) string {
		// /var is a link to /private/var on macOS; Seatbelt sees the resolved path.
		if rest, ok := strings.CutPrefix(p, "/var/"); ok {
			return "/private/var/" + rest
		}
		return p
	}
	r := Rules{
		RW:      []string{"/Users/me/proj", "/var/folders/x/scratch"},
		RO:      []string{"/Users/me/ro root", "/opt/tools/bin/jq"},
		Protect: []string{"/Users/me/proj/tools", "/Users/me/proj/.*", "/Users/me/proj/server.d"},
	}
	p, err := SeatbeltProfile(r, resolve)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(subpath "/Users/me/proj")`,
		`(subpath "/private/var/folders/x/scratch")`,
		`(subpath "/Users/me/ro root")`,
		`(subpath "/opt/tools/bin/jq")`,
		`(subpath "/usr")`,
		`(literal "/dev/null")`,
		"(allow signal (target same-sandbox))",
		`(require-not (regex #"^/[uU][sS][eE][rR][sS]/[mM][eE]/[pP][rR][oO][jJ]/[tT][oO][oO][lL][sS](/|$)"))`,
		`(require-not (regex #"^/[uU][sS][eE][rR][sS]/[mM][eE]/[pP][rR][oO][jJ]/\."))`,
		`(require-not (regex #"^/[uU][sS][eE][rR][sS]/[mM][eE]/[pP][rR][oO][jJ]/[sS][eE][rR][vV][eE][rR]\.[dD](/|$)"))`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s:\n%s", want, p)
		}
	}
	// Writes are allowed in exactly one rule, which names only the read-write paths.
	writes := regexp.MustCompile(`(?s)\(allow file-write\*\n(.*?)\)\n`).FindAllStringSubmatch(p, -1)
	if len(writes) != 1 || strings.Contains(writes[0][1], "ro root") || strings.Contains(writes[0][1], "jq") ||
		!strings.Contains(writes[0][1], "require-all") {
		t.Errorf("write rules: %q", writes)
	}
	for _, deny := range []string{"(allow network", "mach-lookup", "(allow default", "/private/etc/hosts", "(allow file-read* (subpath \"/\")"} {
		if strings.Contains(p, deny) {
			t.Errorf("profile without Net has %q:\n%s", deny, p)
		}
	}
	// The protection regexes match what they must, in any case, and nothing else.
	for _, tc := range []struct {
		path string
		hit  bool
	}{
		{"/Users/me/proj/tools", true}, {"/Users/me/proj/TOOLS/x.sh", true}, {"/users/ME/Proj/Tools", true},
		{"/Users/me/proj/.git/config", true}, {"/Users/me/proj/.envrc", true}, {"/Users/me/proj/SERVER.D", true},
		{"/Users/me/proj/toolsx", false}, {"/Users/me/proj/data/.hidden", false}, {"/Users/me/proj/data", false},
		{"/Users/me/proj/serverxd", false},
	} {
		hit := false
		for _, q := range r.Protect {
			if regexp.MustCompile(protectedRegex(q)).MatchString(tc.path) {
				hit = true
			}
		}
		if hit != tc.hit {
			t.Errorf("protected(%s) = %v, want %v", tc.path, hit, tc.hit)
		}
	}

	// Net opens the network and the resolver's files, nothing else.
	pn, err := SeatbeltProfile(Rules{Net: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(allow network*)", `(subpath "/private/etc/hosts")`, `(global-name "com.apple.dnssd.service")`} {
		if !strings.Contains(pn, want) {
			t.Errorf("Net profile lacks %s", want)
		}
	}
	if strings.Contains(pn, "file-write*") {
		t.Errorf("a profile without RW rules allows writes:\n%s", pn)
	}

	// Paths the profile language cannot hold plainly are refused, not escaped.
	for _, bad := range []string{`/a"b`, `/a\b`, "/a\nb", "/a\x00b", "rel/path", "/\xff"} {
		if _, err := SeatbeltProfile(Rules{RW: []string{bad}}, nil); err == nil {
			t.Errorf("path %q accepted", bad)
		}
	}
}
