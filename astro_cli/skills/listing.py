"""The tier-1 skill listing: which skills the model sees, in which form, within the budget.

Every eligible skill keeps at least its name: over the budget, descriptions are cut to their first
sentence, then to nothing, starting with the last in the listing order (least used; on equal use
bundled before user before project); a skill is dropped only when the names alone do not fit.
A SKILL.md from elsewhere can never close the reminder: every line is escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from astro_cli.prompt.tags import escape_tags
from astro_cli.skills.skill import Skill, first_sentence

MAX_ENTRY_CHARS = 500  # one skill's listing line; longer descriptions end with "…"
HEADER = "The following skills are available for use with the load_skill tool:"
FOOTER = (
    "When a skill matches the user's request, call load_skill BEFORE generating any other response "
    "about the task.\n"
    "If you see a <command-name> tag in the current conversation turn, the skill has ALREADY been loaded - "
    "follow its instructions directly instead of calling load_skill again."
)
HIDDEN_BUDGET = "over the skills.budget_chars budget even as names alone (least used are cut first)"
# Listing forms, from the whole entry down to the name: the budget shortens descriptions before it drops a skill.
FULL, FIRST_SENTENCE, NAME_ONLY = "full", "first sentence", "name only"
SHORTENED = {
    FIRST_SENTENCE: "description shortened to its first sentence to fit skills.budget_chars",
    NAME_ONLY: "listed by name only to fit skills.budget_chars",
}
FORK_NOTE = "fork: runs in a subagent; inline when loaded inside one"


@dataclass(frozen=True)
class Entry:
    """A skill's place in the listing: listed, or hidden with the reason."""

    skill: Skill
    score: float
    listed: bool
    reason: str = ""
    form: str = FULL  # how it is listed: full, first sentence, name only


def listing_entries(ranked: list[Skill], score: Callable[[str], float], active: set[str],
                    budget: int) -> list[Entry]:
    """Every skill of `ranked` (listing order), listed (and in which form) or hidden with the reason."""
    reasons = {skill.name: _hidden_reason(skill, active) for skill in ranked}
    eligible = [skill for skill in ranked if reasons[skill.name] is None]
    forms, dropped = _fit(eligible, budget)
    entries: list[Entry] = []
    for skill in ranked:
        reason = reasons[skill.name] or (HIDDEN_BUDGET if skill.name in dropped else None)
        entries.append(Entry(skill, score(skill.name), reason is None, reason or "", forms.get(skill.name, FULL)))
    return entries


def reminder_text(entries: list[Entry]) -> str | None:
    """The <system-reminder> block of the listed entries; None when no skill is listed."""
    lines = [_entry_line(e.skill, e.form) for e in entries if e.listed]
    if not lines:
        return None
    return f"<system-reminder>\n{HEADER}\n" + "\n".join(lines) + f"\n{FOOTER}\n</system-reminder>"


def _entry_line(skill: Skill, form: str = FULL) -> str:
    """The skill's listing line in `form`; a SKILL.md from elsewhere can never close the reminder."""
    if form == NAME_ONLY:
        return escape_tags(f"- {skill.name}")
    line = escape_tags(skill.entry() if form == FULL else f"- {skill.name}: {first_sentence(skill.description)}")
    return line if len(line) <= MAX_ENTRY_CHARS else line[: MAX_ENTRY_CHARS - 1].rstrip() + "…"


def _fit(listed: list[Skill], budget: int) -> tuple[dict[str, str], set[str]]:
    """The form of each skill so the listing fits `budget` characters, and the skills left out."""
    forms = {skill.name: FULL for skill in listed}
    cost = {skill.name: len(_entry_line(skill)) + 1 for skill in listed}
    total = sum(cost.values())
    giving_first = list(reversed(listed))
    for form in (FIRST_SENTENCE, NAME_ONLY):
        for skill in giving_first:
            if total <= budget:
                return forms, set()
            shorter = len(_entry_line(skill, form)) + 1
            if shorter < cost[skill.name]:
                total += shorter - cost[skill.name]
                cost[skill.name], forms[skill.name] = shorter, form
    dropped: set[str] = set()
    for skill in giving_first:
        if total <= budget:
            break
        total -= cost[skill.name]
        dropped.add(skill.name)
    return forms, dropped


def _hidden_reason(skill: Skill, active: set[str]) -> str | None:
    if not skill.user_invocable:
        return "user-invocable is false (the model loads it only when told its name)"
    if skill.disable_model_invocation:
        return f"disable-model-invocation is true (only the user loads it, with /{skill.name})"
    if skill.conditional and skill.name not in active:
        return f"waiting for a file matching paths: {', '.join(skill.paths)}"
    return None
