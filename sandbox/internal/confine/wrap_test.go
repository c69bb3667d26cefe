package confine

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	argv := []string{"/usr/bin/od", "-c", "x"}
	unavailable := func() Support { return Support{Err: errors.New("landlock: forced off")} }
	abi := func(n int) func() Support {
		return func() Support { return Support{Mechanism: "landlock", ABI: n, Files: true, Net: n >= NetABI} }
	}
	seatbelt := func() Support { return Support{Mechanism: "seatbelt", Files: true, Net: true} }
	absent := func() Support { return Support{Err: errors.New("windows has no OS confinement"), Absent: true} }
	for _, tc := range []struct {
		name    string
		c       *Confiner
		r       Rules
		wrapped bool
		err     string
	}{
		{"nil confiner", nil, Rules{}, false, ""},
		{"unavailable, not required", &Confiner{Self: "/mcp-bash", support: unavailable}, Rules{}, false, ""},
		{"unavailable, required", &Confiner{Self: "/mcp-bash", Required: true, support: unavailable}, Rules{}, false, "required (MCPBASH_REQUIRE_CONFINEMENT) but unavailable: landlock: forced off"},
		{"ABI 3 without network rules, required", &Confiner{Self: "/mcp-bash", Required: true, support: abi(3)}, Rules{}, false, "cannot deny network access"},
		{"ABI 3 with Net, required", &Confiner{Self: "/mcp-bash", Required: true, support: abi(3)}, Rules{Net: true}, true, ""},
		{"ABI 3 without network rules, not required", &Confiner{Self: "/mcp-bash", support: abi(3)}, Rules{}, true, ""},
		{"available", &Confiner{Self: "/mcp-bash", support: abi(7)}, Rules{RW: []string{"/w"}}, true, ""},
		{"no binary", &Confiner{support: abi(7)}, Rules{}, false, "Self is empty"},
		{"seatbelt, required, no network", &Confiner{Self: "/mcp-bash", Required: true, support: seatbelt}, Rules{}, true, ""},
		{"nothing but limits, required", &Confiner{Self: "/mcp-bash", Required: true, support: func() Support { return Support{Mechanism: "job object"} }}, Rules{}, false, "no OS confinement"},
		{"platform without confinement, no consent", &Confiner{Self: "/mcp-bash", support: absent}, Rules{}, false, "MCPBASH_NATIVE_UNCONFINED=true"},
		{"platform without confinement, consent", &Confiner{Self: "/mcp-bash", Unconfined: true, support: absent}, Rules{}, false, ""},
		{"platform without confinement, consent but required", &Confiner{Self: "/mcp-bash", Unconfined: true, Required: true, support: absent}, Rules{}, false, "MCPBASH_REQUIRE_CONFINEMENT"},
		{"relative rule path", &Confiner{Self: "/mcp-bash", support: abi(7)}, Rules{RO: []string{"rel"}}, false, "not absolute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.Wrap(tc.r, argv)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case !tc.wrapped && !slices.Equal(got, argv):
				t.Fatalf("argv changed: %q", got)
			case tc.wrapped && (len(got) != len(argv)+4 || got[0] != "/mcp-bash" || got[1] != Command || got[3] != "--" || !slices.Equal(got[4:], argv)):
				t.Fatalf("wrapped argv %q", got)
			}
		})
	}
}

func TestEncodingRoundTrip(t *testing.T) {
	for _, r := range []Rules{
		{},
		{Net: true},
		{RW: []string{"/", "/a b", "/-x", "/new\nline", "/ünï"}, RO: []string{"/r", "/\xff\xfe"}},
		{RO: []string{"/r"}, Limits: []Rlimit{{Resource: 9, Cur: 8 << 30, Max: 8 << 30}, {Resource: 0, Cur: 62, Max: 63}}},
		{RW: []string{"/p"}, Protect: []string{"/p/tools", "/p/.*"}},
	} {
		enc, err := encode(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(enc, "-") || strings.ContainsAny(enc, " \n\x00") {
			t.Fatalf("encoding %q is not one plain argument", enc)
		}
		got, err := decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if got.Net != r.Net || !slices.Equal(got.RW, r.RW) || !slices.Equal(got.RO, r.RO) || !slices.Equal(got.Limits, r.Limits) ||
			!slices.Equal(got.Protect, r.Protect) {
			t.Fatalf("round trip %+v -> %+v", r, got)
		}
	}
	if _, err := decode(encPrefix + "eA"); err == nil { // "x": unknown token
		t.Fatal("unknown token accepted")
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		c    *Confiner
		want string
	}{
		{&Confiner{support: func() Support { return Support{Mechanism: "landlock", ABI: 7, Files: true, Net: true} }}, "confined by Landlock"},
		{&Confiner{support: func() Support { return Support{Mechanism: "seatbelt", Files: true, Net: true} }}, "confined by Seatbelt"},
		{&Confiner{support: func() Support { return Support{Err: errors.New("landlock: not enabled")} }}, "unconfined: landlock: not enabled"},
		{&Confiner{Unconfined: true, support: func() Support { return Support{Err: errors.New("windows has none"), Absent: true} }},
			"unconfined: windows has none; MCPBASH_NATIVE_UNCONFINED=true"},
		{nil, "unconfined"},
	} {
		if got := tc.c.Describe(); got != tc.want {
			t.Errorf("Describe() = %q, want %q", got, tc.want)
		}
	}
}
