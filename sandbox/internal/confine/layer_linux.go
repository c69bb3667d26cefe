//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// LayerAttr starts the layer helper: new user (the server's user and group mapped to
// themselves), mount and PID namespaces, CAP_SYS_ADMIN kept across exec (ambient) for the
// mounts only, its own process group.
func LayerAttr(uid, gid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN},
		Setpgid:     true,
	}
}

// mountOverlay covers m.Root with an overlay of m.Upper over it.
func mountOverlay(m LayerMount) error {
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr,redirect_dir=nofollow,metacopy=off,index=off,xino=off", m.Root, m.Upper, m.Work)
	if err := unix.Mount("overlay", m.Root, "overlay", 0, opts); err != nil {
		return fmt.Errorf("layer: overlay over %s: %w", m.Root, err)
	}
	return nil
}

// LayerExec is the helper's side (`mcp-bash __layer SPEC -- PROG ARGS...`): it mounts the
// overlays and covers, then runs PROG in a nested user and mount namespace and exits with its
// status (128+N for a signal). It returns only on failure, with status 126.
func LayerExec(args []string) (int, error) {
	if len(args) == 2 && args[0] == "probe" {
		return layerProbeChild(args[1])
	}
	if len(args) < 3 || args[1] != "--" {
		return 126, fmt.Errorf("layer: usage: %s SPEC -- PROG [ARGS...]", LayerCommand)
	}
	s, err := decodeLayer(args[0])
	if err != nil {
		return 126, err
	}
	// Nothing mounted here may propagate back to the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return 126, fmt.Errorf("layer: %w", err)
	}
	for _, m := range s.Mounts {
		if err := mountOverlay(m); err != nil {
			return 126, err
		}
	}
	// This is a new PID namespace: /proc must show it (Go finds the nested namespace's
	// process there to map its user), and the tool sees only its own processes.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return 126, fmt.Errorf("layer: /proc: %w", err)
	}
	for _, h := range s.Hide {
		if err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500"); err != nil {
			return 126, fmt.Errorf("layer: covering %s: %w", h, err)
		}
	}
	// The working directory was the root's below the overlay: enter it again.
	if err := os.Chdir(s.Dir); err != nil {
		return 126, fmt.Errorf("layer: %w", err)
	}
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Dir = os.Stdin, os.Stdout, os.Stderr, s.Dir
	// A nested user namespace owns the tool's mount namespace, so every mount made above is
	// locked there: no process of the tool can unmount an overlay and reach the root below.
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: s.UID, HostID: s.UID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: s.GID, HostID: s.GID, Size: 1}},
	}
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 126, fmt.Errorf("layer: %w", err)
	}
	return 0, nil
}

// LayerProbe reports whether native tools can run in review mode here: it runs the helper's
// probe, which mounts an overlay with its upper layer in dir (the directory layers will be made
// in: its file system must carry an overlay's upper layer) and writes through it.
func LayerProbe(self, dir string) error {
	probe, err := os.MkdirTemp(dir, "probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(probe)
	for _, d := range []string{"lower", "upper", "work"} {
		if err := os.Mkdir(filepath.Join(probe, d), 0o700); err != nil {
			return err
		}
	}
	cmd := exec.Command(self, LayerCommand, "probe", probe)
	cmd.SysProcAttr = LayerAttr(os.Geteuid(), os.Getegid())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("an overlay cannot be mounted in a user namespace here (%v: %s)", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(probe, "upper", "probe")); err != nil || string(b) != "probe" {
		return errors.New("an overlay mounted in a user namespace did not hold a write in its upper layer")
	}
	if _, err := os.Stat(filepath.Join(probe, "lower", "probe")); err == nil {
		return errors.New("an overlay mounted in a user namespace let a write through to its lower directory")
	}
	os.Chmod(filepath.Join(probe, "work", "work"), 0o700)
	return nil
}

func layerProbeChild(dir string) (int, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return 1, err
	}
	m := LayerMount{Root: filepath.Join(dir, "lower"), Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	if err := mountOverlay(m); err != nil {
		return 1, err
	}
	if err := os.WriteFile(filepath.Join(m.Root, "probe"), []byte("probe"), 0o600); err != nil {
		return 1, err
	}
	return 0, nil
}
