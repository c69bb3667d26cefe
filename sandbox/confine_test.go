package sandbox

import (
	"reflect"
	"testing"
)

// TestPolicyConfineRules: each root lands in exactly one list, a Protected root in Protect even
// though its Mode is read-only (Landlock cannot take rights away from the read-write root around
// it), and nothing beyond the roots is added.
func TestPolicyConfineRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		roots []Root
		want  ConfineRules
	}{
		{"none", nil, ConfineRules{}},
		{"read-write", []Root{{Path: "/p", Mode: ReadWrite}}, ConfineRules{RW: []string{"/p"}, Physical: []string{"/p"}}},
		{"read-only", []Root{{Path: "/r", Mode: ReadOnly}}, ConfineRules{RO: []string{"/r"}, Physical: []string{"/r"}}},
		{"protected inside read-write", []Root{
			{Path: "/p", Mode: ReadWrite},
			{Path: "/p/tools", Mode: ReadOnly, Protected: true},
			{Path: "/p/" + HiddenEntries, Mode: ReadOnly, Protected: true},
			{Path: "/data", Mode: ReadOnly},
			{Path: "/out", Mode: ReadWrite},
		}, ConfineRules{RW: []string{"/p", "/out"}, RO: []string{"/data"}, Protect: []string{"/p/tools", "/p/" + HiddenEntries},
			Physical: []string{"/p", "/data", "/out"}}},
		{"protected even when marked read-write", []Root{{Path: "/p/bin", Mode: ReadWrite, Protected: true}},
			ConfineRules{Protect: []string{"/p/bin"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Policy{Roots: tc.roots, ToolDir: "/tool", Allow: []string{"git"}}.ConfineRules()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
