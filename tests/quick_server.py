"""An HTTP server for the tests' fake services that stops at once.

`socketserver`'s `serve_forever()` looks for a shutdown request only between polls (every 0.5 s
by default), so every test that closed a fake server sat up to half a second in its teardown
(~300 tests). Here the serving loop waits on the listening socket and on a wake-up socket pair:
`shutdown()` writes one byte and the loop ends within microseconds; no timer, no polling.
"""

from __future__ import annotations

import selectors
import socket
import sys
import threading
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuickHTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer on 127.0.0.1 serving in a daemon thread from construction on.

    `shutdown()` and `server_close()` keep `socketserver`'s meaning (stop serving; release the
    port), so code written for the standard server works unchanged.
    """

    daemon_threads = True
    request_queue_size = 64  # a burst of concurrent clients is not refused (the default is 5)

    def __init__(self, handler: Any, address: tuple[str, int] = ("127.0.0.1", 0)) -> None:
        super().__init__(address, handler)
        self._wake_read, self._wake_write = socket.socketpair()
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, name=f"quick-server-{self.server_address[1]}",
                                       daemon=True)
        self.thread.start()

    @classmethod
    def routing(cls, handle: Callable[[BaseHTTPRequestHandler, str], None]) -> QuickHTTPServer:
        """A server whose every GET, POST and DELETE goes to `handle(request, method)` (HTTP/1.1, no log)."""

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                handle(self, "GET")

            def do_POST(self) -> None:  # noqa: N802
                handle(self, "POST")

            def do_DELETE(self) -> None:  # noqa: N802
                handle(self, "DELETE")

        return cls(Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def _serve(self) -> None:
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self, selectors.EVENT_READ)
                selector.register(self._wake_read, selectors.EVENT_READ)
                while not self._stop.is_set():
                    for key, _events in selector.select():
                        if key.fileobj is self and not self._stop.is_set():
                            self._handle_request_noblock()
                    self.service_actions()
        finally:
            self._stopped.set()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up is no error for a fake server (a test's astro was killed, or its test
        ended while a reply was held); anything else goes to the real stderr, never to a later test's
        captured output (socketserver prints to sys.stderr, which CliRunner may have replaced)."""
        error = sys.exc_info()[1]
        if isinstance(error, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        print(f"fake server on port {self.port}: error in a request from {client_address}", file=sys.__stderr__)
        traceback.print_exc(file=sys.__stderr__)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Serving already runs in this server's own thread; wait until it stops."""
        self._stopped.wait()

    def shutdown(self) -> None:
        """Stop serving now (the serving thread ends before this returns)."""
        self._stop.set()
        try:
            self._wake_write.send(b"x")
        except OSError:
            pass
        if threading.current_thread() is not self.thread:
            self._stopped.wait(30)

    def server_close(self) -> None:
        self.shutdown()
        super().server_close()
        for end in (self._wake_read, self._wake_write):
            end.close()


def send(handler: BaseHTTPRequestHandler, status: int, payload: bytes, ctype: str) -> None:
    """One whole answer; a client that already hung up (a killed astro) is no error."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass
