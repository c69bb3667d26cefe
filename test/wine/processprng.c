/*
 * bcryptprimitives.dll for Wine 8, which lacks ProcessPrng: the Go runtime (1.24 and later)
 * calls it at start for its random numbers and aborts without it. This DLL exports that one
 * function over RtlGenRandom (advapi32's SystemFunction036), which Wine has. It is test setup
 * only (test/wine.sh puts it in a private Wine prefix's system32), never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
