//go:build unix

package confine

import "syscall"

//lint:ignore U1000 Group.sys is used on Windows only
type groupSys struct{}

func (g *Group) start(limits []Rlimit) ([]Rlimit, error) {
	if g.cmd.SysProcAttr == nil {
		g.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	g.cmd.SysProcAttr.Setpgid = true
	if g.cmd.Cancel != nil { // made with exec.CommandContext: its end kills the whole group
		g.cmd.Cancel = func() error { return syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL) }
	}
	return limits, g.cmd.Start()
}

// Terminate asks every process of the group to end (SIGTERM).
func (g *Group) Terminate() { _ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGTERM) }

// Kill ends every process of the group (SIGKILL).
func (g *Group) Kill() { _ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL) }

// Close ends whatever the program left running in its group: no orphans outlive a call.
func (g *Group) Close() { g.Kill() }

// KilledStatus is the status a shell reports for a program the group's Kill ended.
const KilledStatus = 128 + int(syscall.SIGKILL)
