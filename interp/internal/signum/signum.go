// Package signum names Linux's signals for the shell (kill, trap, wait's reports) and the
// utilities that take one (timeout -s).
package signum

import (
	"strconv"
	"strings"
)

// names are Linux's signal names by number (no SIG prefix); 0 has none.
var names = [...]string{"", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
	"PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
	"VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"}

// List returns the names by number, a copy.
func List() []string { return append([]string(nil), names[:]...) }

// Name is signal n's name without SIG ("" when there is none).
func Name(n int) string {
	if n <= 0 || n >= len(names) {
		return ""
	}
	return names[n]
}

// Number parses a signal: its number (0 included), or its name with or without SIG, in any
// case.
func Number(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n >= 0 && n < len(names)
	}
	u := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	for i, n := range names {
		if i > 0 && n == u {
			return i, true
		}
	}
	return 0, false
}

// IgnoredByDefault: CHLD, CONT, URG and WINCH do nothing to a process that has no handler.
func IgnoredByDefault(n int) bool { return n == 17 || n == 18 || n == 23 || n == 28 }

// Stops: STOP, TSTP, TTIN and TTOU stop a process (job control) rather than end it.
func Stops(n int) bool { return n >= 19 && n <= 22 }
