"""A delegated run's system prompt in the registry: its instructions, in an isolated scope.

The run's scope ('agent:NAME#<session>', 'subagent#<session>', 'skill:NAME#<session>') reads the
sections registered for it and for its agent, and of the main prompt only those its definition
inherits (`inherit: [skills, memory]`, PromptRegistry.isolate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from astro_cli.prompt.layers import Dispose
from astro_cli.prompt.registry import ORDER_IDENTITY

if TYPE_CHECKING:
    from astro_cli.app import AppContext

PROMPT_SECTION = "subagent"
PROMPT_VARIABLE = "delegated_instructions"


def register_prompt(app: AppContext, scope: str, instructions: str, inherit: Sequence[str] = (),
                    notes: list[str] | None = None) -> Dispose:
    """The run's system prompt: its instructions first, then what is registered for the agent
    ('agent:NAME') and the main prompt's sections named in `inherit`; no other global section.

    The text goes through a scoped variable because variable values are never re-scanned: a
    '{{' in a definition or a skill body reaches the model as written instead of failing. The
    returned function removes all of it, so runs leave the registry as it was. An inherited name
    the main prompt does not have is a note for the activity log: a typo must not pass silently.
    """
    main_sections = {section.name for section in app.prompt.effective_sections()}
    unknown = [name for name in inherit if name not in main_sections]
    if unknown and notes is not None:
        notes.append(f"inherit: the main prompt has no section {', '.join(map(repr, unknown))} (its sections: "
                     f"{', '.join(sorted(main_sections))})")
    undo = [
        app.prompt.add(PROMPT_SECTION, ORDER_IDENTITY, text="{{" + PROMPT_VARIABLE + "}}", scope=scope, replace=True),
        app.prompt.register_variable(PROMPT_VARIABLE, lambda: instructions, scope=scope, replace=True),
        app.prompt.isolate(scope, inherit),
    ]

    def unregister() -> None:
        for dispose in reversed(undo):
            dispose()

    return unregister
