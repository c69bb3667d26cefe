package confine

import "os/exec"

// Group is a started program and every process it starts, which the server ends together: a
// process group on Unix (the program is started as its leader), a Job Object on Windows (the
// program is started suspended, put in the job, then resumed, so that nothing it starts escapes
// the job; closing the job ends whatever is left). On Windows the job also holds the limits
// (see StartGroup); on Unix limits are set by the confinement wrapper or by bash's ulimit.
type Group struct {
	cmd *exec.Cmd
	//lint:ignore U1000 the Windows build keeps the group's Job Object here; Unix needs nothing
	sys groupSys
}

// StartGroup starts cmd as a group. If cmd was made with a context, the context's end kills the
// whole group. limits apply on Windows (ApplyToJob) and are ignored on Unix, where the caller
// sets them in the child; unenforced reports which of them this platform cannot hold.
func StartGroup(cmd *exec.Cmd, limits []Rlimit) (g *Group, unenforced []Rlimit, err error) {
	g = &Group{cmd: cmd}
	unenforced, err = g.start(limits)
	if err != nil {
		return nil, nil, err
	}
	return g, unenforced, nil
}

// Pid is the program's process id.
func (g *Group) Pid() int { return g.cmd.Process.Pid }
