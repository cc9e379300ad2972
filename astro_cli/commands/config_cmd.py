"""`astro config show`: every setting, its value, where the value came from and what it does.

The `model` row is the model astro will really use (agent/model_choice.py), with its origin: a
config file, ASTRO_MODEL, or "picked from OPENAI_API_KEY" when only a provider key says which.
"""

from __future__ import annotations

import json

import typer

from astro_cli.bootstrap import build_app, print_warnings, print_withheld, user_errors
from astro_cli.commands.defaults import command_group

app = command_group("show")  # `astro config` alone: `astro config show`


@app.command("show")
def show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show the resolved settings and the source of each one."""
    from astro_cli.agent.model_choice import model_choice
    from astro_cli.config_schema import SCHEMA

    with user_errors():
        ctx = build_app()
        choice = model_choice(ctx)
        print_warnings(ctx)
        print_withheld(ctx)
        rows = [  # a URL's password or a key written into any value is never printed
            {"key": name, "value": ctx.redactor.redact_data(ctx.settings.get(name)),
             "source": ctx.settings.source(name), "help": key.help}
            for name, key in SCHEMA.items()
        ]
        if choice is not None:
            next(row for row in rows if row["key"] == "model").update(value=choice.model, source=choice.origin)
        if as_json:
            typer.echo(json.dumps(rows, indent=2, default=str))
            return
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(title=f"astro settings for {ctx.workspace.root}", title_justify="left", box=None,
                      header_style="bold", pad_edge=False)
        table.add_column("setting", style="cyan", no_wrap=True)
        table.add_column("value · from · what it does", overflow="fold", ratio=1)
        for row in rows:
            value = row["value"]
            shown = json.dumps(value) if not isinstance(value, str) else value
            cell = Text.assemble(shown, (f"  ({row['source']})", "dim"), "\n", (row["help"], "italic dim"))
            table.add_row(Text(row["key"]), cell)
        Console().print(table)
        Console().print(f"[dim]user config: {ctx.home.config_path}\nproject config: {ctx.workspace.config_path}[/]")
