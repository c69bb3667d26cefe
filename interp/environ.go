package interp

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// envPair is an environment string "name=value", split.
type envPair struct{ name, value string }

// sortedEnviron is a call's initial environment as an expand.Environ: the engine's shared,
// call-independent variables (static) overlaid by the call's own (call). Both are sorted by
// name without duplicates, and call wins over static. It is what expand.ListEnviron builds from
// "name=value" strings, without building those strings: ListEnviron keeps them and splits one
// on every Get and Each; the Runner calls Each over the whole environment at the end of every
// Run, and Get for every variable a script reads.
type sortedEnviron struct{ static, call []envPair }

func search(l []envPair, name string) (string, bool) {
	i, ok := slices.BinarySearchFunc(l, name, func(p envPair, name string) int { return strings.Compare(p.name, name) })
	if !ok {
		return "", false
	}
	return l[i].value, true
}

// exportedVar is how an environment string appears to the interpreter.
func exportedVar(value string) expand.Variable {
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: value}
}

func (e sortedEnviron) Get(name string) expand.Variable {
	if v, ok := search(e.call, name); ok {
		return exportedVar(v)
	}
	if v, ok := search(e.static, name); ok {
		return exportedVar(v)
	}
	return expand.Variable{}
}

// Each visits every variable once, in name order.
func (e sortedEnviron) Each(f func(name string, vr expand.Variable) bool) {
	i := 0
	for _, c := range e.call {
		for ; i < len(e.static) && e.static[i].name <= c.name; i++ {
			if e.static[i].name == c.name {
				continue // overridden by the call's
			}
			if !f(e.static[i].name, exportedVar(e.static[i].value)) {
				return
			}
		}
		if !f(c.name, exportedVar(c.value)) {
			return
		}
	}
	for _, s := range e.static[i:] {
		if !f(s.name, exportedVar(s.value)) {
			return
		}
	}
}

// sortPairs sorts vars by name in place and drops duplicates (the last of several with the same
// name wins, as later entries in a list of environment strings override earlier ones) and
// nameless entries.
func sortPairs(vars []envPair) []envPair {
	slices.SortStableFunc(vars, func(a, b envPair) int { return strings.Compare(a.name, b.name) })
	out := vars[:0]
	for j, v := range vars {
		if v.name == "" || (j+1 < len(vars) && vars[j+1].name == v.name) {
			continue // invalid, or overridden by the next one
		}
		out = append(out, v)
	}
	return out
}

// staticEnv is the part of every call's environment that does not depend on the call, built
// once per Engine (sorted by name): sandbox.BaseEnv's fixed variables.
func staticEnv() []envPair {
	var vars []envPair
	for _, kv := range sandbox.BaseEnv("", "", nil) {
		name, value, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "TMPDIR" {
			continue // per call
		}
		vars = append(vars, envPair{name, value})
	}
	return sortPairs(vars)
}

// baseEnv is the call's initial environment: sandbox.BaseEnv with the call's scratch as HOME and
// the Runner's FIFO directory as TMPDIR, then the job's contract variables, then the engine's
// (which win over the job's).
func (c *call) baseEnv() sortedEnviron {
	vars := make([]envPair, 0, len(c.job.Env)+len(sideFiles)+10)
	vars = append(vars, envPair{"HOME", c.work}, envPair{"TMPDIR", c.fifoDir})
	for k, v := range c.job.Env {
		vars = append(vars, envPair{k, v})
	}
	vars = append(vars, envPair{"MCP_SDK", SDKDir}, envPair{"__MCPBASH_TMPDIR", c.tmpDir},
		envPair{"__mcpbash_pid", sandbox.VirtualPID}, envPair{"__mcpbash_ppid", sandbox.VirtualPPID})
	// The side-channel files of the original's contract are created by the script when it
	// writes them (appending works on a missing file); the server reads them after the run.
	for k, f := range sideFiles {
		vars = append(vars, envPair{k, filepath.Join(c.work, f)})
	}
	cancelFile := filepath.Join(c.work, ".mcp-cancelled")
	vars = append(vars, envPair{"MCP_CANCEL_FILE", cancelFile}, envPair{"MCP_TOOL_CANCELLATION_FILE", cancelFile})
	return sortedEnviron{static: c.e.static, call: sortPairs(vars)}
}
