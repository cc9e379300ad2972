"""Real MCP servers for the tests, written with the official SDK's server side (`mcp.server.MCPServer`).

`python tests/mcp_server.py stdio` serves the catalogue tools over stdio (astro starts it as a
configured command); `python tests/mcp_server.py mute` starts, writes one line on stderr and then
never answers anything (not even `initialize`). `HttpServer()` serves the same tools over
streamable HTTP on 127.0.0.1 in this process, and refuses requests without its bearer token.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()
TOKEN = "mcp-test-token-7f3a9c21"
# A small slice of a source catalogue around M31 (positions from SIMBAD, J2000).
M31_FIELD = [
    ("M31", 10.684708, 41.268750, "galaxy"),
    ("M32", 10.674300, 40.865264, "galaxy"),
    ("NGC 205", 10.092000, 41.685390, "galaxy"),
]


def build_server(name: str = "catalogue") -> Any:
    from mcp.server import MCPServer

    server = MCPServer(name, instructions="The group's source catalogue.")

    @server.tool()
    def cone_search(target: str, radius_arcmin: float = 30.0) -> str:
        """Search the group's source catalogue around a target. Returns one line per source: name, RA, Dec, type."""
        log(f"cone_search {target}")
        if target.strip().upper() not in ("M31", "ANDROMEDA"):
            return f"no sources within {radius_arcmin:g} arcmin of {target}"
        return "\n".join(f"{n}\tRA={ra:.6f}\tDec={dec:.6f}\t{kind}" for n, ra, dec, kind in M31_FIELD)

    @server.tool()
    def read_env(name: str) -> str:
        """Tell whether an environment variable is visible to this server, and its value."""
        return f"{name}={os.environ[name]}" if name in os.environ else f"{name} is not set"

    @server.tool()
    def crash() -> str:
        """Crash the server at once (for tests)."""
        print("catalogue: lost the connection to the archive database", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool()
    def slow(seconds: float) -> str:
        """Wait a number of seconds, then answer."""
        time.sleep(seconds)
        return f"waited {seconds:g} s"

    @server.tool()
    def big(chars: int) -> str:
        """Return a long text of the given length."""
        return ("0123456789" * (chars // 10 + 1))[:chars]

    @server.tool()
    def broken() -> str:
        """Fail inside the tool."""
        raise ValueError("the archive is offline for maintenance")

    @server.tool()
    def quote(text: str) -> str:
        """Return the text it is given, as a remote service might echo untrusted data."""
        return text

    return server


def log(line: str) -> None:
    """Append a line to $MCP_TEST_LOG (when set): what the server did, for the tests to check.

    At start, the process id also goes to $MCP_TEST_PIDS, so a test can check astro stopped it.
    """
    for variable, text in (("MCP_TEST_LOG", line), ("MCP_TEST_PIDS", str(os.getpid()) if line == "started" else "")):
        path = os.environ.get(variable)
        if path and text:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(text + "\n")


def mute() -> None:
    """Read requests and never answer: a server stuck before `initialize`."""
    log("started")
    print("catalogue: warming up the index (this takes forever)", file=sys.stderr, flush=True)
    for _ in sys.stdin:
        pass


class HttpServer:
    """The catalogue over streamable HTTP on 127.0.0.1, in a thread; requests need `Bearer TOKEN`."""

    def __init__(self, token: str = TOKEN) -> None:
        import uvicorn
        from starlette.responses import PlainTextResponse

        self.token = token
        self.seen_headers: list[dict[str, str]] = []
        inner = build_server("catalogue-http").streamable_http_app()

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
                self.seen_headers.append(headers)
                if headers.get("authorization") != f"Bearer {self.token}":
                    await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
                    return
            await inner(scope, receive, send)

        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        config = uvicorn.Config(app, log_level="error", lifespan="on", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()


def stdio_entry(*extra: str) -> dict[str, Any]:
    """The config entry that starts this file's stdio server with the tests' Python."""
    return {"command": sys.executable, "args": [str(SCRIPT), "stdio", *extra]}


if __name__ == "__main__":
    # Run as a script, this file's folder comes first on sys.path, and there tests/mcp/ (the tests of
    # astro_cli/mcp) would stand for the MCP SDK: the SDK is imported from site-packages instead.
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != SCRIPT.parent]
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "mute":
        mute()
    else:
        log("started")
        print("catalogue: ready", file=sys.stderr, flush=True)
        build_server().run()
