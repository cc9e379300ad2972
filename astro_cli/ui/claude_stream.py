"""Claude Code's stream-json messages, made from astro's events (`astro run --output-format stream-json`).

A script written for `claude -p --output-format stream-json` reads the same shapes here: one
`system` message (subtype `init`: session, model, tools, folder), `assistant` messages whose content
holds `text` and `tool_use` blocks, `user` messages carrying each tool's `tool_result`, and the
`result` message last. A subagent's calls carry `parent_tool_use_id`, the id of the call that
started it. astro's own events (spinner states, retries, progress, citations, ...) are
`--output-format astro-events`.

The collector also keeps the turn's permission denials, which the `json` result lists too.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev

if TYPE_CHECKING:
    from astro_cli.agent.loop import AgentSession

Write = Callable[[dict[str, Any]], None]


def tool_input(arguments: Any) -> dict[str, Any]:
    """A call's arguments as the object Claude Code's `input` is (a JSON string is parsed; what is not
    an object is kept under `raw`)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return {"raw": arguments}
    return arguments if isinstance(arguments, dict) else {"raw": arguments}


class ClaudeStream:
    """Translates the events of one run; `write` is None when nothing is streamed (the `json` format)."""

    def __init__(self, write: Write | None) -> None:
        self.write = write
        self.session_id: str | None = None
        self.model = ""
        self.denials: list[dict[str, Any]] = []
        self._inputs: dict[str, dict[str, Any]] = {}  # tool_use id -> input, for the denials
        self._open: list[str] = []  # the main agent's calls still running (a subagent's parent)
        self._usage: dict[str, int] = {}  # the last request's tokens, for the next assistant message

    def opened(self, session: AgentSession) -> None:
        """The `system` init message, once the session is open and before its turn."""
        from astro_cli import __version__

        self.session_id, self.model = session.session_id, session.model
        policy = session.permissions
        self._send({
            "type": "system", "subtype": "init", "cwd": os.getcwd(), "session_id": session.session_id,
            "model": session.model, "tools": [tool.name for tool in session.visible_tools()],
            "permissionMode": "bypassPermissions" if policy.yes_to_all else "default",
            "astro_version": __version__,
        })

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.UsageReport):
            self._usage = {"input_tokens": event.input_tokens, "output_tokens": event.output_tokens,
                           "cache_read_input_tokens": event.cache_read_input_tokens,
                           "cache_creation_input_tokens": event.cache_creation_input_tokens}
        elif isinstance(event, ev.AssistantMessage):  # the main agent's reply (a subagent's stays inside it)
            self._assistant(event)
        elif isinstance(event, ev.ToolStarted):
            self._inputs[event.call_id] = dict(event.arguments)
            if event.agent == "main":
                self._open.append(event.call_id)
            else:
                block = {"type": "tool_use", "id": event.call_id, "name": event.name, "input": event.arguments}
                self._send(self._assistant_message([block], "tool_use", parent=self._parent()))
        elif isinstance(event, ev.ToolFinished):
            self._finished(event)

    def _assistant(self, event: ev.AssistantMessage) -> None:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": event.text}] if event.text else []
        for call in event.tool_calls:
            function = call.get("function") or {}
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"),
                           "input": tool_input(function.get("arguments"))})
        if blocks:
            self._send(self._assistant_message(blocks, "tool_use" if event.tool_calls else "end_turn"))

    def _finished(self, event: ev.ToolFinished) -> None:
        main = event.agent == "main"
        if main and event.call_id in self._open:
            self._open.remove(event.call_id)
        if (event.data or {}).get("refused"):
            self.denials.append({"tool_name": event.name, "tool_use_id": event.call_id,
                                 "tool_input": self._inputs.get(event.call_id, {})})
        block = {"type": "tool_result", "tool_use_id": event.call_id, "content": event.content,
                 "is_error": not event.ok}
        self._send({"type": "user", "message": {"role": "user", "content": [block]},
                    "parent_tool_use_id": None if main else self._parent(), **self._ids()})

    def _assistant_message(self, blocks: list[dict[str, Any]], stop: str, parent: str | None = None) -> dict[str, Any]:
        message = {"id": f"msg_{uuid.uuid4().hex}", "type": "message", "role": "assistant", "model": self.model,
                   "content": blocks, "stop_reason": stop, "stop_sequence": None,
                   "usage": dict(self._usage) if parent is None else {}}
        return {"type": "assistant", "message": message, "parent_tool_use_id": parent, **self._ids()}

    def _parent(self) -> str | None:
        """The main agent's call a subagent's event belongs to: the one still running (the latest)."""
        return self._open[-1] if self._open else None

    def _ids(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "uuid": str(uuid.uuid4())}

    def _send(self, message: dict[str, Any]) -> None:
        if self.write is not None:
            self.write(message)
