"""`astro run --output-format stream-json` in Claude Code's shapes, so scripts written for `claude -p` work.

Claude Code streams messages, not events: one `system`/`init` (session, model, tools), then each
`assistant` message (its text and `tool_use` blocks), each `user` message carrying a `tool_result`,
and the `result` object last. astro's own, richer events (text deltas, tool timings, citations,
compaction) are printed instead with `--astro-events`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from astro_cli.agent import events as ev


@dataclass
class ClaudeStream:
    """Turns astro's events into Claude Code's stream-json messages (a list per event: often none)."""

    session_id: str | None = None
    model: str = ""
    _count: int = 0
    denials: list[dict[str, Any]] = field(default_factory=list)  # the result's permission_denials
    _inputs: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> (name, arguments)

    def init(self, session_id: str, model: str, tools: list[str], cwd: str, permission_mode: str) -> dict[str, Any]:
        """The first message: what the run works with."""
        self.session_id, self.model = session_id, model
        return {"type": "system", "subtype": "init", "cwd": cwd, "session_id": session_id, "tools": tools,
                "mcp_servers": [], "model": model, "permissionMode": permission_mode}

    def handle(self, event: ev.Event) -> list[dict[str, Any]]:
        if isinstance(event, ev.ToolStarted):
            self._inputs[event.call_id] = {"tool_name": event.name, "tool_use_id": event.call_id,
                                           "tool_input": event.arguments}
            return []
        if isinstance(event, ev.AssistantMessage):
            return [self._assistant(event)]
        if isinstance(event, ev.ToolFinished):
            if (event.data or {}).get("refused") and event.call_id in self._inputs:
                self.denials.append(self._inputs[event.call_id])
            if event.agent != "main":
                return []
            return [{"type": "user", "message": {"role": "user", "content": [
                {"tool_use_id": event.call_id, "type": "tool_result", "content": event.content,
                 "is_error": not event.ok}]}, "parent_tool_use_id": None, "session_id": self.session_id}]
        return []

    def _assistant(self, event: ev.AssistantMessage) -> dict[str, Any]:
        self._count += 1
        content: list[dict[str, Any]] = [{"type": "text", "text": event.text}] if event.text else []
        for call in event.tool_calls:
            function = call.get("function") or {}
            raw = function.get("arguments") or "{}"
            try:
                arguments = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                arguments = {"raw": raw}
            content.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"),
                            "input": arguments})
        return {"type": "assistant", "message": {
            "id": f"msg_{self._count:04d}", "type": "message", "role": "assistant", "model": self.model,
            "content": content, "stop_reason": "tool_use" if event.tool_calls else "end_turn",
            "stop_sequence": None}, "parent_tool_use_id": None, "session_id": self.session_id}
