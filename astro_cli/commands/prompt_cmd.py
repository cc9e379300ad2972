"""`astro prompt show`: exactly what the model sees, section by section, with token counts. No model call."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

import typer

from astro_cli.bootstrap import UserError, build_app, print_warnings, user_errors
from astro_cli.commands.defaults import command_group

if TYPE_CHECKING:
    from astro_cli.app import AppContext

app = command_group("show")  # `astro prompt` alone shows it


def _server_context(ctx: AppContext, model: str) -> int | None:
    """The context window a local server reports, as a session would ask it (the auto profile)."""
    import os

    from astro_cli.agent.factory import default_api_base, local_servers_cache
    from astro_cli.agent.local_models import server_facts

    if ctx.settings.typed["profile"] != "auto":
        return None
    api_base = ctx.settings.typed["api_base"] or default_api_base(model, ctx.settings, os.environ)
    return server_facts(model, api_base, local_servers_cache(ctx)).context


def prompt_report(ctx: AppContext, question: str = "", exact: bool = False) -> dict[str, Any]:
    """The assembled system prompt, tool schemas and environment message with their token counts."""
    from astro_cli.agent.model_choice import model_choice
    from astro_cli.agent.profiles import profile_tools, resolve_profile
    from astro_cli.agent.tokens import TokenCounter
    from astro_cli.prompt.context import ContextSource
    from astro_cli.prompt.environment import ORDER_SESSION, SESSION_SOURCE, environment_text, session_facts
    from astro_cli.usage import Usage

    ctx.install_features()
    choice = model_choice(ctx)
    model = choice.model if choice is not None else "(not configured)"
    if exact and choice is not None:
        from astro_cli.agent.open_model import load_adapter

        load_adapter()
    counter = TokenCounter(choice.model if choice is not None else None)
    profile = resolve_profile(ctx.settings.typed["profile"], choice.model if choice is not None else None,
                              _server_context(ctx, choice.model) if choice is not None else None)
    tools = profile_tools(ctx.tools.ordered(ctx.settings.typed["tool_order"]), profile,
                          ctx.settings.typed["small_profile.tools"])
    # The session's own facts as a new session's first step would have them, plus every registered source.
    first_step = ContextSource(SESSION_SOURCE, ORDER_SESSION, lambda data: session_facts(
        str(ctx.workspace.root), model, 0, ctx.settings.typed["max_steps"], Usage()))
    assembled = ctx.prompt.assemble(tools, question=question, context=[first_step], profile=profile)
    sections = [
        {"name": s.name, "order": s.order, "tokens": counter.text(s.text), "text": s.text} for s in assembled.sections
    ]
    tool_rows = [{"name": t["function"]["name"], "tokens": counter.text(json.dumps(t))} for t in assembled.tools]
    environment = environment_text(assembled.context)
    environment_tokens = counter.text(environment) if environment else 0
    memory = _memory_block(ctx, question)
    system_tokens = counter.text(assembled.system)
    memory_tokens = counter.text(memory) if memory else 0
    total = system_tokens + sum(t["tokens"] for t in tool_rows) + environment_tokens + memory_tokens
    return {
        "model": model,
        "profile": profile,
        "model_origin": choice.origin if choice is not None else "nothing sets a model and no provider key was found",
        "sections": sections,
        "system_tokens": system_tokens,
        "tools": tool_rows,
        "memory_context": memory,
        "memory_context_tokens": memory_tokens,
        "environment": environment,
        "environment_tokens": environment_tokens,
        "runtime_context": [{"source": e.source, "order": e.order, "facts": e.facts} for e in assembled.context],
        "variables": assembled.variables,
        "total_tokens": total,
        "counter": counter.text_method,
    }


def _memory_block(ctx: AppContext, question: str) -> str | None:
    """The project-memory block that would be stored with `question` (none when memory is off)."""
    if not ctx.prompt.includes("memory"):
        return None
    from astro_cli.memory.feature import memory_service

    return memory_service(ctx).context_block(question)


@app.command("show")
def show(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    section: Optional[str] = typer.Option(None, "--section", "-s", help="Show only this section."),
    question: str = typer.Option("", "--question", "-q", help="Assemble as if this were the user's question."),
    exact: bool = typer.Option(False, "--exact", help="Count with litellm's model-aware counter (imports litellm)."),
    profile: Optional[str] = typer.Option(None, "--profile", help="default, small or auto (config 'profile')."),
) -> None:
    """Show the assembled system prompt, the tool schemas and the environment message."""
    with user_errors():
        ctx = build_app({"profile": profile})
        try:
            report = prompt_report(ctx, question=question, exact=exact)
        finally:
            ctx.close()
        names = [s["name"] for s in report["sections"]]
        if section is not None:
            if section not in names:
                raise UserError(f"No section '{section}' in the assembled prompt; sections: {', '.join(names)}.")
            report["sections"] = [s for s in report["sections"] if s["name"] == section]
        if as_json:
            typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
            return
        print_warnings(ctx)
        _print(report, only_section=section is not None)


def _print(report: dict[str, Any], only_section: bool) -> None:
    from rich.console import Console
    from rich.rule import Rule

    console = Console(highlight=False)
    for s in report["sections"]:
        console.print(Rule(f"{s['name']} · order {s['order']} · {s['tokens']} tokens", align="left", style="cyan"))
        console.print(s["text"], markup=False)
    if only_section:
        return
    tools_total = sum(t["tokens"] for t in report["tools"])
    console.print(Rule(f"tools in the request · {len(report['tools'])} schemas · {tools_total} tokens", align="left", style="cyan"))
    for t in report["tools"]:
        console.print(f"  {t['name']:<22} {t['tokens']:>6} tokens", markup=False)
    if report["memory_context"]:
        console.print(Rule(f"project memory, stored with your message · {report['memory_context_tokens']} tokens",
                           align="left", style="cyan"))
        console.print(report["memory_context"], markup=False)
    if report["environment"] is None:
        console.print(Rule("no environment message: the runtime context is off (config "
                           "'prompt.include_runtime_context')", align="left", style="cyan"))
    else:
        sources = ", ".join(entry["source"] for entry in report["runtime_context"])
        console.print(Rule(f"environment message (last, not stored) · from {sources} · "
                           f"{report['environment_tokens']} tokens", align="left", style="cyan"))
        console.print(report["environment"], markup=False)
    console.print(Rule(style="cyan"))
    small = ", profile small (--profile default for the full prompt)" if report["profile"] == "small" else ""
    console.print(f"model: {report['model']} ({report['model_origin']}){small}", markup=False)
    memory = f" + project memory {report['memory_context_tokens']}" if report["memory_context"] else ""
    console.print(
        f"system prompt {report['system_tokens']} + tools {tools_total}{memory} + environment "
        f"{report['environment_tokens']} = {report['total_tokens']} tokens, counted with {report['counter']}.",
        markup=False,
    )
