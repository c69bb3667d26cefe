package interp

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// envVar is one variable of a call's initial environment.
type envVar struct {
	name string
	vr   expand.Variable
}

// sortedEnviron is an expand.Environ over variables sorted by name, with no duplicates: what
// expand.ListEnviron builds from "name=value" strings, without the strings. ListEnviron keeps
// the strings and splits one on every Get and Each; the Runner calls Each over the whole
// environment at the end of every Run and Get for every variable a script reads.
type sortedEnviron []envVar

func (l sortedEnviron) Get(name string) expand.Variable {
	if i, ok := slices.BinarySearchFunc(l, name, func(v envVar, name string) int { return strings.Compare(v.name, name) }); ok {
		return l[i].vr
	}
	return expand.Variable{}
}

func (l sortedEnviron) Each(f func(name string, vr expand.Variable) bool) {
	for _, v := range l {
		if !f(v.name, v.vr) {
			return
		}
	}
}

// exportedVar is how an environment string "name=value" appears to the interpreter.
func exportedVar(name, value string) envVar {
	return envVar{name, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: value}}
}

// mergeEnviron is static (sorted, no duplicates) overlaid with vars: of several variables with
// the same name the last of vars wins, and any of vars wins over static's (later entries
// override earlier ones, as in a list of environment strings). vars is sorted in place.
func mergeEnviron(static []envVar, vars []envPair) sortedEnviron {
	slices.SortStableFunc(vars, func(a, b envPair) int { return strings.Compare(a.name, b.name) })
	out := make(sortedEnviron, 0, len(static)+len(vars))
	i := 0
	for j, v := range vars {
		if v.name == "" || (j+1 < len(vars) && vars[j+1].name == v.name) {
			continue // invalid, or overridden by the next one
		}
		for i < len(static) && static[i].name < v.name {
			out = append(out, static[i])
			i++
		}
		if i < len(static) && static[i].name == v.name {
			i++
		}
		out = append(out, exportedVar(v.name, v.value))
	}
	return append(out, static[i:]...)
}

// envPair is an environment string "name=value", split.
type envPair struct{ name, value string }

// staticEnv is the part of every call's environment that does not depend on the call, built
// once per Engine (sorted by name): sandbox.BaseEnv's fixed variables.
func staticEnv() []envVar {
	var vars []envPair
	for _, kv := range sandbox.BaseEnv("", "", nil) {
		name, value, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "TMPDIR" {
			continue // per call
		}
		vars = append(vars, envPair{name, value})
	}
	return mergeEnviron(nil, vars)
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
	return mergeEnviron(c.e.static, vars)
}
