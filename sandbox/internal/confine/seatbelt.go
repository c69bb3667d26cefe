package confine

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SandboxExec is macOS's Seatbelt front end: `sandbox-exec -p PROFILE -- PROG ARGS...` runs PROG
// under the profile, and everything it starts inherits it. A fixed path, never PATH's.
const SandboxExec = "/usr/bin/sandbox-exec"

// The paths a program on macOS needs to start and run, the Seatbelt counterparts of the Linux
// system paths (landlock_linux.go). macOS keeps its libraries in the dyld shared cache under
// /System (and, from macOS 13, in the cryptexes under /System/Volumes/Preboot); /etc, /var and
// /tmp are links into /private, and Seatbelt matches the resolved paths, so the profile names
// /private. Homebrew's prefix (/opt/homebrew on Apple silicon; /usr/local, inside /usr, on Intel)
// is where macOS users' git, jq and GNU tools live, so it is a system path here as /usr is.
var (
	seatbeltSystemDirs = []string{"/usr", "/bin", "/sbin", "/System", "/Library/Apple", "/opt/homebrew",
		"/private/var/db/dyld", "/private/var/db/timezone", "/System/Volumes/Preboot/Cryptexes"}
	seatbeltSystemFiles = []string{"/private/etc/localtime", "/dev/zero", "/dev/random", "/dev/urandom"}
	seatbeltRWFiles     = []string{"/dev/null"}
	// With Rules.Net: name resolution and TLS trust (files, and the daemons that answer them).
	seatbeltNetFiles = []string{"/private/etc/hosts", "/private/etc/resolv.conf", "/private/var/run/resolv.conf",
		"/private/etc/services", "/private/etc/protocols", "/private/etc/ssl"}
	seatbeltNetServices = []string{"com.apple.dnssd.service", "com.apple.mDNSResponder", "com.apple.trustd",
		"com.apple.trustd.agent", "com.apple.SystemConfiguration.configd"}
)

// SeatbeltProfile is the Seatbelt (SBPL) profile for r, the same policy Landlock enforces on
// Linux: everything is denied but
//
//   - reading, mapping and executing the system paths above, the read-only rules (RO: read-only
//     roots, the tool's directory, the program), and the read-write rules (RW: roots, scratch);
//   - writing (creating, removing, renaming) inside the RW rules, except the Protect paths: a
//     protected path, and for a last component HiddenEntries every entry of its directory whose
//     name starts with a dot, stays read-only. Seatbelt can say "this tree but that one", which
//     Landlock cannot, so unlike Linux a tool can create new plain files directly in a root
//     that holds protected entries. Protected paths are matched without regard to case
//     (macOS file systems are case-insensitive by default: TOOLS is tools), so a different
//     spelling cannot write them; granted paths match exactly (a differently cased root fails
//     closed);
//   - reading /dev/zero, /dev/random, /dev/urandom, writing /dev/null; metadata (stat) of any
//     path, which Landlock does not restrict either; sysctl reads; signals and process
//     information only within the same sandbox (Landlock's scoping from ABI 6);
//   - with Net, the network and the name-resolution and TLS files and daemons; without it no
//     socket reaches the network (network* is denied; socketpair and inherited descriptors
//     stay usable).
//
// resolve maps a path to its physical form (filepath.EvalSymlinks where the path exists):
// Seatbelt matches the resolved path of what a program opens, so /var/folders/... must be
// written /private/var/folders/.... It fails when a path cannot be written in the profile's
// language safely (a quote, a backslash or a control character): the caller refuses to run
// rather than run unconfined.
func SeatbeltProfile(r Rules, resolve func(string) string) (string, error) {
	if resolve == nil {
		resolve = func(p string) string { return p }
	}
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-fork)\n(allow signal (target same-sandbox))\n(allow process-info* (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow file-read-metadata)\n")
	rule := func(ops string, filters []string) {
		if len(filters) == 0 {
			return
		}
		b.WriteString("(allow " + ops)
		for _, f := range filters {
			b.WriteString("\n  " + f)
		}
		b.WriteString(")\n")
	}
	const readExec = "file-read* process-exec* file-map-executable"
	rule(readExec, mapFilters(seatbeltSystemDirs, "subpath"))
	rule("file-read*", mapFilters(seatbeltSystemFiles, "literal"))
	rule("file-read* file-write-data", mapFilters(seatbeltRWFiles, "literal"))
	var ro, rw, protect []string
	for _, set := range []struct {
		in  []string
		out *[]string
	}{{r.RO, &ro}, {r.RW, &rw}, {r.Protect, &protect}} {
		for _, p := range set.in {
			if !path.IsAbs(p) {
				return "", fmt.Errorf("confine: seatbelt: rule path %q is not absolute", p)
			}
			q := p
			if dir, ok := strings.CutSuffix(p, "/"+HiddenEntries); ok {
				q = path.Join(resolve(dir), HiddenEntries)
			} else {
				q = path.Clean(resolve(p))
			}
			if err := sbplSafe(q); err != nil {
				return "", err
			}
			*set.out = append(*set.out, q)
		}
	}
	var readable []string
	for _, p := range append(append([]string(nil), ro...), rw...) {
		readable = append(readable, "(subpath "+sbplString(p)+")")
	}
	rule(readExec, readable)
	if len(rw) > 0 {
		var writable []string
		for _, p := range rw {
			writable = append(writable, "(subpath "+sbplString(p)+")")
		}
		where := "(require-any " + strings.Join(writable, " ") + ")"
		if len(rw) == 1 {
			where = writable[0]
		}
		if len(protect) > 0 {
			var nots []string
			for _, p := range protect {
				nots = append(nots, "(require-not (regex #\""+protectedRegex(p)+"\"))")
			}
			where = "(require-all " + where + "\n    " + strings.Join(nots, "\n    ") + ")"
		}
		rule("file-write*", []string{where})
	}
	if r.Net {
		b.WriteString("(allow network*)\n")
		rule("file-read*", mapFilters(seatbeltNetFiles, "subpath"))
		var svc []string
		for _, s := range seatbeltNetServices {
			svc = append(svc, "(global-name "+sbplString(s)+")")
		}
		rule("mach-lookup", svc)
	}
	return b.String(), nil
}

func mapFilters(paths []string, kind string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "(" + kind + " " + sbplString(p) + ")"
	}
	return out
}

// sbplString is p as a profile string; sbplSafe has made sure it needs no escapes (the constant
// paths above need none either).
func sbplString(p string) string { return `"` + p + `"` }

// sbplSafe refuses what the profile's strings and regular expressions cannot hold plainly.
func sbplSafe(p string) error {
	if !utf8.ValidString(p) {
		return fmt.Errorf("confine: seatbelt: path %q is not UTF-8", p)
	}
	for _, c := range p {
		if c == '"' || c == '\\' || unicode.IsControl(c) {
			return fmt.Errorf("confine: seatbelt: path %q has a character the profile cannot express (%q)", p, c)
		}
	}
	return nil
}

// protectedRegex matches the protected path p and everything below it, every letter in either
// case; p ending in /HiddenEntries matches every dot entry of its directory and below.
func protectedRegex(p string) string {
	var b strings.Builder
	b.WriteByte('^')
	if dir, ok := strings.CutSuffix(p, "/"+HiddenEntries); ok {
		b.WriteString(foldQuote(dir))
		b.WriteString(`/\.`)
		return b.String()
	}
	b.WriteString(foldQuote(p))
	b.WriteString("(/|$)")
	return b.String()
}

// foldQuote quotes s for a regular expression, each letter as a class of its cases.
func foldQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case strings.ContainsRune(`.^$*+?()[]{}|`, c):
			b.WriteByte('\\')
			b.WriteRune(c)
		case unicode.ToLower(c) != unicode.ToUpper(c):
			b.WriteString("[" + string(unicode.ToLower(c)) + string(unicode.ToUpper(c)) + "]")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
