"""One teammate's run: an AgentSession that keeps its messages in memory and uses the lead's prompt.

Imported only when a teammate starts, so installing the feature does not load the agent loop.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from astro_cli.agent.events import EventBus
from astro_cli.agent.loop import AgentSession
from astro_cli.agent.permissions import PermissionPolicy
from astro_cli.delegation.subagent import delegable_tools
from astro_cli.prompt.registry import ORDER_IDENTITY, AssembledPrompt, RenderedSection

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.delegation.team import Teammate

# Tools that keep state per stored session (a plan, a background job, a compaction record): a
# teammate has no stored session, so it does without them rather than fail on them.
SESSION_BOUND_TOOLS = frozenset({"todo_write", "bg_task_run", "compress_context"})


class MemorySessions:
    """The parts of SessionStore a teammate's AgentSession uses, kept in memory (003: no DB persistence)."""

    def __init__(self) -> None:
        self.stored: list[dict[str, Any]] = []
        self.usage: list[dict[str, Any]] = []

    def last_turn(self, session_id: str) -> int:
        return 0

    def messages(self, session_id: str) -> list[Any]:
        return []

    def append(self, session_id: str, message: dict[str, Any], kind: str = "message", turn: int = 0,
               meta: dict[str, Any] | None = None) -> int:
        self.stored.append({"message": message, "kind": kind, "turn": turn, "meta": meta})
        return len(self.stored)

    def touch(self, session_id: str, title: str | None = None, model: str | None = None) -> None:
        pass

    def set_kind(self, session_id: str, seq: int, kind: str) -> None:
        if 0 < seq <= len(self.stored):
            self.stored[seq - 1]["kind"] = kind

    def record_usage(self, session_id: str, turn: int, model: str, usage: dict[str, Any], purpose: str = "step") -> None:
        self.usage.append(dict(usage))


class TeammateApp:
    """The AppContext as a teammate sees it: everything shared, except that its messages stay in memory."""

    def __init__(self, app: AppContext) -> None:
        self._app = app
        self.sessions = MemorySessions()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)


class TeammateSession(AgentSession):
    """An AgentSession whose system prompt is exactly the text the lead wrote (no registry sections)."""

    system_prompt: str = ""

    def assemble(self, question: str = "") -> AssembledPrompt:
        tools = self.visible_tools()
        section = RenderedSection("teammate", ORDER_IDENTITY, self.system_prompt)
        return AssembledPrompt(sections=[section], tools=[tool.schema() for tool in tools], variables={})



def run_teammate(app: AppContext, lead: AgentSession, mate: Teammate) -> dict[str, Any]:
    """Run `mate` to its answer and return the inbox fields (status, answer, steps, tools, tokens)."""
    mine = lead.permissions
    tools = delegable_tools(app) - SESSION_BOUND_TOOLS
    # No one can be asked from a background thread: a teammate may use what the lead was allowed.
    permissions = PermissionPolicy(
        allow=set(mine.allow) | set(mine.session_allowed), deny=set(mine.deny), yes_to_all=mine.yes_to_all,
        asker=None, only=tools,
    )
    view: Any = TeammateApp(app)
    session = TeammateSession(view, f"{lead.session_id}:{mate.name}", lead.llm, EventBus(), permissions,
                              extensions=[], scope=f"teammate:{mate.name}", agent=mate.name,
                              only_tools=tools, max_steps=mate.max_steps)
    session.system_prompt = mate.system_prompt
    session.extras["delegation_role"] = "teammate"
    session.cancel = mate.cancel
    state = session.run_turn(mate.task)
    return {
        "status": state.stop_reason,
        "answer": state.answer.strip(),
        "error": state.error,
        "steps": state.step,
        "tool_calls": dict(Counter(entry["name"] for entry in state.tool_log)),
        "input_tokens": state.usage["input_tokens"],
        "output_tokens": state.usage["output_tokens"],
    }
