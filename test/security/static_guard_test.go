package security

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// guardedDirs hold code that runs on behalf of tool scripts: it must reach the host only
// through sandbox.FS and the policy, never directly.
var guardedDirs = []string{"interp/internal/builtins", "interp/internal/eval", "interp/internal/strerror", "sdk", "wasm"}

// guardExemptDirs are not on the sandbox's side of the boundary at all.
var guardExemptDirs = map[string]string{
	"wasm/wasmtest":                        "test support: builds wasm guests with `go build` for tests and benchmarks, never linked into the server",
	"interp/internal/eval/internal/osfs":   "the evaluator's development tools' host filesystem (evalsh, differential tests), never linked into the server",
	"interp/internal/eval/internal/evalsh": "the evaluator's development shell, run on the host by developers, never linked into the server",
	"sdk/wasmguest":                        "the guest-side SDK, compiled to wasip1 and run inside the wasm sandbox: its os calls are WASI calls on the guest's virtual environment",
}

// bannedImports give direct host access (processes, host identity, old file APIs).
var bannedImports = map[string]string{
	"os/exec":   "runs host processes",
	"io/ioutil": "host file access",
	"os/user":   "host identity",
}

// rawSyscallPkgs may be imported for their types (syscall.Stat_t, syscall.Errno) and constants
// (syscall.ENOENT, syscall.O_NOFOLLOW), but their functions are raw system calls.
var rawSyscallPkgs = map[string]bool{"syscall": true, "golang.org/x/sys/unix": true}

var syscallTypes = set("Stat_t", "Errno", "Signal", "Timespec", "Timeval", "Statfs_t", "Rlimit", "WaitStatus", "Utsname")

// constantRE matches the all-caps names of system constants (ENOENT, O_NOFOLLOW, PROT_READ).
var constantRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// bannedCalls are package functions that touch the host file system, environment or identity.
var bannedCalls = map[string]map[string]bool{
	"os": set("Open", "OpenFile", "ReadFile", "WriteFile", "Create", "CreateTemp", "Stat", "Lstat", "ReadDir",
		"Readlink", "Remove", "RemoveAll", "Rename", "Mkdir", "MkdirAll", "MkdirTemp", "Symlink", "Link", "Chmod",
		"Chown", "Lchown", "Chtimes", "Truncate", "Chdir", "Getwd", "DirFS", "CopyFS", "OpenRoot", "OpenInRoot",
		"Getenv", "LookupEnv", "Environ", "Setenv", "Unsetenv", "Hostname", "UserHomeDir", "UserCacheDir",
		"UserConfigDir", "Getuid", "Geteuid", "Getgid", "Getpid", "Getppid", "Executable", "StartProcess", "FindProcess"),
	"path/filepath": set("Walk", "WalkDir", "Glob", "EvalSymlinks", "Abs"),
}

// guardExceptions are reviewed, explained direct uses, keyed "file:pkg.Func". Every *_test.go
// file is exempt (sdk/bashsdk_test.go runs real bash on purpose): tests run on the host.
var guardExceptions = map[string]string{
	"wasm/memory_linux.go:unix.Mmap":       "anonymous private mapping that backs a guest's linear memory (no file, no host data)",
	"wasm/memory_linux.go:unix.Mremap":     "grows that mapping with the guest's memory",
	"wasm/memory_linux.go:unix.Munmap":     "releases that mapping",
	"wasm/memory_other.go:syscall.Mmap":    "the same mapping where there is no mremap",
	"wasm/memory_other.go:syscall.Munmap":  "releases it",
	"wasm/memory_linux.go:syscall.Madvise": "MADV_HUGEPAGE advice on that same anonymous mapping (no file, no host data)",
	// The compilation cache is server state that no guest path reaches (its directory and key
	// are refused as roots and turn the cache off when a root contains them, host/roots.go).
	"wasm/cache.go:os.MkdirAll":           "creates the cache directory (0700) and the staging directory's subdirectories",
	"wasm/cache.go:filepath.EvalSymlinks": "resolves the cache directory physically before its owner and mode are checked",
	"wasm/cache.go:os.Lstat":              "checks the cache directory's owner and mode",
	"wasm/cache_unix.go:os.Geteuid":       "the cache directory and its key must belong to the server's user",
	"wasm/cache.go:os.MkdirTemp":          "the private staging directory wazero's own file cache points at",
	"wasm/cache.go:os.CreateTemp":         "a new key or entry, written then linked or renamed into place",
	"wasm/cache.go:os.Link":               "puts a new key in place without ever replacing one",
	"wasm/cache.go:os.Rename":             "puts a signed entry in place atomically",
	"wasm/cache.go:os.Remove":             "removes temporary files, entries that fail verification and staged files",
	"wasm/cache.go:os.RemoveAll":          "removes the staging directory when the runtime closes",
	"wasm/cache.go:os.WriteFile":          "stages a verified entry for wazero in the private staging directory",
	"wasm/cache.go:filepath.WalkDir":      "lists what wazero wrote in the private staging directory",
	"wasm/cache.go:os.ReadFile":           "reads what wazero wrote in the staging directory, to sign it",
	"wasm/runtime.go:os.Lstat":            "FindCommand: finds NAME.wasm in the operator's command dirs, refusing symlinks",
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// TestNoDirectHostAccess (T-FS-6): the utilities, the SDK builtins and the wasm host side use
// sandbox.FS and the policy, never os.Open, os.ReadFile, os.Create, os.Stat, os/exec or
// syscall functions directly; a new direct use fails here until it is reviewed into
// guardExceptions with its reason.
func TestNoDirectHostAccess(t *testing.T) {
	scanGuard(t, guardScan{dirs: guardedDirs, rules: sandboxRules, exempt: guardExemptDirs, allow: guardExceptions,
		key:  func(rel string, v violation) string { return rel + ":" + v.what },
		what: "direct host access in sandboxed code", fix: "go through sandbox.FS/the policy, or add a reviewed guardExceptions entry"})
}

// guardScan is one static guard: the directories it walks, what it looks for, and its
// reviewed exceptions.
type guardScan struct {
	dirs   []string
	rules  guardRules
	exempt map[string]string // directories below dirs not scanned (relative path → why)
	skip   func(rel string) bool
	allow  map[string]string // reviewed exceptions, keyed by key()
	key    func(rel string, v violation) string
	what   string // what a violation is, and how to fix one
	fix    string
}

// scanGuard walks the guard's directories (Go files, tests excluded) and reports every
// violation not in its allowlist, and every allowlist entry nothing uses any more.
func scanGuard(t *testing.T, g guardScan) {
	root := harness.RepoRoot()
	var found []string
	used := map[string]bool{}
	for _, dir := range g.dirs {
		base := filepath.Join(root, dir)
		if _, err := os.Stat(base); err != nil {
			t.Errorf("guarded directory %s: %v (moved? update the guard's list)", dir, err)
			continue
		}
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				_, exempt := g.exempt[rel]
				if p != base && (exempt || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || (g.skip != nil && g.skip(rel))) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			for _, v := range violations(t, p, g.rules) {
				key := g.key(rel, v)
				if _, ok := g.allow[key]; ok {
					used[key] = true
					continue
				}
				found = append(found, key+" at "+rel+":"+v.pos+" ("+v.why+")")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: %s; %s", g.what, f, g.fix)
	}
	for k := range g.allow {
		if !used[k] {
			t.Errorf("stale allowlist entry %q: remove it", k)
		}
	}
}

type violation struct{ pos, fn, what, why string }

// guardRules say what a guard looks for.
type guardRules struct {
	imports map[string]string          // banned import path → why
	calls   map[string]map[string]bool // import path → banned package functions
	// rawSyscalls bans every function of rawSyscallPkgs (types and constants pass).
	rawSyscalls bool
}

// sandboxRules are TestNoDirectHostAccess's: code running for a script.
var sandboxRules = guardRules{imports: bannedImports, calls: bannedCalls, rawSyscalls: true}

// violations lists the banned imports and selector uses of one file, each with the function
// declaration it is in ("Type.Method", "Func", or "init" for package-level declarations).
func violations(t *testing.T, path string, rules guardRules) []violation {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	at := func(p token.Pos) string {
		pos := fset.Position(p)
		return strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column)
	}
	var out []violation
	local := map[string]string{} // local name → import path, for the packages watched below
	for _, imp := range f.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		if why, bad := rules.imports[ip]; bad {
			out = append(out, violation{at(imp.Pos()), "import", ip, why})
		}
		if _, watched := rules.calls[ip]; watched || rawSyscallPkgs[ip] {
			name := filepath.Base(ip)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			local[name] = ip
		}
	}
	for _, decl := range f.Decls {
		fn := "init"
		if fd, ok := decl.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				typ := fd.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if ix, ok := typ.(*ast.IndexExpr); ok {
					typ = ix.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					fn = id.Name + "." + fn
				}
			}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			ip, ok := local[id.Name]
			name := sel.Sel.Name
			switch {
			case !ok:
			case rules.calls[ip][name]:
				out = append(out, violation{at(sel.Pos()), fn, filepath.Base(ip) + "." + name, "host access"})
			case rules.rawSyscalls && rawSyscallPkgs[ip] && !syscallTypes[name] && !constantRE.MatchString(name):
				out = append(out, violation{at(sel.Pos()), fn, filepath.Base(ip) + "." + name, "raw system call"})
			}
			return true
		})
	}
	return out
}

// The guard itself: it sees aliased imports, raw system calls and host calls, and lets types
// and constants through.
func TestStaticGuardCatches(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.go")
	src := `package x

import (
	xos "os"
	"os/exec"
	"syscall"
)

func f() {
	_, _ = xos.ReadFile("/etc/passwd")
	_ = exec.Command("sh")
	_ = syscall.Kill(1, 9)
	var st syscall.Stat_t
	_ = st
	_ = syscall.ENOENT
	_ = xos.O_RDONLY
}
`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range violations(t, p, sandboxRules) {
		got = append(got, v.what)
	}
	sort.Strings(got)
	if want := "os.ReadFile os/exec syscall.Kill"; strings.Join(got, " ") != want {
		t.Errorf("violations %q, want %q", got, want)
	}
}
