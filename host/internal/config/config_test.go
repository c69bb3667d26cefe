package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// TestLoad: every kind of value parses, keeps its default when unset, and a malformed value is
// an error that names the variable, the value and what it wants.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		check func(*Config) bool
		err   string // "" when valid
	}{
		{"defaults", nil, func(c *Config) bool {
			return c.MaxConcurrent == 16 && c.DefaultToolTimeout == 30*time.Second && c.Isolation == "inproc" &&
				c.Native.EnvMode == "minimal" && c.Native.CPUSeconds == -1 && c.Registry.ToolsTTL == 5*time.Second &&
				c.ToolAllowlist == nil && c.Roots == nil && c.LogLevel == ""
		}, ""},
		{"integer", []string{"MCPBASH_MAX_CONCURRENT_REQUESTS", " 4 "}, func(c *Config) bool { return c.MaxConcurrent == 4 }, ""},
		{"integer out of range", []string{"MCPBASH_MAX_CONCURRENT_REQUESTS", "0"}, nil, `MCPBASH_MAX_CONCURRENT_REQUESTS="0": want an integer from 1 to 100000`},
		{"integer not a number", []string{"MCPBASH_MAX_HEAP_MB", "2G"}, nil, `MCPBASH_MAX_HEAP_MB="2G": want an integer`},
		{"seconds", []string{"MCPBASH_DEFAULT_TOOL_TIMEOUT", "7"}, func(c *Config) bool { return c.DefaultToolTimeout == 7*time.Second }, ""},
		{"fractional TTL", []string{"MCP_TOOLS_TTL", "0.5"}, func(c *Config) bool { return c.Registry.ToolsTTL == 500*time.Millisecond }, ""},
		{"negative TTL", []string{"MCP_PROMPTS_TTL", "-1"}, nil, `MCP_PROMPTS_TTL="-1"`},
		{"booleans", []string{"MCPBASH_ACCESS_META", "yes", "MCPBASH_COMPAT_BATCHES", "TRUE", "MCPBASH_STATIC_REGISTRY", "off"},
			func(c *Config) bool { return c.AccessMeta && c.CompatBatches && !c.Registry.Static }, ""},
		{"bad boolean", []string{"MCPBASH_ALLOW_PROJECT_HOOKS", "sure"}, nil, `MCPBASH_ALLOW_PROJECT_HOOKS="sure": want true`},
		{"word", []string{"MCPBASH_ISOLATION", "Process"}, func(c *Config) bool { return c.Isolation == "process" }, ""},
		{"bad word", []string{"MCPBASH_EXEC", "docker"}, nil, `MCPBASH_EXEC="docker": want one of sandbox, native`},
		{"log level spellings", []string{"MCPBASH_LOG_LEVEL", "warn"}, func(c *Config) bool { return c.LogLevel == "warning" }, ""},
		{"log level true", []string{"MCPBASH_LOG_LEVEL", "1"}, func(c *Config) bool { return c.LogLevel == "debug" }, ""},
		{"bad log level", []string{"MCPBASH_LOG_LEVEL", "loud"}, nil, `MCPBASH_LOG_LEVEL="loud"`},
		{"lists", []string{"MCPBASH_TOOL_ALLOWLIST", "a, b:c", "MCPBASH_HTTPS_ALLOW_HOSTS", "x.test [::1]"},
			func(c *Config) bool {
				return slices.Equal(c.ToolAllowlist, []string{"a", "b", "c"}) && slices.Equal(c.HTTPS.AllowHosts, []string{"x.test", "[::1]"})
			}, ""},
		{"paths", []string{"MCPBASH_ROOTS", "data: /abs ::"}, func(c *Config) bool { return slices.Equal(c.Roots, []string{"data", "/abs"}) }, ""},
		{"cache dir off", []string{"MCPBASH_WASM_CACHE_DIR", "none"}, func(c *Config) bool { return c.WasmCacheDir == "off" }, ""},
		{"relative cache dir", []string{"MCPBASH_WASM_CACHE_DIR", "cache"}, nil, `MCPBASH_WASM_CACHE_DIR="cache": want an absolute directory`},
		{"native CPU off", []string{"MCPBASH_NATIVE_CPU_SECS", "0"}, func(c *Config) bool { return c.Native.CPUSeconds == 0 }, ""},
		{"passthrough kept raw", []string{"MCPBASH_CI_MODE", " x ", "MCPBASH_TOOL_ALLOWLIST", "a"},
			func(c *Config) bool {
				return c.Passthrough["MCPBASH_CI_MODE"] == " x " && c.Passthrough["MCPBASH_TOOL_ALLOWLIST"] == "a"
			}, ""},
		{"secrets are not passed to hooks", []string{"MCPBASH_REMOTE_TOKEN", "s3cret-0123456789-0123456789-0123456789"},
			func(c *Config) bool {
				_, ok := c.Passthrough["MCPBASH_REMOTE_TOKEN"]
				return c.RemoteToken == "s3cret-0123456789-0123456789-0123456789" && !ok
			}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.env...))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(c) {
				t.Fatalf("err %v, config %+v", err, c)
			}
		})
	}
	// Every malformed setting is reported, on one line.
	_, err := Load(env("MCPBASH_ISOLATION", "x", "MCPBASH_MAX_HEAP_MB", "y"))
	if err == nil || !strings.Contains(err.Error(), "MCPBASH_ISOLATION") || !strings.Contains(err.Error(), "MCPBASH_MAX_HEAP_MB") {
		t.Errorf("both errors: %v", err)
	}
}

// TestShowRedactsSecrets: --show lists every variable once, marks what the environment sets,
// and never prints a secret.
func TestShowRedactsSecrets(t *testing.T) {
	getenv := env("MCPBASH_REMOTE_TOKEN", "s3cret-0123456789-0123456789-0123456789", "MCPBASH_MAX_TEXT_BYTES", "99")
	c, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	entries := c.Show(getenv)
	if len(entries) != len(Names()) {
		t.Fatalf("%d entries for %d names", len(entries), len(Names()))
	}
	for _, e := range entries {
		switch e.Name {
		case "MCPBASH_REMOTE_TOKEN":
			if strings.Contains(e.Value, "s3cret") || !e.Set {
				t.Errorf("token shown: %+v", e)
			}
		case "MCPBASH_MAX_TEXT_BYTES":
			if e.Value != "99" || !e.Set {
				t.Errorf("%+v", e)
			}
		case "MCPBASH_DEFAULT_TOOL_TIMEOUT":
			if e.Value != "30" || e.Set {
				t.Errorf("%+v", e)
			}
		}
	}
}

const repo = "../../.."

// TestEveryVariableIsDocumented holds docs/CONFIG.md and the settings table to each other: every
// variable of the table is documented, and every variable the "Server environment" table of
// docs/CONFIG.md names is in the settings table.
func TestEveryVariableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "CONFIG.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range Names() {
		known[n] = true
		if !regexp.MustCompile("`" + n + "`").Match(doc) {
			t.Errorf("%s is read but not documented in docs/CONFIG.md", n)
		}
	}
	text := string(doc)
	start := strings.Index(text, "## Server environment")
	end := strings.Index(text[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("docs/CONFIG.md has no Server environment section")
	}
	section := text[start : start+1+end]
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.Contains(cells[1], "`") {
			continue
		}
		rows++
		for _, m := range regexp.MustCompile("`((?:MCPBASH|MCP)_[A-Z0-9_]+)`").FindAllStringSubmatch(cells[1], -1) {
			if !known[m[1]] {
				t.Errorf("docs/CONFIG.md documents %s, which the server does not read", m[1])
			}
		}
	}
	if rows < len(Names())/2 {
		t.Errorf("only %d rows in the Server environment table", rows)
	}
}

// TestNoSettingIsReadElsewhere: outside this package the server never reads a setting from the
// environment itself (a getenv-style call with an MCPBASH_* or MCP_* literal), so each is
// parsed once, here. The SDK builtins (sdk/) read the tool's own environment, and binaries built
// with -tags mcpbash_testhooks read their test hooks; neither is a setting.
func TestNoSettingIsReadElsewhere(t *testing.T) {
	name := regexp.MustCompile(`^"(MCPBASH|MCP)_[A-Z0-9_]+"$`)
	for _, dir := range []string{"host", "cmd", "interp", "sandbox", "wasm"} {
		err := filepath.WalkDir(filepath.Join(repo, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
				strings.Contains(filepath.ToSlash(p), "host/internal/config/") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			// Test hooks, and the profiling build's own switches (cmd/mcp-bash/profile.go, a
			// developer's build, never a release's), are not the product's settings.
			if strings.Contains(string(src), "//go:build mcpbash_testhooks") || strings.Contains(string(src), "//go:build profile") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, src, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				var fn string
				switch x := call.Fun.(type) {
				case *ast.Ident:
					fn = x.Name
				case *ast.SelectorExpr:
					fn = x.Sel.Name
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if ok && lit.Kind == token.STRING && name.MatchString(lit.Value) && slices.Contains([]string{"Getenv", "getenv", "LookupEnv", "get"}, fn) {
					v, _ := strconv.Unquote(lit.Value)
					t.Errorf("%s reads %s from the environment itself; add it to host/internal/config's table and pass it down", p, v)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
