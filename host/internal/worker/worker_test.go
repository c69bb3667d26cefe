package worker

import (
	"encoding/json"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// TestCause names how a worker ended from its exit status and its last stderr lines.
func TestCause(t *testing.T) {
	signalled := func(sig string) *exec.Cmd {
		c := exec.Command("sh", "-c", "kill -"+sig+" $$")
		c.Run()
		return c
	}
	exited := exec.Command("sh", "-c", "exit 3")
	exited.Run()
	for _, tc := range []struct {
		name   string
		cmd    *exec.Cmd
		stderr string
		want   string
	}{
		{"go out of memory", exited, "fatal error: runtime: out of memory\n\ngoroutine 1 [running]:", "out of memory"},
		{"allocation refused", exited, "fatal error: runtime: cannot allocate memory", "out of memory"},
		{"stack overflow", exited, "runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow", "stack overflow"},
		{"panic", exited, "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:", "the interpreter panicked (panic: runtime error: index out of range [3] with length 3)"},
		{"cpu", exited, "mcp-bash worker: CPU time limit exceeded\n", "CPU time limit"},
		{"killed", signalled("KILL"), "", "killed by SIGKILL (out of memory, or the CPU time limit)"},
		{"segv", signalled("SEGV"), "", "killed by signal segmentation fault"},
		{"plain exit", exited, "", "exit status 3"},
		{"no status", nil, "", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Cause(nil, tc.stderr)
			if tc.cmd != nil {
				got = Cause(tc.cmd.ProcessState, tc.stderr)
			}
			if got != tc.want {
				t.Errorf("Cause = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRulesKey: the rules a worker confines itself to depend on the roots, the network and the
// scratch root, not on the tool, so one worker serves every tool of a project.
func TestRulesKey(t *testing.T) {
	base := Spec{Roots: []RootSpec{{Path: "/p/data"}}, Project: "/p", ScratchRoot: "/dev/shm", ToolDir: "/p/tools/a", Call: CallSpec{ToolDir: "/p/tools/a"}}
	other := base
	other.ToolDir, other.Call.ToolDir = "/p/tools/b", "/p/tools/b"
	if rulesKey(&base) != rulesKey(&other) {
		t.Error("rules differ between tools of one project")
	}
	net := base
	net.Network = true
	ro := base
	ro.Roots = []RootSpec{{Path: "/p/data", ReadOnly: true}}
	tenantA, tenantB := base, base
	tenantA.Tenant, tenantB.Tenant = "a", "b"
	confined := base
	confined.ConfineRoots = []RootSpec{{Path: "/p/data"}, {Path: "/p/shared", ReadOnly: true}}
	if rulesKey(&tenantA) == rulesKey(&tenantB) {
		t.Error("two tenants with the same rules share a key: a worker would serve both")
	}
	for name, s := range map[string]Spec{"network": net, "read-only root": ro, "tenant": tenantA, "confine roots": confined} {
		if rulesKey(&base) == rulesKey(&s) {
			t.Errorf("%s: same rules key", name)
		}
	}
	p := base.Policy()
	if len(p.Roots) != 1 || p.Roots[0].Mode != sandbox.ReadWrite || RootsOf(ro.Policy())[0] != ro.Roots[0] {
		t.Errorf("policy round trip: %+v", p)
	}
}

// TestChildServesOneTenant: a worker that ran a job of one tenant refuses another's, whatever
// the parent asks (defence in depth behind the pool's key).
func TestChildServesOneTenant(t *testing.T) {
	c := &child{}
	first := "a"
	c.tenant = &first
	err := c.start(t.Context(), &Spec{Tenant: "b"}, nil)
	if err == nil || !strings.Contains(err.Error(), "another tenant") {
		t.Fatalf("start(tenant b) on tenant a's worker = %v, want a refusal", err)
	}
}

// TestConfineRootsReplaceRoots: in hosting mode the Landlock rules name the tenant's roots,
// not the call's (narrowed) roots.
func TestConfineRootsReplaceRoots(t *testing.T) {
	s := Spec{Roots: []RootSpec{{Path: "/t/a/work/sub"}}, ConfineRoots: []RootSpec{{Path: "/t/a/work"}, {Path: "/shared", ReadOnly: true}}, Project: "/p", ScratchRoot: "/s/a"}
	r := rulesOf(&s, "/bin/x")
	if !slices.Contains(r.RW, "/t/a/work") || slices.Contains(r.RW, "/t/a/work/sub") || !slices.Contains(r.RO, "/shared") {
		t.Errorf("rules = %+v, want the tenant's roots", r)
	}
	none := Spec{Roots: []RootSpec{{Path: "/x"}}, ConfineRoots: []RootSpec{}}
	if r := rulesOf(&none, ""); slices.Contains(r.RW, "/x") {
		t.Errorf("empty ConfineRoots fell back to Roots: %+v", r)
	}
}

// TestPoolHeapPerTenant: a call with its own heap limit gets a worker started with it: the
// argv carries it, and a fresh worker of another heap is not taken for it.
func TestPoolHeapPerTenant(t *testing.T) {
	p := NewPool(Options{Argv: []string{"/nonexistent/mcp-bash", Command, "--max-heap-mb", "2048", "--as", "1"}})
	if got := p.argv(256); !slices.Equal(got, []string{"/nonexistent/mcp-bash", Command, "--max-heap-mb", "256", "--as", "1"}) {
		t.Errorf("argv(256) = %v", got)
	}
	if got := p.argv(0); got[3] != "2048" {
		t.Errorf("argv(0) = %v", got)
	}
	fresh := &proc{exited: make(chan struct{})}
	p.idle = []*proc{fresh}
	if w, err := p.get("k", 256); err == nil || w == fresh {
		t.Fatalf("get with heap 256 took the pool-heap worker (%v)", err)
	}
	if w, err := p.get("k", 0); err != nil || w != fresh {
		t.Fatalf("get with the pool's heap: %v %v", w, err)
	}
	a, b := Spec{Tenant: "a"}, Spec{Tenant: "a", HeapMiB: 64}
	if rulesKey(&a) == rulesKey(&b) {
		t.Error("heap limits share a key")
	}
}

// TestTimeLeft: a worker's run ends when the call's time, started in the parent, is up: the
// time spent sending the job (megabytes of arguments) is not given again.
func TestTimeLeft(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, c := range []struct {
		name     string
		timeout  time.Duration
		deadline time.Time
		want     time.Duration
	}{
		{"no deadline", 5 * time.Second, time.Time{}, 5 * time.Second},
		{"no deadline, default timeout", 0, time.Time{}, 30 * time.Second},
		{"some time spent", 2 * time.Second, now.Add(1500 * time.Millisecond), 1500 * time.Millisecond},
		{"time up", 2 * time.Second, now.Add(-time.Second), time.Millisecond},
		{"deadline past the timeout", 2 * time.Second, now.Add(time.Hour), 2 * time.Second},
	} {
		s := Spec{Deadline: c.deadline}
		s.Limits.Timeout = c.timeout
		if got := s.timeLeft(now); got != c.want {
			t.Errorf("%s: timeLeft = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestArgsSentOnce: long arguments cross to the worker once, and the worker's environment is
// the parent's, MCP_TOOL_ARGS_JSON included; short or different values are sent as they are.
func TestArgsSentOnce(t *testing.T) {
	long := `{"data":"` + strings.Repeat("a ", 5000) + `"}`
	for _, c := range []struct {
		name, args, env string
		once            bool
	}{
		{"long", long, long, true},
		{"short", `{"a":1}`, `{"a":1}`, false},
		{"different", long, long + " ", false},
	} {
		env := map[string]string{argsEnvName: c.env, "MCP_TOOL_META_JSON": "{}"}
		s := Spec{Call: CallSpec{Args: []byte(c.args)}}
		s.sendArgsOnce(env)
		if s.ArgsEnv != c.once || (c.once && s.Env[argsEnvName] != "") {
			t.Errorf("%s: ArgsEnv = %v, env holds %d bytes of arguments", c.name, s.ArgsEnv, len(s.Env[argsEnvName]))
		}
		if env[argsEnvName] != c.env {
			t.Errorf("%s: the parent's environment was changed", c.name)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var got Spec
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got.env(), env) {
			t.Errorf("%s: the worker's environment differs from the parent's", c.name)
		}
	}
}
