package confine

import "syscall"

// The x86-64 system call ABI. Syscalls made through the i386 (int 0x80, AUDIT_ARCH_I386) or
// x32 (AUDIT_ARCH_X86_64 with __X32_SYSCALL_BIT in the number) ABIs are foreign: the filter
// kills the process on the first one (see seccomp_linux.go).
const (
	auditArch      = 0xc000003e // AUDIT_ARCH_X86_64
	foreignNrFloor = 0x40000000 // __X32_SYSCALL_BIT: x32 syscall numbers start here

	sysSocket       = syscall.SYS_SOCKET     // 41
	sysSocketpair   = syscall.SYS_SOCKETPAIR // 53
	sysSendto       = syscall.SYS_SENDTO     // 44
	sysSendmsg      = syscall.SYS_SENDMSG    // 46
	sysSendmmsg     = 307
	sysIOURingSetup = 425
	sysSeccomp      = 317
)
