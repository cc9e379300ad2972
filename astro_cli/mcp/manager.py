"""The app's MCP servers: started once in the background, their tools kept in the registry, stopped at exit.

The agent loop is synchronous and the MCP SDK is async (anyio), so the manager owns one daemon thread
with an event loop and an anyio BlockingPortal: each server's connection is a task that lives there
for the whole process, and a tool call from the loop's worker thread is a task sent through the
portal. `start()` returns at once (the REPL's prompt does not wait); the first model request waits
for servers still starting (`wait_started`), which each give up after `mcp.startup_timeout`. A
server that fails to start, times out or dies leaves one notice (`take_notices`) with its stderr
tail, and its tools leave the registry at the next request (`sync_tools`); the session goes on.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.mcp.servers import McpConfig, load_config
from astro_cli.mcp.state import READY, STARTING, CallOutcome, ServerState
from astro_cli.mcp.tools import build_tools
from astro_cli.tools.base import Tool, ToolError
from astro_cli.tools.context import ToolContext

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

CLOSE_GRACE = 5.0  # seconds the servers get to stop at exit before their tasks are cancelled
POLL = 0.1


def mcp_manager(app: AppContext) -> McpManager:
    """The app's one manager (built on first use; building it reads the configuration, nothing more)."""
    return app.service(McpManager, lambda: McpManager(app))


class McpManager:
    def __init__(self, app: AppContext, config: McpConfig | None = None) -> None:
        self.app = app
        self.config = config or load_config(app)
        settings = app.settings
        self.startup_timeout = float(settings.typed["mcp.startup_timeout"])
        self.tool_timeout = float(settings.typed["mcp.tool_timeout"])
        self.max_output_chars = int(settings.typed["mcp.max_output_chars"])
        self._lock = threading.Condition()
        self._notices: list[str] = list(self.config.problems)
        self.servers = [ServerState(spec, self._lock, self._notify) for spec in self.config.servers]
        for state in self.servers:
            for name, value in state.spec.secrets.items():
                app.redactor.add(name, value)  # a token from ${VAR} is never shown, stored or sent
            if state.spec.problem:
                self._notify(f"MCP server '{state.name}' ({state.spec.where}) is not started: {state.spec.problem}.")
        self._thread: threading.Thread | None = None
        self._portal: Any = None
        self._group: Any = None
        self._portal_ready = threading.Event()
        self._registered: dict[str, Tool] = {}
        self._sync_lock = threading.Lock()
        self._built: dict[tuple[str, int], list[Tool]] = {}
        self._closed = False

    # --- reading ------------------------------------------------------------------------------
    def active(self, name: str) -> ServerState | None:
        """The server of that name that runs (or would run): a skipped one of the same name is not."""
        startable = [s for s in self.servers if s.name == name and s.spec.startable]
        return startable[-1] if startable else None

    @property
    def startable(self) -> list[ServerState]:
        return [state for state in self.servers if state.spec.startable]

    def take_notices(self) -> list[str]:
        """What went wrong since the last call, each reported once, with known secrets redacted."""
        with self._lock:
            notices, self._notices = self._notices, []
        return [self.app.redactor.redact(text) for text in notices]

    def _notify(self, text: str) -> None:
        with self._lock:
            self._notices.append(text)

    # --- starting and stopping ----------------------------------------------------------------
    def start(self) -> None:
        """Start every startable server in the background (once per process); returns at once."""
        with self._lock:
            if self._thread is not None or self._closed or not self.startable:
                return
            for state in self.startable:
                state.begin()
            self._thread = threading.Thread(target=self._run, name="astro-mcp", daemon=True)
        self.app.on_close(self.close)
        self._thread.start()

    def wait_started(self, timeout: float | None = None) -> None:
        """Wait until no server is still starting (each gives up by itself after mcp.startup_timeout)."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.startup_timeout + 30.0)
        with self._lock:
            while any(state.status == STARTING for state in self.servers):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._lock.wait(min(remaining, 1.0))

    def restart(self, name: str) -> None:
        """Stop the server of that name (if it runs) and start it again."""
        state = self.active(name)
        if state is None:
            raise ToolError(f"no MCP server '{name}' can be started here")
        if self._thread is None:
            self.start()
            return
        self._stop_servers([state])
        state.begin()

        def spawn() -> None:  # returns nothing: anyio's task handle is awaitable, and the portal would wait on it
            self._group.start_soon(self._serve, state)

        self._in_loop(spawn)

    def close(self) -> None:
        """Stop the servers (stdin closed, then terminated if they linger) and the event loop; bounded."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._thread is None:
            return
        self._portal_ready.wait(CLOSE_GRACE)
        self._stop_servers(self.servers)
        if self._portal is not None:
            try:
                self._in_loop(self._portal.stop, True)
            except RuntimeError:
                pass  # the loop has already ended
        self._thread.join(CLOSE_GRACE)

    def _stop_servers(self, states: list[ServerState]) -> None:
        for state in states:
            if state.stop is not None:
                try:
                    self._in_loop(state.stop)
                except (RuntimeError, ToolError):
                    log.debug("MCP server %s did not stop cleanly", state.spec.name, exc_info=True)
        deadline = time.monotonic() + CLOSE_GRACE
        for state in states:
            state.finished.wait(max(0.0, deadline - time.monotonic()))

    def _run(self) -> None:
        import anyio

        try:
            anyio.run(self._main)
        except BaseException as exc:  # noqa: BLE001 - the loop must not die silently: every server says why
            for state in self.servers:
                state.fail(f"astro's MCP event loop stopped ({type(exc).__name__}: {exc})")
                state.end()
        finally:
            self._portal_ready.set()

    async def _main(self) -> None:
        import anyio
        from anyio.from_thread import BlockingPortal

        async with BlockingPortal() as portal, anyio.create_task_group() as group:
            self._portal, self._group = portal, group
            for state in self.startable:
                group.start_soon(self._serve, state)
            self._portal_ready.set()
            await portal.sleep_until_stopped()
            group.cancel_scope.cancel()

    async def _serve(self, state: ServerState) -> None:
        try:
            from astro_cli.mcp.connection import serve

            await serve(state, self.startup_timeout, self.app.workspace.root, self._launch)
        except ImportError as exc:
            state.fail(f"the MCP SDK cannot be imported ({exc}); reinstall astro")
        except Exception as exc:  # noqa: BLE001 - one server's failure never reaches the others
            state.fail(f"{type(exc).__name__}: {exc}")
        finally:
            state.end()

    def _launch(self, argv: list[str], cwd: Path, env: Mapping[str, str]) -> list[str]:
        """A stdio server starts in the same sandbox as every command, seeing also the folders its
        command line names (`python ~/servers/x.py`: ~/servers, read-only)."""
        from astro_cli.security.sandbox import sandbox, server_folders

        fence = sandbox(self.app)
        said = fence.tell_once()
        if said:
            self._notify(said)
        return fence.wrap(argv, cwd, env, server_folders(argv))

    def _in_loop(self, function: Any, *args: Any) -> Any:
        if self._portal is None:
            raise ToolError("the MCP servers are not running")
        return self._portal.call(function, *args)

    # --- tools --------------------------------------------------------------------------------
    def sync_tools(self, registry: ToolRegistry) -> None:
        """Register the tools of servers that are ready (less those `permissions.deny` names), unregister
        those of servers that are not.

        Tool objects are built once per connection, so an unchanged set leaves the registry (and the
        prompt cache that depends on it) untouched.
        """
        with self._sync_lock:  # subagents in background threads sync too
            self._sync_tools(registry)

    def _sync_tools(self, registry: ToolRegistry) -> None:
        from astro_cli.agent.permissions import matches

        wanted: dict[str, Tool] = {}
        deny = self.app.settings.typed["permissions.deny"] or []
        with self._lock:
            ready = [(state, state.generation, list(state.tools)) for state in self.servers if state.status == READY]
        for state, generation, remote in ready:
            key = (state.name, generation)
            if key not in self._built:
                tools, problems = build_tools(state.name, remote, self.call, self.tool_timeout, self.max_output_chars)
                self._built[key] = tools
                for problem in problems:
                    self._notify(problem)
            for tool in self._built[key]:
                if matches(tool.name, deny):
                    continue  # never offered: a denied tool would only cost tokens in every request
                if tool.name in wanted:
                    self._notify(f"MCP tool {tool.name} is offered by two servers; the one of '{state.name}' "
                                 "is left out.")
                    continue
                wanted[tool.name] = tool
        for name in [name for name in self._registered if name not in wanted]:
            registry.unregister(name)
            del self._registered[name]
        for name, tool in wanted.items():
            if self._registered.get(name) is not tool:
                registry.register(tool)
                self._registered[name] = tool

    def call(self, server: str, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> CallOutcome:
        """Call a server's tool from the agent loop's worker thread; Ctrl-C and the timeout cancel it."""
        state = self.active(server)
        if state is None or state.status != READY:
            why = state.reason if state is not None and state.reason else "it is not running"
            raise ToolError(f"the MCP server '{server}' cannot be used: {why}.")
        from astro_cli.mcp.connection import call_tool

        try:
            future = self._portal.start_task_soon(call_tool, state, tool, arguments)
        except RuntimeError:
            raise ToolError(f"the MCP server '{server}' has been stopped.") from None
        deadline = time.monotonic() + self.tool_timeout
        while True:
            try:
                outcome: CallOutcome = future.result(timeout=POLL)
                return outcome
            except concurrent.futures.TimeoutError:
                pass
            except concurrent.futures.CancelledError:
                raise ToolError(f"the call to {tool} on the MCP server '{server}' was cancelled.") from None
            if ctx.cancel.is_set():
                future.cancel()
                raise ToolError(f"the call to {tool} on the MCP server '{server}' was cancelled.")
            if time.monotonic() > deadline:
                future.cancel()
                raise ToolError(f"the MCP server '{server}' did not answer {tool} within {self.tool_timeout:g} s; "
                                "the call was cancelled (config 'mcp.tool_timeout').")
