"""One MCP server's connection through the official SDK, inside the manager's event loop.

This is the only module that imports `mcp`; the manager imports it in its own thread when the
first server starts, so astro pays for the SDK (about 0.7 s) only when a server is configured and a
session that calls a model starts. A stdio server gets the environment its configuration gives
(over the SDK's few safe defaults: HOME, PATH, USER...), never astro's own with every key in it;
its stderr goes to a temporary file whose tail explains a failure.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, Implementation

from astro_cli import __version__
from astro_cli.mcp.servers import HTTP
from astro_cli.mcp.state import CallOutcome, RemoteTool, ServerState, stderr_tail
from astro_cli.tools.base import ToolError

MAX_TOOL_PAGES = 50
CLOSED = "the connection closed (the server exited or crashed)"
STDERR_READ_BYTES = 8192
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # the SDK's own defaults: a response stream may stay open


Launch = Callable[[list[str], Path, Mapping[str, str]], list[str]]


async def serve(state: ServerState, startup_timeout: float, workspace: Path, launch: Launch) -> None:
    """Connect, list the tools, then hold the connection until astro stops it or the server goes away.

    `launch` turns a stdio server's command line into the one that starts it (inside the sandbox)."""
    spec = state.spec
    ended, stop = anyio.Event(), anyio.Event()
    state.stop = stop.set
    refused: dict[str, int] = {}  # the last HTTP error status: the SDK's own error does not carry it
    with tempfile.TemporaryFile("w+b", prefix=f"astro-mcp-{spec.name}-") as errlog:
        async with anyio.create_task_group() as group:
            watchdog = anyio.CancelScope()

            async def give_up_when_late() -> None:
                with watchdog:
                    await anyio.sleep(startup_timeout)
                    state.fail(f"it did not finish starting within {startup_timeout:g} s (config 'mcp.startup_timeout')",
                               _tail(errlog))
                    group.cancel_scope.cancel()

            group.start_soon(give_up_when_late)
            try:
                async with AsyncExitStack() as stack:
                    client = await _connect(stack, state, errlog, ended, workspace, refused, launch)
                    tools = await _list_tools(client)
                    watchdog.cancel()
                    info = client.server_info
                    version = f"{info.name} {info.version}".strip() if info is not None else ""
                    if not state.ready(client, tools, version):
                        return
                    await _first_of(stop, ended)
                    if ended.is_set() and not stop.is_set():
                        state.fail(CLOSED, _tail(errlog))
            except Exception as exc:  # noqa: BLE001 - any failure of one server is reported, never raised
                reason = describe_failure(exc, spec.target)
                if refused:
                    status = refused["status"]
                    hint = " (are its headers, its token, right?)" if status in (401, 403) else ""
                    reason = f"{spec.target} answered HTTP {status}{hint}"
                state.fail(reason, _tail(errlog))
            finally:
                watchdog.cancel()


async def call_tool(state: ServerState, tool: str, arguments: dict[str, Any]) -> CallOutcome:
    """Call `tool` on the server; a transport or protocol failure becomes a ToolError sentence."""
    client = state.client
    if client is None:
        raise ToolError(f"the MCP server '{state.name}' is not running ({state.reason or state.status}).")
    try:
        result = await client.call_tool(tool, arguments)
    except Exception as exc:  # noqa: BLE001 - the model reads one sentence, the turn goes on
        reason = describe_failure(exc, state.spec.target)
        if state.spec.transport == HTTP and _connection_lost(exc):  # a stdio server's end is seen by serve()
            state.fail(f"the connection was lost during a call of {tool} ({reason})")
        raise ToolError(f"the MCP server '{state.name}' failed on {tool}: {reason}.") from None
    return CallOutcome(result_text(result), bool(result.is_error))


def result_text(result: Any) -> str:
    """The text of a CallToolResult: text blocks as they are, other content named, structured data as JSON."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind} content ({block.mime_type}, about {size:,} bytes) is not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource {block.name}: {block.uri}]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(text if text is not None else
                         f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'}) is not shown]")
        else:
            parts.append(f"[{kind or 'unknown'} content is not shown]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=1))
    return "\n".join(parts) if parts else "(the tool returned nothing)"


def _leaf(exc: BaseException) -> BaseException:
    while getattr(exc, "exceptions", None):  # an ExceptionGroup: its first error says what happened
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _connection_lost(exc: BaseException) -> bool:
    """The server is gone (not merely unhappy with one call): its tools should leave the session."""
    exc = _leaf(exc)
    return isinstance(exc, (httpx2.ConnectError, httpx2.RemoteProtocolError)) or (
        isinstance(exc, MCPError) and exc.error.code == CONNECTION_CLOSED)


def describe_failure(exc: BaseException, target: str) -> str:
    """One sentence for a failure deep inside the SDK (task groups wrap errors in groups)."""
    exc = _leaf(exc)
    if isinstance(exc, FileNotFoundError):
        return f"could not run `{target}` (no such program)"
    if isinstance(exc, PermissionError):
        return f"could not run `{target}` (permission denied)"
    if isinstance(exc, httpx2.ConnectError):
        return f"could not connect to {target}"
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"{target} answered HTTP {exc.response.status_code}"
    if isinstance(exc, httpx2.TimeoutException):
        return f"{target} did not answer in time"
    if isinstance(exc, MCPError) and exc.error.code == CONNECTION_CLOSED:
        return CLOSED
    if isinstance(exc, MCPError):
        return f"the server answered with an error: {exc}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# --- connecting ---------------------------------------------------------------------------------
async def _connect(stack: AsyncExitStack, state: ServerState, errlog: Any, ended: anyio.Event,
                   workspace: Path, refused: dict[str, int], launch: Launch) -> Client:
    spec = state.spec
    if spec.transport == HTTP:
        async def note_status(response: httpx2.Response) -> None:
            if response.status_code >= 400 and response.request.method == "POST":
                refused["status"] = response.status_code

        http = await stack.enter_async_context(httpx2.AsyncClient(
            headers=spec.headers, timeout=HTTP_TIMEOUT, event_hooks={"response": [note_status]}))
        transport = streamable_http_client(spec.url, http_client=http)
    else:
        cwd = Path(spec.cwd or workspace)
        argv = launch([spec.command, *spec.args], cwd, spec.env)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=spec.env, cwd=str(cwd))
        transport = stdio_client(params, errlog=errlog)
    client = Client(_watched(transport, ended), client_info=Implementation(name="astro", version=__version__))
    return await stack.enter_async_context(client)


async def _list_tools(client: Client) -> list[RemoteTool]:
    tools: list[RemoteTool] = []
    cursor = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += [RemoteTool(t.name, t.description or "", dict(t.input_schema or {}), t.title or "") for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def _first_of(*events: anyio.Event) -> None:
    async with anyio.create_task_group() as group:
        async def wait(event: anyio.Event) -> None:
            await event.wait()
            group.cancel_scope.cancel()

        for event in events:
            group.start_soon(wait, event)


@asynccontextmanager
async def _watched(transport: Any, ended: anyio.Event) -> AsyncIterator[tuple[Any, Any]]:
    """The transport, with its read stream telling `ended` when the server side closes it."""
    async with transport as (read, write):
        yield _EndWatch(read, ended), write


class _EndWatch:
    """A read stream that sets an event at its end: a stdio server that exits ends its stdout."""

    def __init__(self, inner: Any, ended: anyio.Event) -> None:
        self._inner = inner
        self._ended = ended

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended.set()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _EndWatch:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:  # `last_context`, which the SDK reads when present
        return getattr(self._inner, name)


def _tail(errlog: Any) -> str:
    try:
        size = os.fstat(errlog.fileno()).st_size
        data = os.pread(errlog.fileno(), STDERR_READ_BYTES, max(0, size - STDERR_READ_BYTES))
    except (OSError, ValueError):
        return ""
    return stderr_tail(data.decode("utf-8", errors="replace"))

