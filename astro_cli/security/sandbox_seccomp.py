"""A seccomp filter that refuses new Unix sockets: what `sandbox.network: false` adds to `--unshare-net`.

A network namespace cuts TCP/IP and the host's abstract sockets, but a socket *file* anywhere the
command can see (the workspace, `/run/docker.sock`) still connects. So with the network off,
`socket(AF_UNIX, ...)` fails with EPERM; `socketpair` (an unconnected pair, used by many programs
internally) still works. The filter is a classic BPF program handed to bubblewrap (`--seccomp FD`).
Known ABIs only: x86_64 (the x32 ABI is refused whole, 32-bit `socketcall` too) and aarch64; on
another machine there is no filter and `unix_socket_filter()` returns None.
"""

from __future__ import annotations

import platform
import struct

_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_REFUSE = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian: args[0]'s low word)
AF_UNIX = 1
X32_BIT = 0x40000000
# machine -> (its audit arch, socket's number, the 32-bit compat arch, its socket and socketcall numbers)
_ABIS = {
    "x86_64": (0xC000003E, 41, 0x40000003, 359, 102),
    "aarch64": (0xC00000B7, 198, None, None, None),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine, or None where astro knows no syscall numbers."""
    abi = _ABIS.get(machine or platform.machine())
    if abi is None:
        return None
    arch, socket_nr, compat, compat_socket, socketcall = abi
    program = [
        _op(_LD_ABS, _ARCH),
        _op(_JEQ, arch, 0, 6),                 # 1: not the native arch -> 8 (compat checks)
        _op(_LD_ABS, _NR),                     # 2
        _op(_JGE, X32_BIT, 11, 0),             # 3: x32 -> refuse (15)
        _op(_JEQ, socket_nr, 0, 9),            # 4: not socket -> allow (14)
        _op(_LD_ABS, _ARG0),                   # 5
        _op(_JEQ, AF_UNIX, 8, 7),              # 6: AF_UNIX -> refuse (15), else allow (14)
        _op(_RET, _ALLOW),                     # 7: never reached
        _op(_JEQ, compat or 0, 0, 5),          # 8: not the compat arch -> allow (14)
        _op(_LD_ABS, _NR),                     # 9
        _op(_JEQ, socketcall or 0, 4, 0),      # 10: socketcall -> refuse (15)
        _op(_JEQ, compat_socket or 0, 0, 2),   # 11: not socket -> allow
        _op(_LD_ABS, _ARG0),                   # 12
        _op(_JEQ, AF_UNIX, 1, 0),              # 13: AF_UNIX -> refuse (15)
        _op(_RET, _ALLOW),                     # 14
        _op(_RET, _REFUSE),                    # 15
    ]
    return b"".join(program)
