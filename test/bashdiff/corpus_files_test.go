package bashdiff

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func TestParseSection(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []corpusCase
		err        bool
	}{
		{name: "commentary then two cases", data: "about the section\n\n### a\necho a\n### b\necho b\necho c\n\n",
			want: []corpusCase{{section: "s", name: "a", script: "echo a\n"}, {section: "s", name: "b", script: "echo b\necho c\n"}}},
		{name: "fixtures", data: "### f\n-- file: d/x.txt --\nline 1\n\nline 3\n-- file: y --\n-- script --\ncat d/x.txt\n",
			want: []corpusCase{{section: "s", name: "f", files: []fixtureFile{{"d/x.txt", "line 1\n\nline 3\n"}, {"y", ""}}, script: "cat d/x.txt\n"}}},
		{name: "a header inside a line is not a case", data: "### a\necho '### b'\n",
			want: []corpusCase{{section: "s", name: "a", script: "echo '### b'\n"}}},
		{name: "fixtures without script", data: "### f\n-- file: x --\ndata\n", err: true},
		{name: "fixture outside the work dir", data: "### f\n-- file: ../x --\n-- script --\n:\n", err: true},
		{name: "absolute fixture", data: "### f\n-- file: /etc/x --\n-- script --\n:\n", err: true},
		{name: "empty script", data: "### e\n\n### f\n:\n", err: true},
		{name: "name with space", data: "### a b\n:\n", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSection("s", tc.data)
			if tc.err {
				if err == nil {
					t.Fatalf("no error; got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b corpusCase) bool {
				return a.section == b.section && a.name == b.name && a.script == b.script && slices.Equal(a.files, b.files)
			}) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestCorpusFiles checks the corpus itself without running it (it runs in every `make test`):
// every section parses, names are unique, the corpus is as large as issue 19 asks, no script
// is repeated, and known.txt names only cases that exist, each with a reason.
func TestCorpusFiles(t *testing.T) {
	sections, cases := loadCorpus(t, "testdata/corpus")
	total := 0
	scripts := map[string]string{}
	for _, sec := range sections {
		if len(cases[sec]) < 25 {
			t.Errorf("section %s has only %d cases", sec, len(cases[sec]))
		}
		for _, c := range cases[sec] {
			total++
			key := strings.Join([]string{c.script, fixtureKey(c.files)}, "\x00")
			if prev, dup := scripts[key]; dup {
				t.Errorf("%s/%s repeats %s", sec, c.name, prev)
			}
			scripts[key] = sec + "/" + c.name
		}
	}
	if total < 2200 {
		t.Errorf("the corpus has %d cases; issue 19 wants far more than 2,000", total)
	}
	for name, reason := range harness.ReadKnown(t, "testdata/corpus/known.txt") {
		if strings.HasPrefix(reason, hostRunner) && !strings.HasPrefix(name, "eval:") {
			t.Errorf("known.txt: %s: only the eval subject has a host runner", name)
		}
		if sub, id, ok := strings.Cut(name, ":"); ok {
			if !slices.ContainsFunc(subjects, func(s subject) bool { return s.name == sub }) {
				t.Errorf("known.txt lists %s for %s, which is not a subject", id, sub)
			}
			name = id
		}
		sec, cname, _ := strings.Cut(name, "/")
		if !slices.ContainsFunc(cases[sec], func(c corpusCase) bool { return c.name == cname }) {
			t.Errorf("known.txt lists %s, which is not a case", name)
		}
		if strings.TrimSpace(reason) == "" {
			t.Errorf("known.txt lists %s without a reason", name)
		}
	}
	t.Logf("%d cases in %d sections", total, len(sections))
}

func fixtureKey(files []fixtureFile) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.path + "\x00" + f.content + "\x00")
	}
	return b.String()
}

func TestParseOils(t *testing.T) {
	data := `## compare_shells: bash dash
## oils_failures_allowed: 1

#### echo one
echo 1
## stdout: 1

#### Two lines / with a slash
echo a
echo b
## STDOUT:
a
b
## END
## N-I dash status: 2

#### echo one
echo again
#### only expectations
## stdout: x
`
	got := parseOils("s", data)
	want := []corpusCase{{section: "s", name: "echo-one", script: oilsDirs + "echo 1\n"}, {section: "s", name: "two-lines-with-a-slash", script: oilsDirs + "echo a\necho b\n"},
		{section: "s", name: "echo-one-2", script: oilsDirs + "echo again\n"}}
	if !slices.EqualFunc(got, want, func(a, b corpusCase) bool { return a.section == b.section && a.name == b.name && a.script == b.script }) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}
