"""Frames on the worker's socket, descriptor passing, and the peer's user id.

A frame is a 4-byte big-endian length and a UTF-8 JSON object. One run:

    client -> server  {"kind": "run", "protocol": 1, "fds": [...]}  with the descriptors (SCM_RIGHTS)
    client -> child   {"argv": ..., "env": ..., ...}                 (read by the forked child only)
    child  -> client  {"ready": pid} or {"declined": reason}
    client -> child   {"go": true}                                    (after this the run is the child's)
    child  -> client  {"exit": code} or {"signal": number}            (the server's, if the child died)

The server reads only the first frame, so the client's environment (and its keys) never passes
through the long-lived worker process. `status` and `stop` are one frame each way.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys

TYPE_CHECKING = False  # `import typing` is a cost the thin client does not pay; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = 1
MAX_FRAME = 64 << 20
MAX_FDS = 8
_LENGTH = struct.Struct(">I")


class ProtocolError(Exception):
    """The other side broke the protocol or went away."""


def encode(obj: dict[str, Any]) -> bytes:
    # ensure_ascii keeps lone surrogates (undecodable bytes in argv or the environment) intact.
    data = json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return _LENGTH.pack(len(data)) + data


def send_frame(sock: socket.socket, obj: dict[str, Any], fds: list[int] | None = None) -> None:
    data = encode(obj)
    if fds:
        sent = socket.send_fds(sock, [data], fds)
        data = data[sent:]
    if data:
        sock.sendall(data)


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ProtocolError("the connection closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _decode(data: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except ValueError:
        raise ProtocolError("a frame is not JSON") from None
    if not isinstance(obj, dict):
        raise ProtocolError("a frame is not an object")
    return obj


def recv_frame(sock: socket.socket) -> dict[str, Any]:
    (size,) = _LENGTH.unpack(_recv_exactly(sock, _LENGTH.size))
    if size > MAX_FRAME:
        raise ProtocolError("a frame is too large")
    return _decode(_recv_exactly(sock, size))


def recv_frame_with_fds(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The first frame of a connection and the descriptors sent with it (read without overreading)."""
    head, fds, flags, _ = socket.recv_fds(sock, _LENGTH.size, MAX_FDS)
    if flags & getattr(socket, "MSG_CTRUNC", 0):
        close_all(fds)
        raise ProtocolError("too many descriptors")
    try:
        if not head:
            raise ProtocolError("the connection closed")
        if len(head) < _LENGTH.size:
            head += _recv_exactly(sock, _LENGTH.size - len(head))
        (size,) = _LENGTH.unpack(head)
        if size > 1 << 16:
            raise ProtocolError("the first frame is too large")
        return _decode(_recv_exactly(sock, size)), fds
    except BaseException:
        close_all(fds)
        raise


def close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end (SO_PEERCRED on Linux, LOCAL_PEERCRED on BSD/macOS)."""
    if hasattr(socket, "SO_PEERCRED"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", creds)[1])
    if sys.platform == "darwin" and hasattr(socket, "LOCAL_PEERCRED"):
        # struct xucred: u_int cr_version; uid_t cr_uid; ...  (SOL_LOCAL is 0)
        creds = sock.getsockopt(0, socket.LOCAL_PEERCRED, 76)
        return int(struct.unpack_from("=II", creds)[1])
    return None
