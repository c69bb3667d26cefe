package host

import (
	"strings"
)

// Level is an RFC 5424 severity as MCP names it; higher is more severe.
type Level int

// Levels in increasing severity.
const (
	LevelDebug Level = iota
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
)

var levelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "info"
	}
	return levelNames[l]
}

// ParseLevel parses an RFC 5424 level name, case-insensitively.
func ParseLevel(s string) (Level, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, n := range levelNames {
		if n == s {
			return Level(i), true
		}
	}
	return LevelInfo, false
}
