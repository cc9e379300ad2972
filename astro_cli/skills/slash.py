"""REPL commands: `/skills` lists the skills, `/NAME args` loads a user-invocable skill into the next turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.security.visible import markup_safe, visible
from astro_cli.skills.approval import SkillBaseline, pre_approval, refusal_note
from astro_cli.skills.listing import FORK_NOTE, SHORTENED
from astro_cli.skills.loading import record_use, wrap
from astro_cli.skills.registry import get_registry
from astro_cli.skills.skill import first_sentence
from astro_cli.skills.state import SkillsState
from astro_cli.slash import SlashCommand, slash_commands

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.slash import SlashContext


def skill_fallback(ctx: SlashContext, name: str, args: str) -> bool:
    """`/NAME args`: queue the skill's body (in <command-name>) as the next turn; False if no such skill."""
    registry = get_registry(ctx.app)
    registry.ensure_loaded()
    skill = registry.get(name)
    if skill is None:
        return False
    if not skill.user_invocable:
        ctx.console.print(
            visible(f"/{name}: this skill is not user-invocable (user-invocable: false); the model loads it."),
            markup=False,
        )
        return True
    body = skill.render(args)
    ctx.queue_prompt(wrap(skill, body), shown=f"/{name} {args}".rstrip())
    session = ctx.session
    record_use(ctx.app, name, session.session_id if session else None, "user")
    if session is not None:
        session.state(SkillsState).loaded[name] = body
        if skill.allowed_tools:  # cleared when the queued turn ends
            refused = pre_approval(ctx.app, skill, ctx.app.services.find(SkillBaseline), by_user=True)
            if refused is None:
                session.permissions.pre_approve_for_turn(list(skill.allowed_tools))
            else:
                ctx.console.print(visible(refusal_note(skill, refused)), style="yellow", markup=False)
    return True


def list_skills(ctx: SlashContext, args: str) -> None:
    from rich.table import Table

    registry = get_registry(ctx.app)
    registry.ensure_loaded()
    active = ctx.session.state(SkillsState).active if ctx.session is not None else set()
    entries = registry.entries(active)
    if not entries:
        ctx.console.print("No skills yet: `astro skills new NAME` writes one in skills/NAME/SKILL.md.")
        return
    table = Table(title_justify="left", show_edge=False)
    for column in ("skill", "layer", "score", "status"):
        table.add_column(column, no_wrap=column != "status")
    for entry in entries:
        skill = entry.skill
        status = "listed" if entry.listed else f"hidden: {entry.reason}"
        if entry.listed and entry.form in SHORTENED:
            status += f" ({SHORTENED[entry.form]})"
        if skill.context == "fork":
            status += f" ({FORK_NOTE})"
        hint = f" {skill.argument_hint}" if skill.argument_hint and skill.user_invocable else ""
        table.add_row(markup_safe(f"/{skill.name}{hint}"), skill.layer, f"{entry.score:.2f}", markup_safe(status))
    ctx.console.print(table)
    ctx.console.print(
        "Type /NAME [arguments] to load a skill into your next message.", style="dim", markup=False
    )


def skill_names(app: AppContext) -> dict[str, str]:
    """`/NAME` completions: the skills a person may load, with the first sentence of each description."""
    registry = get_registry(app)
    registry.ensure_loaded()
    return {skill.name: first_sentence(skill.description) for skill in registry.all() if skill.user_invocable}


def install_slash(app: AppContext) -> None:
    slash_commands(app).register(SlashCommand("skills", "list the skills (type /NAME to load one)", list_skills))
    slash_commands(app).add_names(lambda: skill_names(app))
    slash_commands(app).add_fallback(skill_fallback)
