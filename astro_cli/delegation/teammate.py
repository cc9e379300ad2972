"""One teammate's run: an AgentSession that keeps its messages in memory and uses the lead's prompt.

Imported only when a teammate starts, so installing the feature does not load the agent loop.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from astro_cli.agent.caller import TEAMMATE
from astro_cli.agent.events import EventBus
from astro_cli.agent.factory import session_parts
from astro_cli.agent.history_store import MemoryHistory
from astro_cli.agent.loop import AgentSession
from astro_cli.agent.permissions import PermissionPolicy
from astro_cli.delegation.subagent import delegable_tools
from astro_cli.prompt.registry import ORDER_IDENTITY, AssembledPrompt, AssemblyInput, RenderedSection
from astro_cli.prompt.tags import escape_tags

if TYPE_CHECKING:
    from astro_cli.agent.caller import Caller
    from astro_cli.agent.extensions import TurnView
    from astro_cli.app import AppContext

# Tools that keep state per stored session (a plan, a background job, a compaction record): a
# teammate has no stored session, so it does without them rather than fail on them.
SESSION_BOUND_TOOLS = frozenset({"todo_write", "bg_task_run", "compress_context"})


class TeammateSession(AgentSession):
    """An AgentSession whose system prompt is exactly the text the lead wrote (no registry sections)."""

    system_prompt: str = ""

    def assemble(self, question: str = "", turn: TurnView | None = None) -> AssembledPrompt:
        tools = self.visible_tools()
        # The lead model wrote this text (a paper it read may have steered it): astro's tags in it are escaped.
        section = RenderedSection("teammate", ORDER_IDENTITY, escape_tags(self.system_prompt))
        context = []
        if turn is not None:  # a request: the runtime context, unless it is off for this scope
            data = AssemblyInput(scope=self.scope, tools=tools, question=question, states=self.states, turn=turn)
            context = self.parts.prompt.runtime_context(data, self.context_sources(turn))
        return AssembledPrompt(sections=[section], tools=[tool.schema() for tool in tools], variables={},
                               context=context)


def run_teammate(app: AppContext, lead: Caller, name: str, system_prompt: str, task: str, max_steps: int,
                 cancel: threading.Event) -> dict[str, Any]:
    """Run one teammate to its answer and return its result (status, answer, steps, tools, tokens)."""
    mine = lead.permissions
    tools = delegable_tools(app) - SESSION_BOUND_TOOLS
    # No one can be asked from a background thread: a teammate may use what the lead was allowed.
    permissions = PermissionPolicy(
        allow=set(mine.allow) | set(mine.session_allowed), deny=set(mine.deny), yes_to_all=mine.yes_to_all,
        asker=None, only=tools,
    )
    session = TeammateSession(session_parts(app, MemoryHistory()), f"{lead.session_id}:{name}", lead.llm, EventBus(), permissions,
                              extensions=[], scope=f"teammate:{name}", agent=name, only_tools=tools,
                              max_steps=max_steps, role=TEAMMATE,
                              parent_session_id=lead.session_id, cancel=cancel)
    session.system_prompt = system_prompt
    state = session.run_turn(task)
    return {
        "status": state.stop_reason,
        "answer": state.answer.strip(),
        "error": state.error,
        "steps": state.step,
        "tool_calls": dict(Counter(entry["name"] for entry in state.tool_log)),
        "input_tokens": state.usage.input_tokens,
        "output_tokens": state.usage.output_tokens,
    }
