package host

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// findBash is the bash of native tools and hooks: MCPBASH_BASH when set; on Unix "bash" (found on
// the tool's PATH when it starts); on Windows Git-Bash's bash.exe, found as Git for Windows lays
// itself out (findGitBash). An error says why none was found; native tools then fail with it.
func findBash(setting string, getenv func(string) string) (string, error) {
	if setting != "" {
		return setting, nil
	}
	if runtime.GOOS != "windows" {
		return "bash", nil
	}
	return findGitBash(getenv, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	})
}

// findGitBash looks for Git-Bash's bin\bash.exe: beside the git.exe on PATH (Git\cmd\git.exe,
// Git\bin\git.exe or Git\mingw64\bin\git.exe all belong to the installation whose bin\bash.exe
// it is), else in the default install directories. A bash.exe that is only on PATH is taken
// last, and never Windows' own System32\bash.exe, which starts WSL, not Git-Bash.
func findGitBash(getenv func(string) string, exists func(string) bool) (string, error) {
	path := filepath.SplitList(getenv("PATH"))
	for _, dir := range path {
		if dir == "" || !exists(filepath.Join(dir, "git.exe")) {
			continue
		}
		root := filepath.Dir(dir) // Git\cmd or Git\bin -> Git
		if strings.EqualFold(filepath.Base(dir), "bin") && strings.EqualFold(filepath.Base(root), "mingw64") {
			root = filepath.Dir(root) // Git\mingw64\bin -> Git
		}
		if p := filepath.Join(root, "bin", "bash.exe"); exists(p) {
			return p, nil
		}
	}
	for _, base := range []string{getenv("ProgramFiles"), getenv("ProgramW6432"), getenv("ProgramFiles(x86)"),
		filepath.Join(getenv("LocalAppData"), "Programs")} {
		if base == "" || base == "Programs" {
			continue
		}
		if p := filepath.Join(base, "Git", "bin", "bash.exe"); exists(p) {
			return p, nil
		}
	}
	system := strings.ToLower(filepath.Join(getenv("SystemRoot"), "System32"))
	for _, dir := range path {
		if dir == "" || strings.EqualFold(filepath.Clean(dir), system) || strings.Contains(strings.ToLower(dir), `\windowsapps`) {
			continue
		}
		if p := filepath.Join(dir, "bash.exe"); exists(p) {
			return p, nil
		}
	}
	return "", errors.New("Git-Bash's bash.exe not found (install Git for Windows, or set MCPBASH_BASH to a bash.exe)")
}

// hookBash is the bash of project hooks: MCPBASH_BASH, or on Windows Git-Bash's; "" on Unix
// without the setting (the hook's own PATH decides, as before).
func (srv *Server) hookBash() string {
	if srv.cfg.Settings.Bash == "" && runtime.GOOS != "windows" {
		return ""
	}
	b, _ := findBash(srv.cfg.Settings.Bash, srv.cfg.Getenv)
	return b
}
