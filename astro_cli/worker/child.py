"""One run in a child forked from the worker: become the client's process, then run `astro run`.

Everything the child inherited from the worker is the imported code and nothing else: the server
closes its sockets, lock and log in the child before this module runs. The child declines (and
the client runs the command itself) when it cannot be the process the client would have been.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, NoReturn

from astro_cli.worker import protocol
from astro_cli.worker.process_state import Incompatible, adopt, check_identity

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0
GO_TIMEOUT = 30.0
MAX_REPORT = 60_000  # below a pipe's buffer: the child never blocks on its report


class ChildTask:
    """What the server hands to a freshly forked child: the client's connection and descriptors."""

    def __init__(self, conn: socket.socket, stdio: dict[int, int], cwd_fd: int | None, report_fd: int) -> None:
        self.conn = conn
        self.stdio = stdio
        self.cwd_fd = cwd_fd
        self.report_fd = report_fd
        self.baseline = frozenset(sys.modules)

    def run(self, run_cli: Callable[[str | None], None]) -> NoReturn:
        """Adopt the client's process state, wait for its go, run the command, exit with its status.

        `run_cli(prog_name)`: astro's command line, handed in by the process's entry point
        (worker/__main__.py), so the worker does not import the command line it sits below."""
        try:
            request, notes = self._adopt()
            protocol.send_frame(self.conn, {"ready": os.getpid()})
            self.conn.settimeout(GO_TIMEOUT)
            protocol.recv_frame(self.conn)
            self.conn.settimeout(None)
        except Incompatible as exc:
            self._report_outcome(f"declined\t{exc}")
            self._report_learned()
            try:
                protocol.send_frame(self.conn, {"declined": str(exc)})
            except OSError:
                pass
            os._exit(0)
        except (OSError, protocol.ProtocolError, KeyError, TypeError, ValueError):
            # The client went away or sent nonsense before the run was handed over: nothing ran.
            self._report_outcome("gone\t")
            os._exit(0)
        # From the go on, the run is this process's: it ends as `astro run` would have ended.
        try:
            from astro_cli.debuglog import enable_from_environment

            enable_from_environment(os.environ)
            _log_notes(notes)
            run_cli(_program_name(request))
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except KeyboardInterrupt:
            sys.excepthook(*sys.exc_info())
            self._exit(None, interrupted=True)
        except BaseException:  # noqa: BLE001 - shown as the interpreter would show it, then exit 1
            sys.excepthook(*sys.exc_info())
            code = 1
        else:
            code = 0
        self._exit(code)

    def _adopt(self) -> tuple[dict[str, Any], list[str]]:
        """Read the request and become the client's process, or raise Incompatible."""
        from astro_cli.worker.preload import check_environment

        self.conn.settimeout(REQUEST_TIMEOUT)
        request = protocol.recv_frame(self.conn)
        check_identity(request)
        check_environment(request["env"])
        notes = adopt(request, self.stdio, self.cwd_fd)
        _check_enabled()
        return request, notes

    def _exit(self, code: int | None, interrupted: bool = False) -> NoReturn:
        """End the process as the interpreter would, minus tearing down the worker's modules.

        Threads are joined, atexit handlers run and the streams are flushed, as at a normal exit.
        Then the status goes to the client at once (it exits with it while this process reports to
        the server), and the process ends without finalizing thousands of inherited modules, which
        would touch (and so copy) every page it shares with the worker.
        """
        from astro_cli.process_exit import wind_down

        wind_down()
        for fd in (0, 1, 2):  # whoever reads our output sees its end now
            try:
                os.close(fd)
            except OSError:
                pass
        # The server counts the run; the client gets its status from us at once.
        self._report_outcome("signal\t2" if interrupted else f"exit\t{code}")
        try:
            protocol.send_frame(self.conn, {"signal": 2} if interrupted else {"exit": code})
        except OSError:
            pass
        self._report_learned()
        if interrupted:
            import signal

            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(code if code is not None else 1)

    def _report_outcome(self, line: str) -> None:
        """The first line on the report pipe: how the run ended (or why it was declined)."""
        try:
            os.write(self.report_fd, (line + "\n").encode("utf-8", "replace")[:4096])
        except OSError:
            pass

    def _report_learned(self) -> None:
        """Then which modules this run imported and which models it built (the worker may do it too)."""
        from astro_cli.worker.preload import learnable, models_built_since_fork

        new = learnable(name for name in list(sys.modules) if name not in self.baseline)
        report = "\n".join([*models_built_since_fork(), *new]).encode("utf-8", "replace")[:MAX_REPORT]
        try:
            os.write(self.report_fd, report)
            os.close(self.report_fd)
        except OSError:
            pass


def _exit_code(code: object) -> int:
    """SystemExit's code as the interpreter turns it into a status (a message goes to stderr)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _check_enabled() -> None:
    """`worker.enabled: false` in the user's or the project's config: the run is not the worker's."""
    from astro_cli.config import ConfigError
    from astro_cli.worker.lifecycle import worker_settings

    try:
        enabled, _, source = worker_settings(os.environ)
    except (ConfigError, OSError):
        return  # the command itself reports a broken config, in the same words as in-process
    if not enabled:
        raise Incompatible(f"the worker is turned off ({source})")


def _program_name(request: dict[str, Any]) -> str | None:
    """The name usage messages show, computed as click would have in the client's process."""
    argv = request.get("argv") or []
    try:
        from typer._click.utils import _detect_program_name
    except ImportError:
        return None
    main = ModuleType("__main__")  # the client's __main__ as click looks at it: only its package
    main.__package__ = request.get("main_package")
    return _detect_program_name(str(argv[0]) if argv else "", main)


def _log_notes(notes: list[str]) -> None:
    if notes:
        import logging

        log = logging.getLogger(__name__)
        for note in notes:
            log.debug("%s", note)
