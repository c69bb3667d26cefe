package sandbox

import "strings"

// Identity values every sandboxed call sees instead of the host's.
const (
	VirtualUser     = "mcp"
	VirtualUID      = "1000"
	VirtualHostname = "mcp-sandbox"
	VirtualPID      = "4242"
	VirtualPPID     = "4241"
	VirtualPath     = "/usr/local/bin:/usr/bin:/bin"
)

// BaseEnv is the explicit environment of a sandboxed call: virtual identity, home and temp dir,
// plus extra. Nothing is read from the server's own environment.
// Later entries win over earlier ones with the same name, so extra may override the defaults.
func BaseEnv(home, tmpdir string, extra map[string]string) []string {
	out := make([]string, 0, len(fixedEnv)+2+len(extra))
	out = append(out, fixedEnv...)
	out = append(out, "HOME="+home, "TMPDIR="+tmpdir)
	for k, v := range extra {
		out = append(out, k+"="+v)
	}
	return out
}

// fixedEnv is the part of BaseEnv that never changes.
var fixedEnv = []string{"PATH=" + VirtualPath, "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "USER=" + VirtualUser,
	"LOGNAME=" + VirtualUser, "UID=" + VirtualUID, "EUID=" + VirtualUID, "GID=" + VirtualUID,
	"HOSTNAME=" + VirtualHostname, "SHELL=/bin/bash", "TERM=dumb"}

// Lookup returns the last value of name in env (as an interpreter would see it).
func Lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}
