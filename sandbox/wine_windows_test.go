package sandbox

import "golang.org/x/sys/windows"

// wineWindows reports whether this is Wine: its ntdll exports wine_get_version.
func wineWindows() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
