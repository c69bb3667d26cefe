package sandbox

import (
	"slices"
	"testing"
)

// TestSortMounts: mounts are ordered longest path first (the most specific mount matches a path
// first), equal lengths in the order given (a duplicated root's first mount wins), and the sort
// allocates nothing (it runs on every call's mounts).
func TestSortMounts(t *testing.T) {
	for _, tc := range []struct {
		in, want []string // mount paths
	}{
		{nil, nil},
		{[]string{"/a"}, []string{"/a"}},
		{[]string{"/p", "/p/tools", "/p/.git", "/s"}, []string{"/p/tools", "/p/.git", "/p", "/s"}},
		{[]string{"/bb", "/aa", "/c", "/dd"}, []string{"/bb", "/aa", "/dd", "/c"}},
	} {
		ms := make([]*mount, len(tc.in))
		for i, p := range tc.in {
			ms[i] = &mount{mountSpec: &mountSpec{Root: Root{Path: p}}}
		}
		sortMounts(ms)
		var got []string
		for _, m := range ms {
			got = append(got, m.Path)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("sortMounts(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := testing.AllocsPerRun(10, func() { sortMounts(ms) }); n != 0 {
			t.Errorf("sortMounts allocates %v times", n)
		}
	}
}
