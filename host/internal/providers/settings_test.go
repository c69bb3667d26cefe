package providers

import (
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

// settingsFrom parses env as the server does (config.Load). A case named "... refused" must be
// refused, and then ok is false; any other must parse.
func settingsFrom(t *testing.T, name string, env map[string]string) (set *config.Config, getenv func(string) string, ok bool) {
	t.Helper()
	getenv = func(k string) string { return env[k] }
	set, err := config.Load(getenv)
	if strings.HasSuffix(name, "refused") {
		if err == nil {
			t.Fatal("accepted")
		}
		return nil, getenv, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return set, getenv, true
}
