/* A stand-in for Windows' bcryptprimitives.dll, for running mapgrep's Windows build under
 * wine releases that do not ship it (Debian 12's wine 8.0). Rust's standard library imports
 * one function from it, ProcessPrng, to seed its hash maps; here it is answered by
 * RtlGenRandom (advapi32's SystemFunction036), which every wine has. Not used on Windows. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG part = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, part))
            return FALSE;
        data += part;
        length -= part;
    }
    return TRUE;
}
