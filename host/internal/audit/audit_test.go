package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func TestArgumentsHash(t *testing.T) {
	a, err := ArgumentsHash(json.RawMessage(`{"b": [1, 2.50, {"y":1,"x":"<é>"}], "a": "s"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ArgumentsHash(json.RawMessage("{\"a\":\"s\",\n \"b\":[1,2.50,{\"x\":\"\\u003cé>\",\"y\":1}]}"))
	if a != b || len(a) != 64 {
		t.Fatalf("same arguments, different hashes: %s %s", a, b)
	}
	c, _ := ArgumentsHash(json.RawMessage(`{"a":"s","b":[1,2.5,{"x":"<é>","y":1}]}`))
	if c == a {
		t.Fatal("numbers are hashed as sent: 2.50 and 2.5 must differ")
	}
	empty, _ := ArgumentsHash(nil)
	obj, _ := ArgumentsHash(json.RawMessage(`{}`))
	if empty != obj {
		t.Fatal("absent arguments must hash as {}")
	}
	canon, _ := Canonical(json.RawMessage(`{"z":1,"a":{"d":true,"c":null}}`))
	if string(canon) != `{"a":{"c":null,"d":true},"z":1}` {
		t.Fatalf("canonical %s", canon)
	}
	for _, bad := range []string{`{`, `{"a":1} x`} {
		if _, err := ArgumentsHash(json.RawMessage(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLogRecord(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf)
	secretArg := "hunter2-argument-value"
	h, _ := ArgumentsHash(json.RawMessage(`{"password":"` + secretArg + `"}`))
	l.Log(context.Background(), Record{
		Tenant: "acme", Subject: "user-1", Session: "s1", Kind: "tool", Name: "deploy", ArgsSHA256: h,
		Duration: 1500 * time.Microsecond, Outcome: "tool_error", Cause: "timeout",
		Access: []sandbox.Access{
			{Op: "read", Path: "/w/in.txt", Allowed: true},
			{Op: "write", Path: "/w/out.txt", Allowed: true},
			{Op: "write", Path: "/w/out.txt", Allowed: true},
			{Op: "mkdir", Path: "/w/dir", Allowed: true},
			{Op: "write", Path: "/etc/passwd", Allowed: false, Reason: "outside roots"},
			{Op: "exec", Path: "curl", Allowed: false, Reason: "command not allowed"},
		},
	})
	line := buf.String()
	if strings.Count(line, "\n") != 1 {
		t.Fatalf("want one line, got %q", line)
	}
	if strings.Contains(line, secretArg) {
		t.Fatal("an argument value reached the audit log")
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"event": "call", "tenant": "acme", "subject": "user-1", "session": "s1", "kind": "tool", "name": "deploy",
		"args_sha256": h, "duration_ms": 1.5, "outcome": "tool_error", "cause": "timeout",
		"files_written": []any{"/w/dir", "/w/out.txt"},
		"refusals": []any{
			map[string]any{"op": "write", "path": "/etc/passwd", "reason": "outside roots"},
			map[string]any{"op": "exec", "path": "curl", "reason": "command not allowed"},
		},
	}
	delete(rec, "time")
	got, _ := json.Marshal(rec)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("record\n got %s\nwant %s", got, exp)
	}
}

func TestCaps(t *testing.T) {
	var acc []sandbox.Access
	for i := range maxListed + 5 {
		acc = append(acc, sandbox.Access{Op: "write", Path: filepath.Join("/w", string(rune('a'+i%26)), strings.Repeat("x", i)), Allowed: true})
	}
	written, _, truncated := summarize(acc)
	if len(written) != maxListed || truncated != 5 {
		t.Fatalf("listed %d, truncated %d", len(written), truncated)
	}
}

func TestSinks(t *testing.T) {
	off, err := Open("off")
	if err != nil {
		t.Fatal(err)
	}
	off.Log(context.Background(), Record{Tenant: "x"}) // no sink: nothing, no panic
	var nilLogger *Logger
	nilLogger.Log(context.Background(), Record{})

	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Log(context.Background(), Record{Tenant: "t", Kind: "tool", Name: strings.Repeat("n", 5000), Outcome: "ok"})
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20", len(lines))
	}
	for _, ln := range lines {
		if !json.Valid([]byte(ln)) {
			t.Fatalf("interleaved or broken line: %.80s", ln)
		}
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit file mode %v", fi.Mode().Perm())
	}
}
