"""`astro config show [KEY|PREFIX ...]`, `config get KEY`, `config set KEY VALUE`, as `git config` does.

The `model` row is the model astro will really use (agent/model_choice.py), with its origin: a
config file, ASTRO_MODEL, or "picked from OPENAI_API_KEY" when only a provider key says which.
A long listing on a terminal goes through a pager (ui/pager.py: $PAGER, else `less` with colours rendered).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

import typer

from astro_cli.bootstrap import UserError, build_app, print_warnings, print_withheld, user_errors
from astro_cli.commands.defaults import command_group

if TYPE_CHECKING:
    from astro_cli.app import AppContext

app = command_group("show")  # `astro config` alone: `astro config show`


def _rows(ctx: AppContext) -> list[dict[str, Any]]:
    from astro_cli.agent.model_choice import model_choice
    from astro_cli.config_schema import SCHEMA

    choice = model_choice(ctx)
    rows = [  # a URL's password or a key written into any value is never printed
        {"key": name, "value": ctx.redactor.redact_data(ctx.settings.get(name)),
         "source": ctx.settings.source(name), "help": key.help}
        for name, key in SCHEMA.items()
    ]
    if choice is not None:
        next(row for row in rows if row["key"] == "model").update(value=choice.model, source=choice.origin)
    return rows


def _matching(rows: list[dict[str, Any]], wanted: list[str]) -> list[dict[str, Any]]:
    """The rows named exactly or by a prefix (`library` is every `library.*` key); a name that is
    neither is one sentence with the closest key."""
    from astro_cli.config_schema import SCHEMA
    from astro_cli.suggest import did_you_mean

    keep: list[dict[str, Any]] = []
    for name in wanted:
        found = [r for r in rows if r["key"] == name or r["key"].startswith(name.rstrip(".") + ".")]
        if not found:
            raise UserError(f"There is no setting '{name}'{did_you_mean(name, SCHEMA)}; `astro config show` "
                            "lists them.")
        keep += [r for r in found if r not in keep]
    return keep


@app.command("show")
def show(
    keys: Optional[list[str]] = typer.Argument(None, metavar="[KEY|PREFIX]...", help="Only these settings "
                                               "(`model`, or a prefix such as `library`)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show the resolved settings and the source of each one."""
    with user_errors():
        ctx = build_app()
        print_warnings(ctx)
        print_withheld(ctx)
        rows = _rows(ctx)
        if keys:
            rows = _matching(rows, keys)
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
        console = Console()
        footer = f"[dim]user config: {ctx.home.config_path}\nproject config: {ctx.workspace.config_path}[/]"
        if console.is_terminal and len(rows) * 2 + 4 > console.height:
            from astro_cli.ui.pager import paged

            with paged(console):
                console.print(table)
                console.print(footer)
            return
        console.print(table)
        console.print(footer)


@app.command("get")
def get(key: str = typer.Argument(..., metavar="KEY", help="A setting's name, e.g. model or max_steps.")) -> None:
    """Print one setting's value (JSON for lists, mappings and numbers; nothing when it is unset)."""
    with user_errors():
        ctx = build_app()
        rows = _matching(_rows(ctx), [key])
        row = next((r for r in rows if r["key"] == key), None)
        if row is None:  # a prefix: `config get library` is `config show library`
            raise UserError(f"'{key}' is a group of settings; `astro config show {key}` lists them.")
        value = row["value"]
        if value is not None:
            typer.echo(value if isinstance(value, str) else json.dumps(value))


@app.command("set")
def set_(
    key: str = typer.Argument(..., metavar="KEY", help="A setting's name, e.g. max_steps."),
    value: str = typer.Argument(..., metavar="VALUE", help="The value, as it would be written in YAML."),
    user: bool = typer.Option(False, "--user", help="In your own config (ASTRO_HOME/config.yaml), not this "
                              "workspace's .astro/config.yaml."),
) -> None:
    """Set one setting in this workspace's config (or yours with --user), leaving the rest of the file as it is."""
    from astro_cli.config import ConfigError, check_value, loosens_limit, parse_value
    from astro_cli.config_schema import SCHEMA, USER
    from astro_cli.suggest import did_you_mean
    from astro_cli.user_config import set_values

    with user_errors():
        ctx = build_app()
        spec = SCHEMA.get(key)
        if spec is None:
            raise UserError(f"There is no setting '{key}'{did_you_mean(key, SCHEMA)}; `astro config show` lists them.")
        parsed = parse_value(spec, value)
        problem = check_value(spec, parsed)
        if problem:
            raise UserError(f"'{key}' {problem}.")
        path = ctx.home.config_path if user else ctx.workspace.config_path
        if not user and spec.project == USER:
            raise UserError(f"'{key}' can only be set in your own config, not a workspace's; "
                            f"`astro config set {key} {value} --user` sets it there.")
        why = ""
        if not user and loosens_limit(key, parsed, ctx.settings.get(key)):
            # A workspace's config can only tighten limits (a cloned project must not loosen them), so a
            # higher limit the researcher asks for here is theirs: it goes to their own config, said so,
            # unless this workspace's own tighter value would still win.
            if _has_key(path, key):
                raise UserError(
                    f"'{key}' {value} would loosen this workspace's limit of {ctx.settings.get(key)!r}, and a "
                    f"workspace's config can only tighten limits: `astro config unset {key}`, then "
                    f"`astro config set {key} {value} --user`.")
            path = ctx.home.config_path
            why = (f" (your own config: a workspace's config can only tighten the limit of "
                   f"{ctx.settings.get(key)!r})")
        try:
            set_values(path, {key: parsed}, root=ctx.workspace.root if path == ctx.workspace.config_path else None)
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        typer.echo(f"{key} = {value if isinstance(parsed, str) else json.dumps(parsed)} in {path}{why}")


@app.command("unset")
def unset(
    key: str = typer.Argument(..., metavar="KEY", help="A setting's name, e.g. max_steps."),
    user: bool = typer.Option(False, "--user", help="From your own config (ASTRO_HOME/config.yaml), not this "
                              "workspace's .astro/config.yaml."),
) -> None:
    """Remove one setting from this workspace's config (or yours with --user): its default applies again."""
    from astro_cli.config import ConfigError
    from astro_cli.user_config import UNSET, set_values

    with user_errors():
        ctx = build_app()
        path = ctx.home.config_path if user else ctx.workspace.config_path
        if not _has_key(path, key):
            where = "your config" if user else "this workspace's config"
            raise UserError(f"'{key}' is not set in {where} ({path}); `astro config show {key}` says where it "
                            "comes from.")
        try:
            set_values(path, {key: UNSET}, root=None if user else ctx.workspace.root)
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        typer.echo(f"{key} removed from {path}")


def _has_key(path: Any, key: str) -> bool:
    from astro_cli.config import read_yaml_file

    if not path.exists():
        return False
    data = read_yaml_file(path)
    return isinstance(data, dict) and key in data
