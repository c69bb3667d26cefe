package confine

import "syscall"

// The AArch64 system call ABI. Syscalls of AArch32 tasks (AUDIT_ARCH_ARM) are foreign: the
// filter kills the process on the first one (see seccomp_linux.go).
const (
	auditArch      = 0xc00000b7 // AUDIT_ARCH_AARCH64
	foreignNrFloor = 0          // no second ABI shares AUDIT_ARCH_AARCH64

	sysSocket       = syscall.SYS_SOCKET     // 198
	sysSocketpair   = syscall.SYS_SOCKETPAIR // 199
	sysSendto       = syscall.SYS_SENDTO     // 206
	sysSendmsg      = syscall.SYS_SENDMSG    // 211
	sysSendmmsg     = syscall.SYS_SENDMMSG   // 269
	sysIOURingSetup = 425
	sysSeccomp      = syscall.SYS_SECCOMP // 277
)
