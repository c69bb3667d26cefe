//go:build linux && (amd64 || arm64)

package confine

import (
	"fmt"
	"syscall"
	"unsafe"
)

// The seccomp filter Apply installs when Rules.Net is false, for what Landlock's network rule
// does not see (below ABI 10 it handles TCP only, and only bind(2) and connect(2)):
//
//   - socket(2), socketpair(2): AF_UNIX and AF_NETLINK are allowed; AF_INET and AF_INET6 only as
//     SOCK_STREAM with protocol 0 or IPPROTO_TCP, the sockets Landlock restricts. That refuses
//     Multipath TCP (IPPROTO_MPTCP), UDP (DNS included), ping and raw sockets, SCTP. Every other
//     family (AF_PACKET, AF_VSOCK to the hypervisor, AF_TIPC, AF_RDS, AF_CAN, ...) is refused.
//   - sendto(2), sendmsg(2), sendmmsg(2) with MSG_FASTOPEN: TCP Fast Open connects inside the
//     send, past Landlock's connect hook (landlock-lsm/linux#41).
//   - io_uring_setup(2): io_uring's socket, connect and send operations are not system calls,
//     so a filter on those would not see them.
//
// Refused calls fail with EPERM. The type is compared after masking with 0xf (SOCK_TYPE_MASK:
// SOCK_NONBLOCK and SOCK_CLOEXEC are flags above it; the kernel rejects any other high bit).
// The kernel reads domain, type and protocol as 32-bit ints, so the filter compares the low
// halves of the 64-bit arguments (little-endian on both amd64 and arm64).
//
// Foreign system call ABIs (i386 and x32 on amd64, AArch32 on arm64) kill the process. A
// 64-bit program can make them deliberately (int 0x80), and covering them would take a
// second table per ABI, one of which (i386's socketcall multiplexer) passes the arguments in
// memory where a filter cannot read them. The cost: 32-bit programs cannot run confined
// without Net (with Net there is no filter).
//
// The filter is installed with seccomp(2) and SECCOMP_FILTER_FLAG_TSYNC, on every thread of
// the process at once: Go may run the final execve(2) on any of its threads, and only that
// thread's filter carries over to the program. (Locking the goroutine to one thread from the
// filter to the exec would work too, but would depend on every caller keeping that promise.)
// The filter survives execve and is inherited by every child; it cannot be removed.

const (
	secRetKillProcess = 0x80000000
	secRetErrno       = 0x00050000
	secRetAllow       = 0x7fff0000
	secSetModeFilter  = 1
	secFilterTSync    = 1
	prSetNoNewPrivs   = 38

	// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
	offNr   = 0
	offArch = 4
	offArg0 = 16 // args[n] at 16 + 8n; the low 32 bits come first (little-endian)

	afUnix      = 1
	afInet      = 2
	afInet6     = 10
	afNetlink   = 16
	sockStream  = 1
	sockTypeMsk = 0xf
	ipprotoTCP  = 6
	msgFastOpen = 0x20000000
)

// asm assembles a classic BPF program with named jump targets ("" is the next instruction).
type asm struct {
	prog   []syscall.SockFilter
	labels map[string]int
	jumps  map[int][2]string
}

func (a *asm) label(name string) { a.labels[name] = len(a.prog) }

func (a *asm) op(code uint16, k uint32) {
	a.prog = append(a.prog, syscall.SockFilter{Code: code, K: k})
}

func (a *asm) load(off uint32) { a.op(syscall.BPF_LD|syscall.BPF_W|syscall.BPF_ABS, off) }
func (a *asm) ret(v uint32)    { a.op(syscall.BPF_RET|syscall.BPF_K, v) }

func (a *asm) jump(cond uint16, k uint32, jt, jf string) {
	a.jumps[len(a.prog)] = [2]string{jt, jf}
	a.op(syscall.BPF_JMP|cond|syscall.BPF_K, k)
}

func (a *asm) assemble() ([]syscall.SockFilter, error) {
	for i, j := range a.jumps {
		for n, name := range j {
			off := 0
			if name != "" {
				to, ok := a.labels[name]
				if !ok {
					return nil, fmt.Errorf("confine: seccomp program: no label %q", name)
				}
				off = to - i - 1
			}
			if off < 0 || off > 255 {
				return nil, fmt.Errorf("confine: seccomp program: jump %d -> %q out of range", i, name)
			}
			if n == 0 {
				a.prog[i].Jt = uint8(off)
			} else {
				a.prog[i].Jf = uint8(off)
			}
		}
	}
	return a.prog, nil
}

// netFilter is the program described above.
func netFilter() ([]syscall.SockFilter, error) {
	a := &asm{labels: map[string]int{}, jumps: map[int][2]string{}}
	const eq, ge, set = syscall.BPF_JEQ, syscall.BPF_JGE, syscall.BPF_JSET
	a.load(offArch)
	a.jump(eq, auditArch, "", "kill")
	a.load(offNr)
	if foreignNrFloor != 0 {
		a.jump(ge, foreignNrFloor, "kill", "")
	}
	a.jump(eq, sysSocket, "socket", "")
	a.jump(eq, sysSocketpair, "socket", "")
	a.jump(eq, sysSendto, "flags3", "")
	a.jump(eq, sysSendmmsg, "flags3", "")
	a.jump(eq, sysSendmsg, "flags2", "")
	a.jump(eq, sysIOURingSetup, "deny", "allow")

	a.label("socket") // socket(domain, type, protocol), socketpair(domain, type, protocol, sv)
	a.load(offArg0)
	a.jump(eq, afUnix, "allow", "")
	a.jump(eq, afNetlink, "allow", "")
	a.jump(eq, afInet, "inet", "")
	a.jump(eq, afInet6, "inet", "deny")
	a.label("inet")
	a.load(offArg0 + 8)
	a.op(syscall.BPF_ALU|syscall.BPF_AND|syscall.BPF_K, sockTypeMsk)
	a.jump(eq, sockStream, "", "deny")
	a.load(offArg0 + 16)
	a.jump(eq, 0, "allow", "")
	a.jump(eq, ipprotoTCP, "allow", "deny")

	a.label("flags3") // sendto(fd, buf, len, flags, ...), sendmmsg(fd, vec, vlen, flags)
	a.load(offArg0 + 24)
	a.jump(set, msgFastOpen, "deny", "allow")
	a.label("flags2") // sendmsg(fd, msg, flags)
	a.load(offArg0 + 16)
	a.jump(set, msgFastOpen, "deny", "allow")

	a.label("allow")
	a.ret(secRetAllow)
	a.label("deny")
	a.ret(secRetErrno | uint32(syscall.EPERM))
	a.label("kill")
	a.ret(secRetKillProcess)
	return a.assemble()
}

// denyNetSockets installs netFilter on every thread of the process. It sets no_new_privs
// first (Landlock has already set it; seccomp requires it of an unprivileged caller).
func denyNetSockets() error {
	prog, err := netFilter()
	if err != nil {
		return err
	}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return fmt.Errorf("confine: prctl(PR_SET_NO_NEW_PRIVS): %w", e)
	}
	fprog := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, e := syscall.RawSyscall(sysSeccomp, secSetModeFilter, secFilterTSync, uintptr(unsafe.Pointer(&fprog)))
	switch {
	case e != 0:
		return fmt.Errorf("confine: seccomp network filter: %w", e)
	case r != 0: // TSYNC: the id of a thread that could not be synchronised
		return fmt.Errorf("confine: seccomp network filter: thread %d could not be synchronised", r)
	}
	return nil
}
