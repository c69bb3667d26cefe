package interp

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"mvdan.cc/sh/v3/expand"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// The environment built from the engine's template is exactly what the list of environment
// strings used to give: same variables, values, attributes and order, later entries winning.
func TestBaseEnvMatchesListEnviron(t *testing.T) {
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	job := &Job{Env: map[string]string{"MCP_TOOL_NAME": "t", "MCP_TOOL_ARGS_JSON": `{"a":1}`, "PATH": "/job/override",
		"MCP_SDK": "/job/loses", "MCP_ROOTS_PATHS": "a\nb", "HOME": "/job/home"}}
	c := &call{e: e, job: job, work: "/scratch/work", fifoDir: "/scratch/fifo", tmpDir: "/scratch/work/tmp"}

	// The former construction: a map of extras over sandbox.BaseEnv, through expand.ListEnviron.
	extra := maps.Clone(job.Env)
	extra["MCP_SDK"] = SDKDir
	extra["__MCPBASH_TMPDIR"] = c.tmpDir
	extra["__mcpbash_pid"] = sandbox.VirtualPID
	extra["__mcpbash_ppid"] = sandbox.VirtualPPID
	for k, f := range sideFiles {
		extra[k] = filepath.Join(c.work, f)
	}
	extra["MCP_CANCEL_FILE"] = filepath.Join(c.work, ".mcp-cancelled")
	extra["MCP_TOOL_CANCELLATION_FILE"] = extra["MCP_CANCEL_FILE"]
	want := expand.ListEnviron(sandbox.BaseEnv(c.work, c.fifoDir, extra)...)

	got := c.baseEnv()
	type kv struct {
		name string
		vr   expand.Variable
	}
	collect := func(env expand.Environ) (out []kv) {
		for name, vr := range env.Each {
			out = append(out, kv{name, vr})
		}
		return out
	}
	w, g := collect(want), collect(got)
	if !slices.EqualFunc(w, g, func(a, b kv) bool {
		return a.name == b.name && a.vr.String() == b.vr.String() && a.vr.Exported == b.vr.Exported && a.vr.Kind == b.vr.Kind && a.vr.Set == b.vr.Set
	}) {
		t.Fatalf("environments differ:\nwant %v\n got %v", w, g)
	}
	for _, x := range w {
		if got.Get(x.name).String() != x.vr.String() {
			t.Errorf("Get(%s) = %q, want %q", x.name, got.Get(x.name).String(), x.vr.String())
		}
	}
	if got.Get("NOPE").IsSet() || got.Get("").IsSet() {
		t.Error("unset variable reported as set")
	}
	// The template is shared: building one call's environment must not change the next one's.
	if c2 := (&call{e: e, job: &Job{}, work: "/w2", fifoDir: "/f2", tmpDir: "/t2"}); c2.baseEnv().Get("PATH").String() != sandbox.VirtualPath {
		t.Error("a job's PATH leaked into the engine's template")
	}
}
