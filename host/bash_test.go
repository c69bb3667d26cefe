package host

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestFindGitBash: the Windows discovery of Git-Bash, on a fake file system (the rules are
// plain path logic, tested everywhere; filepath joins with the host's separator).
func TestFindGitBash(t *testing.T) {
	j := filepath.Join
	for _, tc := range []struct {
		name  string
		env   map[string]string
		files []string
		want  string
	}{
		{"git on PATH, cmd", map[string]string{"PATH": j("G", "Git", "cmd") + string(filepath.ListSeparator) + j("W", "System32")},
			[]string{j("G", "Git", "cmd", "git.exe"), j("G", "Git", "bin", "bash.exe"), j("W", "System32", "bash.exe")}, j("G", "Git", "bin", "bash.exe")},
		{"git on PATH, mingw64", map[string]string{"PATH": j("G", "Git", "mingw64", "bin")},
			[]string{j("G", "Git", "mingw64", "bin", "git.exe"), j("G", "Git", "bin", "bash.exe")}, j("G", "Git", "bin", "bash.exe")},
		{"default install", map[string]string{"ProgramFiles": j("P")}, []string{j("P", "Git", "bin", "bash.exe")}, j("P", "Git", "bin", "bash.exe")},
		{"user install", map[string]string{"LocalAppData": j("L")}, []string{j("L", "Programs", "Git", "bin", "bash.exe")}, j("L", "Programs", "Git", "bin", "bash.exe")},
		{"never WSL's", map[string]string{"PATH": j("W", "System32"), "SystemRoot": "W"}, []string{j("W", "System32", "bash.exe")}, ""},
		{"another bash.exe on PATH", map[string]string{"PATH": j("M", "usr", "bin")}, []string{j("M", "usr", "bin", "bash.exe")}, j("M", "usr", "bin", "bash.exe")},
		{"none", map[string]string{}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := map[string]bool{}
			for _, f := range tc.files {
				have[f] = true
			}
			got, err := findGitBash(func(k string) string { return tc.env[k] }, func(p string) bool { return have[p] })
			if got != tc.want || (tc.want == "") != (err != nil) {
				t.Fatalf("findGitBash = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if b, err := findBash("/opt/bash", nil); b != "/opt/bash" || err != nil {
		t.Errorf("MCPBASH_BASH not taken: %q %v", b, err)
	}
	if runtime.GOOS != "windows" {
		if b, err := findBash("", nil); b != "bash" || err != nil {
			t.Errorf("Unix default: %q %v", b, err)
		}
	}
}
