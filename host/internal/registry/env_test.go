package registry

import (
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

func noEnv(string) string { return "" }

// envOptions are the Options of a registry on dir as the server builds them from an environment
// (config.Load), for tests that set the registry's settings by their variables.
func envOptions(tb testing.TB, dir string, getenv func(string) string) Options {
	tb.Helper()
	set, err := config.Load(getenv)
	if err != nil {
		tb.Fatal(err)
	}
	return Options{Dirs: ResolveDirs(dir, set.Dirs), Settings: set.Registry, TmpRoot: set.TmpRoot, HookEnv: getenv,
		HookPassthrough: set.Passthrough, HookSandbox: sandboxEngine()}
}

// sandboxEngine runs register.sh when project hooks are off.
var sandboxEngine = sync.OnceValue(func() engine.Engine {
	e, err := interp.NewEngine(0)
	if err != nil {
		panic(err)
	}
	return e
})
