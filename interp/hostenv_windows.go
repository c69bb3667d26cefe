package interp

import "golang.org/x/sys/windows"

// hostProgramPath is the PATH of an allowlisted host command on Windows: the system
// directories, as the system reports them (never the server's or the script's PATH).
func hostProgramPath() string {
	sys, _ := windows.GetSystemDirectory()
	win, _ := windows.GetWindowsDirectory()
	return sys + ";" + win
}

// hostSystemEnv is what Windows programs need to start (the C runtime and Winsock look up
// SystemRoot; without it a program cannot open sockets or load some DLLs).
func hostSystemEnv() []string {
	win, _ := windows.GetWindowsDirectory()
	return []string{"SystemRoot=" + win}
}
