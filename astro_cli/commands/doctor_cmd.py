"""`astro doctor`: is everything in place? One ✓/✗ line per check, the fix under each ✗, exit 1 on any ✗."""

from __future__ import annotations

import json

import typer

from astro_cli.bootstrap import build_app, user_errors


def doctor_command(
    model_request: bool = typer.Option(False, "--model-request", help="Also send the model one tiny request "
                                       "(a few tokens) to see that it answers."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Check Python, the install, keys, the model, the database, the library, the worker, MCP servers and trust."""
    from astro_cli.doctor.checks import DoctorOptions, run_checks

    with user_errors():
        app = build_app()
        try:
            results = run_checks(app, DoctorOptions(model_request=model_request))
        finally:
            app.close()
    failed = [r for r in results if not r.ok]
    if as_json:
        typer.echo(json.dumps({"ok": not failed, "checks": [r.as_dict() for r in results]}, indent=2))
    else:
        from rich.console import Console
        from rich.text import Text

        console = Console(highlight=False, soft_wrap=True)
        for result in results:
            mark = Text("✓ ", style="green") if result.ok else Text("✗ ", style="bold red")
            console.print(Text.assemble(mark, result.line))
            if not result.ok and result.fix:
                console.print(Text(f"  fix: {result.fix}", style="yellow"))
        console.print(Text(f"{len(failed)} problem(s) found." if failed else "Everything is in order.",
                           style="yellow" if failed else "green"))
    raise typer.Exit(1 if failed else 0)
