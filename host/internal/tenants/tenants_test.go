package tenants

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// layout makes an operator's directory tree: base/tenants (per-tenant roots are made there),
// base/shared (read-only for everyone).
func layout(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"tenants", "shared/docs"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func doc(base, body string) []byte {
	return []byte(strings.ReplaceAll(body, "BASE", base))
}

const sample = `{
  "version": 1,
  "default": {
    "roots": [
      {"path": "BASE/tenants/{tenant}/work", "name": "work", "create": true},
      {"path": "BASE/shared/docs", "name": "docs", "readOnly": true}
    ],
    "commands": ["git"],
    "limits": {"timeoutSecs": 20, "callsPerMinute": 60},
    "tools": {"deny": ["admin_*"]}
  },
  "tenants": {
    "acme": {"limits": {"concurrentCalls": 8}, "wasm": ["tally"]},
    "ops": {"tools": {"allow": ["*"]}, "commands": []},
    "gone": {"disabled": true}
  }
}`

func TestParseProblems(t *testing.T) {
	base := "/srv"
	for _, c := range []struct{ name, doc, pointer, msg string }{
		{"unknown key", `{"version":1,"default":{"roots":[{"path":"/srv/{tenant}"}],"limits":{"bogus":1}}}`, "/default/limits", "bogus"},
		{"bad tenant id", `{"version":1,"tenants":{"../etc":{"roots":[{"path":"/x"}]}}}`, "/tenants", "../etc"},
		{"missing version", `{"tenants":{}}`, "", "version"},
		{"relative root", `{"version":1,"default":{"roots":[{"path":"srv/{tenant}"}]}}`, "/default/roots/0/path", ""},
		{"limit too small", `{"version":1,"default":{"roots":[{"path":"/srv/{tenant}"}],"limits":{"timeoutSecs":0}}}`, "/default/limits/timeoutSecs", "minimum"},
		{"dotdot", `{"version":1,"default":{"roots":[{"path":"/srv/{tenant}/../x"}]}}`, "/default/roots/0/path", "clean absolute path"},
		{"other placeholder", `{"version":1,"default":{"roots":[{"path":"/srv/{user}"}]}}`, "/default/roots/0/path", "only {tenant}"},
		{"shared writable", `{"version":1,"default":{"roots":[{"path":"/srv/common"}]}}`, "/default/roots/0/path", "must be readOnly"},
		{"create static", `{"version":1,"tenants":{"a":{"roots":[{"path":"/srv/a","create":true}]}}}`, "/tenants/a/roots/0/path", "create is only allowed"},
		{"overlap", `{"version":1,"tenants":{"a":{"roots":[{"path":"/srv/x"}]},"b":{"roots":[{"path":"/srv/x/y"}]}}}`, "/tenants/b/roots/0/path", "overlaps"},
		{"contains prefix", `{"version":1,"default":{"roots":[{"path":"/srv/t/{tenant}"}]},"tenants":{"admin":{"roots":[{"path":"/srv"}]}}}`, "/tenants/admin/roots/0/path", "where other tenants' roots are made"},
		{"no roots", `{"version":1,"tenants":{"a":{}}}`, "/tenants/a", "no roots"},
		{"not json", `{`, "", "not valid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(strings.ReplaceAll(c.doc, "BASE", base)))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a ParseError", err)
			}
			found := false
			for _, p := range pe.Problems {
				if p.Pointer == c.pointer && strings.Contains(p.Message, c.msg) {
					found = true
				}
			}
			if !found {
				t.Fatalf("problems %+v lack %q at %q", pe.Problems, c.msg, c.pointer)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	base := layout(t)
	f, err := Parse(doc(base, sample))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStatic(f)
	acme, err := s.Lookup("acme")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "tenants/acme/work")
	if fi, err := os.Stat(work); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("work root not created 0700: %v %v", fi, err)
	}
	want := []Root{{Path: work, Name: "work"}, {Path: filepath.Join(base, "shared/docs"), Name: "docs", ReadOnly: true}}
	if fmt.Sprint(acme.Roots()) != fmt.Sprint(want) {
		t.Fatalf("roots %v, want %v", acme.Roots(), want)
	}
	l := acme.Limits()
	if l.Timeout != 20*time.Second || l.CallsPerMinute != 60 || l.ConcurrentCalls != 8 || l.MemoryMiB != DefaultLimits().MemoryMiB {
		t.Fatalf("limits not merged: %+v", l)
	}
	if fmt.Sprint(acme.Commands(), acme.Wasm()) != "[git] [tally]" {
		t.Fatalf("commands %v wasm %v", acme.Commands(), acme.Wasm())
	}
	ops, err := s.Lookup("ops")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops.Commands()) != 0 || !ops.Visible(KindTool, "admin_reset") || acme.Visible(KindTool, "admin_reset") || !acme.Visible(KindTool, "hello") {
		t.Fatal("entry fields must replace the default's")
	}
	// Any other valid id gets the default template.
	if _, err := s.Lookup("user@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", ".", "..", "../acme", "a/b", "-x", strings.Repeat("a", 129), "a b", "é"} {
		if _, err := s.Lookup(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Lookup(%q) = %v, want ErrInvalidID", id, err)
		}
	}
	if _, err := s.Lookup("gone"); !errors.Is(err, ErrDisabled) {
		t.Fatalf("disabled tenant: %v", err)
	}
	noDefault, err := Parse(doc(base, `{"version":1,"tenants":{"a":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewStatic(noDefault).Lookup("b"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unlisted tenant without a default: %v", err)
	}
}

func TestResolveRootProblems(t *testing.T) {
	base := layout(t)
	// A missing root that is not created is an error, not a silently smaller sandbox.
	f, err := Parse(doc(base, `{"version":1,"default":{"roots":[{"path":"BASE/tenants/{tenant}"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var re *RootError
	if _, err := NewStatic(f).Lookup("acme"); !errors.As(err, &re) {
		t.Fatalf("missing root: %v", err)
	}
	// A symlink where a tenant's directory should be cannot take the tenant elsewhere.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(base, "tenants", "evil")); err != nil {
		t.Fatal(err)
	}
	if _, err := NewStatic(f).Lookup("evil"); !errors.As(err, &re) || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("symlinked tenant dir: %v", err)
	}
	// create never makes the operator's prefix.
	f, err = Parse(doc(base, `{"version":1,"default":{"roots":[{"path":"BASE/missing/{tenant}","create":true}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewStatic(f).Lookup("acme"); !errors.As(err, &re) {
		t.Fatalf("create below a missing prefix: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "missing")); !os.IsNotExist(err) {
		t.Fatalf("prefix was created: %v", err)
	}
}

func TestNarrowRoots(t *testing.T) {
	base := layout(t)
	f, err := Parse(doc(base, `{"version":1,"default":{"roots":[
		{"path":"BASE/tenants/{tenant}","create":true},
		{"path":"BASE/tenants/{tenant}/ro","create":true,"readOnly":true},
		{"path":"BASE/shared/docs","readOnly":true}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStatic(f)
	a, err := s.Lookup("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup("b"); err != nil {
		t.Fatal(err)
	}
	ta := filepath.Join(base, "tenants/a")
	tb := filepath.Join(base, "tenants/b")
	for _, d := range []string{ta + "/proj", ta + "/ro/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Tenant a planted a symlink to b's directory inside its own root.
	if err := os.Symlink(tb, ta+"/to-b"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		client []Root
		want   string
	}{
		{"none: tenant roots", nil, fmt.Sprint(a.Roots())},
		{"inside", []Root{{Path: ta + "/proj", Name: "p"}}, fmt.Sprint([]Root{{Path: ta + "/proj", Name: "p"}})},
		{"inside nested read-only", []Root{{Path: ta + "/ro/sub"}}, fmt.Sprint([]Root{{Path: ta + "/ro/sub", Name: "ro", ReadOnly: true}})},
		{"other tenant", []Root{{Path: tb}}, "[]"},
		{"symlink to other tenant", []Root{{Path: ta + "/to-b"}}, "[]"},
		{"dotdot to other tenant", []Root{{Path: ta + "/../b"}}, "[]"},
		{"wider: the tenant's roots", []Root{{Path: "/"}}, fmt.Sprint(a.Roots())},
		{"wider than shared only", []Root{{Path: filepath.Join(base, "shared")}}, fmt.Sprint([]Root{{Path: filepath.Join(base, "shared/docs"), Name: "docs", ReadOnly: true}})},
		{"missing", []Root{{Path: ta + "/nope"}}, "[]"},
		{"relative", []Root{{Path: "proj"}}, "[]"},
		{"unrelated client paths: nothing", []Root{{Path: t.TempDir()}}, "[]"},
	} {
		if got := fmt.Sprint(a.NarrowRoots(c.client)); got != c.want && !(c.want == "[]" && got == "[]") {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestVisible(t *testing.T) {
	tn := &Tenant{vis: map[Kind]Visibility{
		KindTool:     {Allow: []string{"read_*", "hello"}, Deny: []string{"read_secret*"}},
		KindResource: {Deny: []string{"*"}},
	}}
	for _, c := range []struct {
		kind Kind
		name string
		want bool
	}{
		{KindTool, "hello", true},
		{KindTool, "read_file", true},
		{KindTool, "read_secrets", false},
		{KindTool, "write_file", false},
		{KindResource, "anything", false},
		{KindPrompt, "anything", true},
	} {
		if got := tn.Visible(c.kind, c.name); got != c.want {
			t.Errorf("Visible(%s, %s) = %v", c.kind, c.name, got)
		}
	}
}

// TestReload: a valid change takes effect, an invalid one keeps the old configuration and is
// logged once, the same content rewritten is not a new generation.
func TestReload(t *testing.T) {
	base := layout(t)
	p := filepath.Join(base, "tenants.json")
	write := func(body string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(p, doc(base, body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write(`{"version":1,"tenants":{"a":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]}}}`, t0)
	var logs bytes.Buffer
	var reloads []uint64
	s, err := Open(p, StoreOptions{Log: slog.New(slog.NewJSONHandler(&logs, nil)), OnReload: func(g uint64) { reloads = append(reloads, g) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup("b"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("b before reload: %v", err)
	}
	if changed, err := s.Reload(); changed || err != nil {
		t.Fatalf("unchanged file: %v %v", changed, err)
	}
	write(`{"version":1,"tenants":{"a":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]},"b":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]}}}`, t0.Add(time.Second))
	if changed, err := s.Reload(); !changed || err != nil {
		t.Fatalf("valid change: %v %v", changed, err)
	}
	if _, err := s.Lookup("b"); err != nil || s.Generation() != 2 {
		t.Fatalf("b after reload: %v (generation %d)", err, s.Generation())
	}
	write(`{"version":1,"tenants":{"b":{"roots":[{"path":"relative"}]}}}`, t0.Add(2*time.Second))
	for range 2 {
		changed, err := s.Reload()
		var pe *ParseError
		if changed || (err != nil && !errors.As(err, &pe)) {
			t.Fatalf("invalid change: %v %v", changed, err)
		}
	}
	if _, err := s.Lookup("a"); err != nil || s.Generation() != 2 {
		t.Fatalf("old configuration not kept: %v generation %d", err, s.Generation())
	}
	if n := strings.Count(logs.String(), "keeping the previous configuration"); n != 1 {
		t.Fatalf("bad file logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "/tenants/b/roots/0/path") {
		t.Fatalf("log lacks the JSON pointer:\n%s", logs.String())
	}
	// Same valid content as generation 2, touched: no new generation.
	write(`{"version":1,"tenants":{"a":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]},"b":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]}}}`, t0.Add(3*time.Second))
	if changed, _ := s.Reload(); changed || s.Generation() != 2 {
		t.Fatalf("rewritten identical content reloaded (generation %d)", s.Generation())
	}
	if fmt.Sprint(reloads) != "[2]" {
		t.Fatalf("OnReload calls %v", reloads)
	}
}

// TestWatch: the polling loop picks up a change (waiting on the reload event, not a clock).
func TestWatch(t *testing.T) {
	base := layout(t)
	p := filepath.Join(base, "tenants.json")
	if err := os.WriteFile(p, doc(base, `{"version":1,"tenants":{"a":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	reloaded := make(chan uint64, 1)
	s, err := Open(p, StoreOptions{OnReload: func(g uint64) { reloaded <- g }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	go s.Watch(ctx, time.Millisecond)
	if err := os.WriteFile(p, doc(base, `{"version":1,"tenants":{"c":{"roots":[{"path":"BASE/shared/docs","readOnly":true}]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := <-reloaded; g != 2 {
		t.Fatalf("generation %d", g)
	}
	if _, err := s.Lookup("c"); err != nil {
		t.Fatal(err)
	}
}

func TestOpenInvalid(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tenants.json")
	if err := os.WriteFile(p, []byte(`{"version":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p, StoreOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), p+": /version: ") {
		t.Fatalf("err = %v, want it to name the file and pointer", err)
	}
}
