//go:build !windows

package sandbox

func wineWindows() bool { return false }
