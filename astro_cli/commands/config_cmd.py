"""`astro config show`: every setting, its value and where the value came from."""

from __future__ import annotations

import json

import typer

from astro_cli.bootstrap import build_app, print_warnings, print_withheld, user_errors

app = typer.Typer(no_args_is_help=True)


@app.command("show")
def show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show the resolved settings and the source of each one."""
    from astro_cli.config_schema import SCHEMA

    with user_errors():
        ctx = build_app()
        print_warnings(ctx)
        print_withheld(ctx)
        rows = [
            {"key": name, "value": ctx.settings.get(name), "source": ctx.settings.source(name), "help": key.help}
            for name, key in SCHEMA.items()
        ]
        if as_json:
            typer.echo(json.dumps(rows, indent=2, default=str))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"astro settings for {ctx.workspace.root}", title_justify="left")
        table.add_column("setting", style="cyan", no_wrap=True)
        table.add_column("value")
        table.add_column("from", style="dim")
        for row in rows:
            value = row["value"]
            shown = json.dumps(value) if not isinstance(value, str) else value
            table.add_row(row["key"], shown, row["source"])
        Console().print(table)
        Console().print(f"[dim]user config: {ctx.home.config_path}\nproject config: {ctx.workspace.config_path}[/]")
