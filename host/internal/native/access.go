package native

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// HostInfo are what a native tool may read beyond its roots because reporting the host is what
// native mode is for: the host-wide files of /proc that free, uptime, top and nproc read (never
// /proc as a whole: a process of the same user, the server included, would show its
// environment there), the operating system's identity and the user database (no passwords:
// /etc/shadow stays closed), and the login records uptime and who read.
var HostInfo = []string{"/proc/meminfo", "/proc/uptime", "/proc/loadavg", "/proc/cpuinfo", "/proc/stat", "/proc/version",
	"/proc/swaps", "/proc/diskstats", "/etc/os-release", "/usr/lib/os-release", "/etc/lsb-release", "/etc/hostname",
	"/etc/passwd", "/etc/group", "/run/utmp", "/var/run/utmp"}

// deniedRE finds what a confined program reports it was denied: "PROG: PATH: Permission denied"
// (and "Operation not permitted") from bash and most programs, and coreutils' quoted forms
// ("ls: cannot open directory '/root': ...", "cp: cannot open '/x' for reading: ...").
var deniedRE = regexp.MustCompile(`(?m)(?:^|: )(?:cannot [a-z ]+ )?(?:'(/[^'\n]*)'|‘(/[^’\n]*)’|(/[^:'\n]*))(?: for (?:reading|writing))?: (?:Permission denied|Operation not permitted)`)

// maxDenials bounds the access record's denial entries (stderr is already capped).
const maxDenials = 200

// accessRecord is a native run's access record: what Landlock granted (one entry per rule) and
// the denials the tool's programs reported on stderr (the kernel reports them to the program,
// not to the server), so `run-tool --sandbox` shows what native mode confined. Without
// Landlock the run was unconfined, and the record says so.
func accessRecord(prev json.RawMessage, r sandbox.ConfineRules, confined bool, stderr []byte) json.RawMessage {
	var rec struct {
		Entries []sandbox.Access `json:"entries"`
	}
	_ = json.Unmarshal(prev, &rec)
	entries := append([]sandbox.Access{}, rec.Entries...)
	if !confined {
		entries = append(entries, sandbox.Access{Op: "confine", Path: "/", Allowed: true,
			Reason: "not confined: no Landlock on this host (MCPBASH_REQUIRE_CONFINEMENT=true refuses native tools instead)"})
	} else {
		for _, p := range r.RW {
			entries = append(entries, sandbox.Access{Op: "grant-rw", Path: p, Allowed: true, Reason: "Landlock: read-write"})
		}
		for _, p := range r.Protect {
			entries = append(entries, sandbox.Access{Op: "grant-ro", Path: p, Allowed: true, Reason: "Landlock: protected, read-only inside a read-write root"})
		}
		for _, p := range r.RO {
			entries = append(entries, sandbox.Access{Op: "grant-ro", Path: p, Allowed: true, Reason: "Landlock: read-only"})
		}
		// What the rules say of the network (a grant or a confinement, not an access).
		net := sandbox.Access{Op: "confine", Path: "network", Allowed: true, Reason: `Landlock and seccomp: no network ("sandbox": {"network": true} allows it)`}
		if r.Net {
			net = sandbox.Access{Op: "grant-net", Path: "network", Allowed: true, Reason: `the tool's "sandbox": {"network": true}`}
		}
		entries = append(entries, net)
	}
	var seen []string
	for _, m := range deniedRE.FindAllSubmatch(stderr, -1) {
		p := strings.TrimSpace(string(m[1]) + string(m[2]) + string(m[3]))
		if slices.Contains(seen, p) || len(seen) >= maxDenials {
			continue
		}
		seen = append(seen, p)
		reason := "denied (reported by the program)"
		if confined {
			reason = "denied by Landlock: outside the native tool's roots, scratch, tool directory, system paths and host facts (docs/SANDBOX.md, Native mode)"
		}
		entries = append(entries, sandbox.Access{Op: "access", Path: p, Allowed: false, Reason: reason})
	}
	b, _ := json.Marshal(map[string]any{"entries": entries})
	return b
}
